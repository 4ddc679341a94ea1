import { z } from 'zod';
import { readJsonBody, sendJson } from '../http-util';
import type { SubHandler } from '../router';
import { serveFaults } from '../shared/control';
import { FaultsPatch } from './faults';
import type { AeatEmulator } from './index';

export const ResetBody = z
  .object({
    /** Also drop taxpayers added at run time. Default false. */
    census: z.boolean().optional(),
  })
  .strict();

export const ConfigPatch = z
  .object({
    waitSeconds: z.number().int().min(0).max(9999).optional(),
    futureToleranceSeconds: z.number().int().min(0).max(86_400).optional(),
    checkRecipients: z.boolean().optional(),
    validateXsd: z.boolean().optional(),
  })
  .strict();
export type ConfigPatch = z.infer<typeof ConfigPatch>;

/**
 * JSON control API of the AEAT emulator, mounted at `/__control/aeat/` and, for
 * convenience while it is the only emulator, at `/__control/`.
 */
export function aeatControlHandler(emu: AeatEmulator, prefix: string): SubHandler {
  return {
    prefix,
    owner: 'aeat',
    async handle(req, res, path) {
      const sub = path.slice(prefix.length).replace(/\/+$/, '');
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const nif = q.get('nif') ?? undefined;
      const m = req.method ?? 'GET';

      if (sub === 'faults') {
        if (await serveFaults(req, res, emu.faults, FaultsPatch)) return;
      } else if (sub === 'reset' && m === 'POST') {
        const b = await readJsonBody(req, res, ResetBody);
        if (!b) return;
        emu.reset({ census: b.census ?? false });
        return sendJson(res, 200, { ok: true });
      } else if (sub === 'config') {
        if (m === 'GET') return sendJson(res, 200, emu.config());
        if (m === 'PUT') {
          const patch = await readJsonBody(req, res, ConfigPatch);
          if (patch) sendJson(res, 200, emu.configure(patch));
          return;
        }
      } else if (m === 'GET' && sub.startsWith('ledger/')) {
        const what = sub.slice('ledger/'.length);
        const l = emu.ledger;
        switch (what) {
          case 'summary':
            return sendJson(res, 200, l.summary());
          case 'submissions':
            return sendJson(res, 200, { submissions: l.submissions() });
          case 'records':
            return sendJson(res, 200, { records: l.records(nif) });
          case 'record': {
            const key = q.get('key');
            const emisor = q.get('emisor');
            const numSerie = q.get('numSerie');
            const fecha = q.get('fecha');
            const rec = key
              ? l.getRecord(key)
              : emisor && numSerie && fecha
                ? l.getRecord({ emisor, numSerie, fecha })
                : undefined;
            if (rec === undefined) return sendJson(res, 400, { error: 'give key or emisor, numSerie and fecha' });
            if (rec === null) return sendJson(res, 404, { error: 'not_found' });
            return sendJson(res, 200, { record: rec, presentations: l.presentations(rec.key) });
          }
          case 'duplicates':
            return sendJson(res, 200, { duplicates: l.duplicatesReceived() });
          case 'flow-violations':
            return sendJson(res, 200, { violations: l.flowViolations(nif) });
          case 'chain':
            if (!nif) return sendJson(res, 400, { error: 'nif required' });
            return sendJson(res, 200, { intact: l.chainIntact(nif), head: l.chainHead(nif), heads: l.chainHeads(nif), breaks: l.chainBreaks(nif) });
          default:
            break;
        }
      }
      sendJson(res, 404, { error: 'not_found', path });
    },
  };
}
