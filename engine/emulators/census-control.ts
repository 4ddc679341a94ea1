import type { CensusDirectory } from './census-data';
import { TaxpayerSchema } from './census-data';
import { readJsonBody, sendJson } from './http-util';
import type { SubHandler } from './router';

/** `/__control/census`: GET lists, POST adds/replaces one taxpayer, DELETE resets to the seed. */
export function censusControlHandler(census: CensusDirectory, prefix = '/__control/census'): SubHandler {
  return {
    prefix,
    owner: 'census',
    async handle(req, res) {
      if (req.method === 'GET') {
        sendJson(res, 200, { taxpayers: census.list() });
        return;
      }
      if (req.method === 'POST') {
        const taxpayer = await readJsonBody(req, res, TaxpayerSchema);
        if (taxpayer) sendJson(res, 201, { taxpayer: census.addTaxpayer(taxpayer) });
        return;
      }
      if (req.method === 'DELETE') {
        census.reset();
        sendJson(res, 200, { taxpayers: census.list() });
        return;
      }
      sendJson(res, 405, { error: 'method_not_allowed' });
    },
  };
}
