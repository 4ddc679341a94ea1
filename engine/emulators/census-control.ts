import type { CensusDirectory } from './census-data';
import { TaxpayerSchema } from './census-data';
import { readJson, sendJson } from './http-util';
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
        let body: unknown;
        try {
          body = await readJson(req);
        } catch {
          sendJson(res, 400, { error: 'invalid_json' });
          return;
        }
        const parsed = TaxpayerSchema.safeParse(body);
        if (!parsed.success) {
          sendJson(res, 400, { error: 'invalid_body', issues: parsed.error.issues });
          return;
        }
        sendJson(res, 201, { taxpayer: census.addTaxpayer(parsed.data) });
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
