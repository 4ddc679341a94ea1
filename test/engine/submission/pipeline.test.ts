import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WriteTurns } from '../../../engine/src/db/write-priority';
import { ManualClock } from '../../../engine/src/platform/clock';
import { silentLogger } from '../../../engine/src/platform/logger';
import type { AuthorityAdapter } from '../../../engine/src/core/authority';
import { AeatAdapter, type AeatEndpointConfig } from '../../../engine/src/regimes/verifactu/authority/aeat-adapter';
import { SubmissionWorker } from '../../../engine/src/submission/worker';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { issueTickets, useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 } });

async function issue(from: number, n: number) {
  for (let i = from; i < from + n; i += 250) {
    await Promise.all(
      Array.from({ length: Math.min(250, from + n - i) }, (_, k) =>
        env.t.billing('POST', '/v1/verifactu/crear', {
          body: aFacturaF2({ cabecera: { serie: 'P', numero: String(i + k), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
        }),
      ),
    );
  }
}

describe('Back-to-back submissions (TiempoEsperaEnvio 0) keep the chain order', () => {
  it('after a crash left two submissions unanswered, both go again, oldest first, before any new one', async () => {
    await issue(0, 2500);
    // Two submissions committed but never answered, as a crash would leave them.
    const worker = env.t.engine.context.submissions as unknown as { buildBatch(q: string, a: unknown): Promise<unknown>; adapterFor(q: string): unknown };
    const queue = `test|aeat|${NIF}`;
    await worker.buildBatch(queue, worker.adapterFor(queue));
    await worker.buildBatch(queue, worker.adapterFor(queue));
    await (env.t.engine.context.submissions as SubmissionWorker).drainDue();
    const left = env.t.engine.context.db.statement('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number };
    expect(left.n).toBe(0);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(2500);
    expect(env.emu.aeat.ledger.chainIntact(NIF)).toBe(true);
    expect(env.emu.aeat.ledger.maxBatchSize()).toBe(1000);
    const batches = env.t.engine.context.db.statement("SELECT numRegistros FROM submission_batches ORDER BY creadoEn, id").all() as { numRegistros: number }[];
    expect(batches.map((b) => b.numRegistros)).toEqual([1000, 1000, 500]);
  });
});

class Killed extends Error {}

/** The engine's AEAT adapter, two records a submission (so a handful of tickets makes several full ones). */
function aeatTwoBySubmission(aeat: AeatEndpointConfig): AuthorityAdapter {
  const real = new AeatAdapter(aeat);
  return { ...real, maxRecords: 2, build: real.build.bind(real), lineKey: real.lineKey.bind(real), interpret: real.interpret.bind(real), send: real.send.bind(real) };
}

describe('A crash while a full submission waits, stored ahead, for the answer before it', () => {
  it('after the restart the unapplied answer is reconciled, the stored one goes once as a first send, and the chain arrives in order', async () => {
    const ctx = env.t.engine.context;
    /** Two records a submission, on a worker whose turns at the lock are counted. */
    const workerWith = (turns?: WriteTurns) =>
      new SubmissionWorker(ctx.db, clock, ctx.config.ids, silentLogger, ctx.config.submission, [aeatTwoBySubmission(ctx.config.submission.aeat)], turns);
    const before = new Set((ctx.db.statement('SELECT id FROM submission_batches').all() as { id: string }[]).map((b) => b.id));
    const batches = () =>
      (ctx.db.statement('SELECT id, intentos, estado FROM submission_batches ORDER BY creadoEn, id').all() as { id: string; intentos: number; estado: string }[]).filter(
        (b) => !before.has(b.id),
      );
    await issueTickets(env, 'S', 6);

    // Turns: 0 builds and sends the first, 1 builds and sends the second on the first's answer,
    // 2 applies that answer, 3 stores the third ahead; the process dies at 4 (the second's answer
    // is in, unapplied; the third would now have its attempt counted and leave).
    let turn = 0;
    const dying: WriteTurns = {
      take: async (transaction) => {
        if (turn++ === 4) throw new Killed('killed');
        return transaction();
      },
    };
    await expect(workerWith(dying).tick()).rejects.toThrow(Killed);
    const left = batches();
    expect(left.map(({ intentos, estado }) => ({ intentos, estado }))).toEqual([
      { intentos: 1, estado: 'respondido' },
      { intentos: 1, estado: 'pendiente_respuesta' },
      { intentos: 0, estado: 'pendiente_respuesta' },
    ]);
    const stored = left[2]!.id;

    const restarted = workerWith();
    for (let i = 0; i < 5 && env.jobsLeft() > 0; i++) await restarted.drainDue();
    expect(env.jobsLeft()).toBe(0);
    const finals = ctx.db
      .statement("SELECT r.estadoEnvioFinal AS f, COUNT(*) AS n FROM registros r JOIN invoices i ON i.id = r.invoiceId WHERE i.numeroFactura LIKE 'S%' GROUP BY f")
      .all();
    expect(finals).toEqual([{ f: 'registrada', n: 6 }]);
    const events = ctx.db.statement("SELECT COUNT(*) AS n FROM events e JOIN invoices i ON i.id = e.invoiceId WHERE i.numeroFactura LIKE 'S%'").get();
    expect(events).toEqual({ n: 6 });
    const held = env.emu.aeat.ledger.records(NIF).filter((r) => r.numSerie.startsWith('S'));
    expect(held).toHaveLength(6);
    expect(env.emu.aeat.ledger.chainIntact(NIF)).toBe(true);
    // The second reached AEAT twice (its resend answered "already registered"); the stored third once, with its stored bytes.
    const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    const peticion = (ctx.db.statement('SELECT peticion FROM submission_requests WHERE idLote = ?').get(stored) as { peticion: string }).peticion;
    expect(env.emu.aeat.ledger.submissions().filter((x) => x.requestSha256 === sha(peticion))).toHaveLength(1);
    expect(held.filter((r) => r.receivedCount === 2)).toHaveLength(2);
  });
});

describe('A backlog longer than one lane’s round cap', () => {
  it('goes on at once after the cap, not after the idle poll', async () => {
    const ctx = env.t.engine.context;
    // A poll a minute long: only a wake-up can run the next pass within the test's time.
    const worker = new SubmissionWorker(ctx.db, clock, ctx.config.ids, silentLogger, { ...ctx.config.submission, pollMs: 60_000 }, [aeatTwoBySubmission(ctx.config.submission.aeat)]);
    // 22 submissions of two: more than the 21 one pass chains back to back.
    await issueTickets(env, 'L', 44);
    worker.start();
    try {
      const deadline = Date.now() + 20_000;
      while (env.jobsLeft() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await worker.stop();
    }
    expect(env.jobsLeft()).toBe(0);
    expect(env.emu.aeat.ledger.records(NIF).filter((r) => r.numSerie.startsWith('L'))).toHaveLength(44);
  });
});

