// An answer is applied in short write transactions (acceptances VERDICTS_PER_TRANSACTION at a
// time, then one closing transaction with the rejections and the submission's bookkeeping), so
// that issuing never waits long for SQLite's lock. A crash between two of them leaves the
// submission open with part of its records final. These tests stop a worker there (its next turn
// at the lock throws, as a killed process takes none), start a fresh one on the same database as a
// restarted engine would, and check what must hold: every record final exactly once, one event per
// final verdict, each record once in the authority's ledger, the resend byte for byte.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WriteTurns } from '../../../engine/src/db/write-priority';
import { ManualClock } from '../../../engine/src/platform/clock';
import { silentLogger } from '../../../engine/src/platform/logger';
import { AeatAdapter } from '../../../engine/src/regimes/verifactu/authority/aeat-adapter';
import { SubmissionWorker, VERDICTS_PER_TRANSACTION } from '../../../engine/src/submission/worker';
import { issueTickets, useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const TICKETS = 2 * VERDICTS_PER_TRANSACTION + 50;

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

class Killed extends Error {}

/** Turns at the write lock that end the process (throw) at turn `fatal`: the turns before it committed. */
function dyingAt(fatal: number): WriteTurns {
  let turn = 0;
  return {
    take: async (transaction) => {
      if (turn++ === fatal) throw new Killed(`killed before write transaction ${fatal}`);
      return transaction();
    },
  };
}

/** A submission worker of its own on the engine's database: the engine process before (`turns` dying) or after a restart. */
function workerOf(turns?: WriteTurns): SubmissionWorker {
  const ctx = env.t.engine.context;
  return new SubmissionWorker(ctx.db, clock, ctx.config.ids, silentLogger, ctx.config.submission, [new AeatAdapter(ctx.config.submission.aeat)], turns);
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function recordsOf(serie: string) {
  return env.t.engine.context.db
    .statement(
      `SELECT r.id, r.estadoEnvioFinal, r.idLote, i.numeroFactura FROM registros r JOIN invoices i ON i.id = r.invoiceId
       WHERE i.numeroFactura LIKE ? ORDER BY r.chainSeq`,
    )
    .all(`${serie}%`) as { id: string; estadoEnvioFinal: string | null; idLote: string | null; numeroFactura: string }[];
}

function eventsOf(serie: string) {
  return env.t.engine.context.db
    .statement('SELECT e.registroId, e.evento FROM events e JOIN invoices i ON i.id = e.invoiceId WHERE i.numeroFactura LIKE ?')
    .all(`${serie}%`) as { registroId: string; evento: string }[];
}

/** Kills a worker after the first chunk of acceptances committed (turn 0 builds and sends, turn 1 is that chunk). */
async function killAfterFirstChunk(): Promise<void> {
  await expect(workerOf(dyingAt(2)).tick()).rejects.toThrow(Killed);
}

/** Runs a restarted worker, a second of the clock between rounds, until nothing waits. */
async function restartAndDrain(): Promise<void> {
  const restarted = workerOf();
  for (let i = 0; i < 10 && env.jobsLeft() > 0; i++) {
    await restarted.drainDue();
    clock.advance(1000);
  }
  expect(env.jobsLeft()).toBe(0);
}

/** The invariants after the restart: final once, one event each, each record once at AEAT, every send of the submission the same bytes. */
function expectSettledOnce(serie: string, evento: string, sendsOfTheSubmission = 2): void {
  const records = recordsOf(serie);
  expect(records).toHaveLength(TICKETS);
  expect(records.filter((r) => r.estadoEnvioFinal === 'registrada')).toHaveLength(TICKETS);
  const idLote = records[0]!.idLote;
  expect(records.every((r) => r.idLote === idLote)).toBe(true);

  const events = eventsOf(serie);
  expect(events).toHaveLength(TICKETS);
  expect(new Set(events.map((e) => e.registroId)).size).toBe(TICKETS);
  expect(events.every((e) => e.evento === evento)).toBe(true);

  const held = env.emu.aeat.ledger.records(NIF).filter((r) => r.numSerie.startsWith(serie));
  expect(held).toHaveLength(TICKETS);
  expect(new Set(held.map((r) => r.huella)).size).toBe(TICKETS);
  expect(held.every((r) => r.registered)).toBe(true);

  const peticion = (env.t.engine.context.db.statement('SELECT peticion FROM submission_requests WHERE idLote = ?').get(idLote) as { peticion: string }).peticion;
  const sends = env.emu.aeat.ledger.submissions().filter((s) => s.requestSha256 === sha256(peticion));
  expect(sends).toHaveLength(sendsOfTheSubmission);
  expect(env.emu.aeat.ledger.chainIntact(NIF)).toBe(true);
}

/** Turns that count their transactions and say whether issuing is busy. */
function counting(issuingBusy: boolean): WriteTurns & { taken: number } {
  const turns = {
    taken: 0,
    take: async <T>(transaction: () => T): Promise<T> => {
      turns.taken += 1;
      return transaction();
    },
    issuingBusy: () => issuingBusy,
  };
  return turns;
}

describe('How many write transactions an answer takes', () => {
  it('while tills issue, acceptances go in chunks; while none does, the whole answer goes in its closing transaction', async () => {
    await issueTickets(env, 'TB', TICKETS);
    const busy = counting(true);
    await workerOf(busy).drainDue();
    // Building and sending, two chunks of VERDICTS_PER_TRANSACTION, the closing one with the last 50.
    expect(busy.taken).toBe(4);
    expectSettledOnce('TB', 'factura.registrada', 1);

    await issueTickets(env, 'TI', TICKETS);
    const idle = counting(false);
    await workerOf(idle).drainDue();
    expect(idle.taken).toBe(2);
    expectSettledOnce('TI', 'factura.registrada', 1);
  });
});

describe('A crash between two write transactions of an answer', () => {
  it('leaves the acceptances committed so far; the resend (same bytes) is answered "already registered" and each record ends final once, with one event', async () => {
    await issueTickets(env, 'CA', TICKETS);
    await killAfterFirstChunk();

    // What the killed process left: one chunk final, the submission open with every job, nothing else.
    const left = recordsOf('CA');
    expect(left.filter((r) => r.estadoEnvioFinal === 'registrada')).toHaveLength(VERDICTS_PER_TRANSACTION);
    expect(eventsOf('CA')).toHaveLength(VERDICTS_PER_TRANSACTION);
    expect(env.jobsLeft()).toBe(TICKETS);
    const open = env.t.engine.context.db.statement("SELECT COUNT(*) AS n FROM submission_batches WHERE estado = 'pendiente_respuesta'").get() as { n: number };
    expect(open.n).toBe(1);

    await restartAndDrain();
    expectSettledOnce('CA', 'factura.registrada');
    // The second answer was AEAT's duplicate for every record: reconciled, never a rejection.
    const held = env.emu.aeat.ledger.records(NIF).filter((r) => r.numSerie.startsWith('CA'));
    expect(held.every((r) => r.receivedCount === 2)).toBe(true);
  });

  it('keeps a rejection out of the early transactions: resent after the crash and accepted then, the record is registered here as at AEAT', async () => {
    // AEAT rejects the first record of the next request, once: a verdict the resend does not repeat.
    env.emu.aeat.faults.set({ rejectNext: { count: 1, codigo: 1100 } });
    await issueTickets(env, 'CR', TICKETS);
    await killAfterFirstChunk();

    const left = recordsOf('CR');
    expect(left[0]!.estadoEnvioFinal).toBeNull();
    expect(left.filter((r) => r.estadoEnvioFinal !== null)).toHaveLength(VERDICTS_PER_TRANSACTION);
    expect(eventsOf('CR').some((e) => e.evento === 'factura.rechazada')).toBe(false);

    await restartAndDrain();
    // Had the rejection been final before the crash, the record would read `rechazada` here
    // while AEAT holds it registered.
    expectSettledOnce('CR', 'factura.registrada');
  });

  it('without a crash, applies acceptances and rejections of one answer alike: one final state and one event per record', async () => {
    env.emu.aeat.faults.set({ rejectNext: { count: 1, codigo: 1100 } });
    await issueTickets(env, 'CN', TICKETS);
    await restartAndDrain();
    const records = recordsOf('CN');
    expect(records.map((r) => r.estadoEnvioFinal)).toEqual(['rechazada', ...Array.from({ length: TICKETS - 1 }, () => 'registrada')]);
    const events = eventsOf('CN');
    expect(events).toHaveLength(TICKETS);
    expect(new Set(events.map((e) => e.registroId)).size).toBe(TICKETS);
    expect(events.find((e) => e.registroId === records[0]!.id)?.evento).toBe('factura.rechazada');
  });
});
