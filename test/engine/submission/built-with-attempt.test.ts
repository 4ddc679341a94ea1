import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { issueTickets, useEngineWithEmulators } from '../../support/filing';

// A submission that leaves at once is built and has its first attempt counted in one
// transaction. These are the two states a crash right after that commit can leave: the request
// never left, or it reached AEAT and the answer was lost. Either way the restarted worker resends
// the committed bytes, every record ends registered once at AEAT, with one event each.

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const QUEUE = `test|aeat|${NIF}`;

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

type Worker = { buildBatch(q: string, a: unknown, withAttempt?: boolean): Promise<{ id: string; peticion: string } | undefined>; adapterFor(q: string): unknown };
const worker = () => env.t.engine.context.submissions as unknown as Worker;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const issue = (serie: string, n: number) => issueTickets(env, serie, n);

/** What the crash leaves: the submission and its first attempt committed, nothing answered. */
async function buildWithAttempt(): Promise<{ id: string; peticion: string }> {
  const batch = await worker().buildBatch(QUEUE, worker().adapterFor(QUEUE), true);
  if (!batch) throw new Error('nothing to build');
  const row = env.t.engine.context.db.statement('SELECT intentos, enviadoEn, estado FROM submission_batches WHERE id = ?').get(batch.id);
  expect(row).toEqual({ intentos: 1, enviadoEn: clock.now().toISOString(), estado: 'pendiente_respuesta' });
  return batch;
}

function settled(invoiceIds: readonly string[], idLote: string) {
  for (const id of invoiceIds) {
    const reg = env.t.engine.context.db.statement('SELECT estadoEnvioFinal, idLote FROM registros WHERE invoiceId = ?').get(id);
    expect(reg).toEqual({ estadoEnvioFinal: 'registrada', idLote });
    const events = env.t.engine.context.db.statement('SELECT evento FROM events WHERE invoiceId = ?').all(id);
    expect(events).toEqual([{ evento: 'factura.registrada' }]);
  }
}

const sendsOf = (peticion: string) => env.emu.aeat.ledger.submissions().filter((s) => s.requestSha256 === sha256(peticion));

describe('A submission built with its first attempt, then the engine crashed', () => {
  it('before the request left: its records wait en_cola, and the resend registers each once', async () => {
    const ids = await issue('W', 3);
    const batch = await buildWithAttempt();
    const estados = env.t.engine.context.db.statement('SELECT r.estadoEnvio AS registro, i.estadoEnvio AS factura FROM registros r JOIN invoices i ON i.id = r.invoiceId WHERE r.idLote = ?').all(batch.id);
    expect(estados).toEqual(ids.map(() => ({ registro: 'en_cola', factura: 'en_cola' })));

    await env.fileEverything();
    expect(sendsOf(batch.peticion)).toHaveLength(1);
    expect(env.emu.aeat.ledger.duplicatesReceived()).toEqual([]);
    settled(ids, batch.id);
  });

  it('after the request reached AEAT: the resend\'s duplicates are reconciled, never rejected, one event each', async () => {
    const ids = await issue('X', 3);
    const batch = await buildWithAttempt();
    // The killed engine's request got through; its answer was lost with the process.
    const res = await fetch(env.emu.aeatUrl, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, body: batch.peticion });
    expect(res.status).toBe(200);

    await env.fileEverything();
    expect(sendsOf(batch.peticion)).toHaveLength(2);
    const held = env.emu.aeat.ledger.records(NIF).filter((r) => r.numSerie.startsWith('X'));
    expect(held).toHaveLength(3);
    expect(held.every((r) => r.receivedCount === 2 && r.registered)).toBe(true);
    settled(ids, batch.id);
  });
});
