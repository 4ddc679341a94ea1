import { z } from 'zod';
import { readJsonBody, sendJson } from '../http-util';
import type { SubHandler } from '../router';
import { serveFaults } from '../common/control';
import { FaultsPatch } from './faults';
import type { AeatEmulator } from './index';
import type { LedgerApi } from './ledger';

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

/** One GET /ledger/… read: its status and JSON body, or null for an unknown read. */
function ledgerRead(l: LedgerApi, what: string, q: URLSearchParams): { status: number; body: unknown } | null {
  const nif = q.get('nif') ?? undefined;
  switch (what) {
    case 'summary':
      return { status: 200, body: l.summary() };
    case 'submissions':
      return { status: 200, body: { submissions: l.submissions() } };
    case 'records':
      return { status: 200, body: { records: l.records(nif) } };
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
      if (rec === undefined) return { status: 400, body: { error: 'give key or emisor, numSerie and fecha' } };
      if (rec === null) return { status: 404, body: { error: 'not_found' } };
      return { status: 200, body: { record: rec, presentations: l.presentations(rec.key) } };
    }
    case 'duplicates':
      return { status: 200, body: { duplicates: l.duplicatesReceived() } };
    case 'flow-violations':
      return { status: 200, body: { violations: l.flowViolations(nif) } };
    case 'chain':
      if (!nif) return { status: 400, body: { error: 'nif required' } };
      return { status: 200, body: { intact: l.chainIntact(nif), head: l.chainHead(nif), heads: l.chainHeads(nif), breaks: l.chainBreaks(nif) } };
    default:
      return null;
  }
}

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
      const m = req.method ?? 'GET';

      if (sub === 'faults') {
        if (await serveFaults(req, res, emu.faults, FaultsPatch)) return;
      } else if (sub === 'reset' && m === 'POST') {
        const b = await readJsonBody(req, res, ResetBody);
        if (!b) return;
        await emu.reset({ census: b.census ?? false });
        return sendJson(res, 200, { ok: true });
      } else if (sub === 'config') {
        if (m === 'GET') return sendJson(res, 200, emu.config());
        if (m === 'PUT') {
          const patch = await readJsonBody(req, res, ConfigPatch);
          if (patch) sendJson(res, 200, emu.configure(patch));
          return;
        }
      } else if (m === 'GET' && sub.startsWith('ledger/')) {
        // After the request at the ledger, if any: never rows it may still roll back.
        const answer = await emu.readLedger((l) => ledgerRead(l, sub.slice('ledger/'.length), q));
        if (answer) return sendJson(res, answer.status, answer.body);
      }
      sendJson(res, 404, { error: 'not_found', path });
    },
  };
}
