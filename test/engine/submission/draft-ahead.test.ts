import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import type { AuthorityAdapter } from '../../../engine/src/core/authority';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { replaceAdapter, useEngineWithEmulators } from '../../support/filing';

// With TiempoEsperaEnvio 0 the order rule keeps a queue's next submission home until the answer
// to the one before it is in; meanwhile the worker reads and builds it. These tests hold the
// second submission's answer and look at what the third one became.

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const QUEUE = `test|aeat|${NIF}`;

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

type WorkerInternals = { adapterFor(q: string): AuthorityAdapter; drainDue(): Promise<void> };
const worker = () => env.t.engine.context.submissions as unknown as WorkerInternals;

async function issue(serie: string, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i += 250) {
    const statuses = await Promise.all(
      Array.from({ length: Math.min(250, from + n - i) }, async (_, k) => {
        const res = await env.t.billing('POST', '/v1/verifactu/crear', {
          body: aFacturaF2({ cabecera: { serie, numero: String(i + k), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
        });
        return res.statusCode;
      }),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
  }
}

/** The series' invoices in chain order: the order AEAT must receive them in. */
const chainOrder = (serie: string) =>
  (
    env
      .t.engine.context.db
      .statement('SELECT i.numeroFactura FROM registros r JOIN invoices i ON i.id = r.invoiceId WHERE r.chainKey = ? ORDER BY r.chainSeq')
      .all(`test|verifactu|${NIF}`) as { numeroFactura: string }[]
  )
    .map((r) => r.numeroFactura)
    .filter((n) => n.startsWith(serie));
const arrivedAtAeat = (serie: string) =>
  env.emu.aeat.ledger
    .presentations()
    .map((p) => p.key.split('|')[1]!)
    .filter((n) => n.startsWith(serie));

const answeredBatches = () => (env.t.engine.context.db.statement("SELECT COUNT(*) AS n FROM submission_batches WHERE estado = 'respondido'").get() as { n: number }).n;
const batchSizes = () => (env.t.engine.context.db.statement('SELECT numRegistros FROM submission_batches ORDER BY creadoEn, rowid').all() as { numRegistros: number }[]).map((b) => b.numRegistros);

/** Nothing left to send; the series' records reached AEAT once each, in chain order, the ledger unbroken. */
function expectAllFiledInChainOrder(serie: string, records: number, ledgerTotal: number): void {
  expect(env.jobsLeft()).toBe(0);
  expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(ledgerTotal);
  expect(env.emu.aeat.ledger.chainBreaks(NIF)).toEqual([]);
  expect(arrivedAtAeat(serie)).toHaveLength(records);
  expect(arrivedAtAeat(serie)).toEqual(chainOrder(serie));
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

/**
 * Drains the queue with the answer to its second submission held until the first one is applied
 * (so the third is drafted by then); `meanwhile` runs at that point. Returns how many requests
 * had been built when the held answer was let through.
 */
async function drainHoldingSecondAnswer(meanwhile: () => Promise<void>): Promise<number> {
  const real = worker().adapterFor(QUEUE);
  let builds = 0;
  let sends = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let buildsAtRelease = -1;
  const holding: AuthorityAdapter = {
    autoridad: real.autoridad,
    maxRecords: real.maxRecords,
    build: (records, context) => {
      builds++;
      return real.build(records, context);
    },
    lineKey: (record) => real.lineKey(record),
    interpret: (sent, records) => real.interpret(sent, records),
    send: async (entorno, request, onWritten) => {
      const sent = await real.send(entorno, request, onWritten);
      if (++sends === 2) await released;
      return sent;
    },
  };
  replaceAdapter(worker(), holding);
  try {
    const answeredBefore = answeredBatches();
    const draining = worker().drainDue();
    // The first submission's answer applied: the worker builds the third one right after, on this thread.
    await until(() => answeredBatches() === answeredBefore + 1 && sends === 2);
    await meanwhile();
    buildsAtRelease = builds;
    release();
    await draining;
    await worker().drainDue();
  } finally {
    replaceAdapter(worker(), real);
  }
  return buildsAtRelease;
}

describe('The submission after the one at the authority is built while it is there', () => {
  it('nothing new meanwhile: the submission built ahead is the one sent, in chain order', async () => {
    await issue('A', 0, 2300);
    const before = batchSizes().length;
    const built = await drainHoldingSecondAnswer(async () => {});
    // Three requests built before the second answer was let through: the third one ahead of it.
    expect(built).toBe(3);
    expect(batchSizes().slice(before)).toEqual([1000, 1000, 300]);
    expectAllFiledInChainOrder('A', 2300, 2300);
  });

  it('records issued meanwhile: they join the next submission, as a fresh build would take them', async () => {
    await issue('B', 0, 2300);
    const before = batchSizes().length;
    await drainHoldingSecondAnswer(() => issue('B', 2300, 200));
    expect(batchSizes().slice(before)).toEqual([1000, 1000, 500]);
    expectAllFiledInChainOrder('B', 2500, 4800);
    const states = env.t.engine.context.db.statement("SELECT estadoFactura, COUNT(*) AS n FROM invoices WHERE numeroFactura LIKE 'B%' GROUP BY estadoFactura").all();
    expect(states).toEqual([{ estadoFactura: 'registrada', n: 2500 }]);
  });
});
