import { z } from 'zod';
import { readJsonBody, sendJson } from '../http-util';
import type { SubHandler } from '../router';
import { serveFaults } from '../common/control';
import { TbaiFaultsPatch } from './faults';
import type { TicketBaiEmulator } from './index';
import type { Provincia } from './urls';
import { PROVINCIAS, TBAI_CONTROL_PREFIX } from './urls';

export const TbaiConfigPatch = z
  .object({
    validateXsd: z.boolean().optional(),
    verifySignature: z.boolean().optional(),
    checkChain: z.boolean().optional(),
    requireLines: z.boolean().optional(),
    newDeviceWarning: z.boolean().optional(),
    newDeviceWarningWithoutNumber: z.boolean().optional(),
    policies: z
      .array(z.object({ identifier: z.string().min(1), digests: z.array(z.string().min(1)).nullable() }).strict())
      .optional(),
  })
  .strict();
export type TbaiConfigPatch = z.infer<typeof TbaiConfigPatch>;

/**
 * JSON control API of the TicketBAI emulators, at `/__control/tbai/`:
 *   GET  urls                                  paths of every service
 *   POST reset                                 empties every province's ledger and clears all faults
 *   GET  ledger/summary                        summary over the three provinces
 *   GET|PUT|POST|DELETE <provincia>/faults     fault injection (PUT/POST patch, DELETE clears)
 *   POST <provincia>/reset                     that province's ledger and faults
 *   GET|PUT <provincia>/config                 checks switched on/off, accepted signature policies
 *   GET  <provincia>/ledger/summary | invoices[?nif=] | invoice?idTbai= (or ?nif=&serie=&num=)
 *        | presentations[?idTbai=] | submissions | duplicates | chain?nif=[&device=] | devices[?nif=]
 */
export function tbaiControlHandler(emu: TicketBaiEmulator, prefix = TBAI_CONTROL_PREFIX): SubHandler {
  return {
    prefix,
    owner: 'ticketbai',
    async handle(req, res, path) {
      const sub = path.slice(prefix.length).replace(/\/+$/, '');
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const m = req.method ?? 'GET';
      const parts = sub.split('/');
      const l = emu.ledger;

      if (sub === 'urls' && m === 'GET') return sendJson(res, 200, { base: emu.url(), paths: emu.paths });
      if (sub === 'reset' && m === 'POST') {
        emu.reset();
        return sendJson(res, 200, { ok: true });
      }
      if (sub === 'ledger/summary' && m === 'GET') {
        return sendJson(res, 200, { all: l.summary(), ...Object.fromEntries(PROVINCIAS.map((p) => [p, l.summary(p)])) });
      }
      const prov = parts[0] as Provincia;
      if (!PROVINCIAS.includes(prov)) return sendJson(res, 404, { error: 'not_found', path });
      const rest = parts.slice(1).join('/');
      const faults = emu.faults[prov];

      if (rest === 'faults') {
        if (await serveFaults(req, res, faults, TbaiFaultsPatch)) return;
      } else if (rest === 'reset' && m === 'POST') {
        emu.reset(prov);
        return sendJson(res, 200, { ok: true });
      } else if (rest === 'config') {
        if (m === 'GET') return sendJson(res, 200, emu.config(prov));
        if (m === 'PUT') {
          const patch = await readJsonBody(req, res, TbaiConfigPatch);
          if (patch) sendJson(res, 200, emu.configure(prov, patch));
          return;
        }
      } else if (m === 'GET' && rest.startsWith('ledger/')) {
        const nif = q.get('nif') ?? undefined;
        switch (rest.slice('ledger/'.length)) {
          case 'summary':
            return sendJson(res, 200, l.summary(prov));
          case 'invoices':
            return sendJson(res, 200, { invoices: l.invoices(prov, nif) });
          case 'invoice': {
            const idTbai = q.get('idTbai');
            const serie = q.get('serie') ?? '';
            const num = q.get('num');
            const inv = idTbai ? l.getInvoice(idTbai, prov) : nif && num ? l.getInvoiceByKey(prov, nif, serie, num) : undefined;
            if (inv === undefined) return sendJson(res, 400, { error: 'give idTbai, or nif, serie and num' });
            if (inv === null) return sendJson(res, 404, { error: 'not_found' });
            return sendJson(res, 200, { invoice: inv, presentations: l.presentations({ key: inv.key }) });
          }
          case 'presentations': {
            const idTbai = q.get('idTbai');
            return sendJson(res, 200, { presentations: l.presentations({ provincia: prov, ...(idTbai ? { idTbai } : {}) }) });
          }
          case 'submissions':
            return sendJson(res, 200, { submissions: l.submissions(prov) });
          case 'duplicates':
            return sendJson(res, 200, { duplicates: l.duplicatesReceived(prov) });
          case 'devices':
            return sendJson(res, 200, { devices: l.devices(prov, nif) });
          case 'chain': {
            if (!nif) return sendJson(res, 400, { error: 'nif required' });
            const device = q.get('device') ?? undefined;
            return sendJson(res, 200, {
              intact: l.chainIntact(prov, nif, device),
              head: l.chainHead(prov, nif, device ?? ''),
              breaks: l.chainBreaks(prov, nif).filter((b) => device === undefined || b.device === device),
            });
          }
          default:
            break;
        }
      }
      sendJson(res, 404, { error: 'not_found', path });
    },
  };
}
