import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import type { AuthorityAdapter } from '../../../engine/src/core/authority';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { replaceAdapter, useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const QUEUE = 'test|aeat|B12345674';

// TiempoEsperaEnvio 0: the worker pipelines submissions back to back.
const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

type WorkerInternals = { adapterFor(q: string): AuthorityAdapter; drainDue(): Promise<void> };
const finals = () =>
  (env.t.engine.context.db.statement('SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NOT NULL').get() as { n: number }).n;

/**
 * Issues `count` invoices of `serie` and drains them with two records a submission (so a few
 * invoices make several pipelined submissions), calling `onWritten` as each request leaves and
 * `onAnswer` as each answer arrives.
 */
async function drainTwoBySubmission(serie: string, count: number, hooks: { onWritten?: () => void; onAnswer?: () => void }): Promise<void> {
  const worker = env.t.engine.context.submissions as unknown as WorkerInternals;
  const real = worker.adapterFor(QUEUE);
  replaceAdapter(worker, {
    autoridad: real.autoridad,
    maxRecords: 2,
    build: (records, context) => real.build(records, context),
    lineKey: (record) => real.lineKey(record),
    interpret: (sent, records) => {
      hooks.onAnswer?.();
      return real.interpret(sent, records);
    },
    send: (entorno, request, onWritten) =>
      real.send(entorno, request, () => {
        hooks.onWritten?.();
        onWritten?.();
      }),
  });
  try {
    for (let i = 0; i < count; i++) {
      const res = await env.t.billing('POST', '/v1/verifactu/crear', {
        body: aFacturaF2({ cabecera: { serie, numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
      });
      expect(res.statusCode).toBe(200);
    }
    await worker.drainDue();
  } finally {
    replaceAdapter(worker, real);
  }
}

describe('Pipelined submissions overlap the authority’s work with the local bookkeeping', () => {
  it('the next request is on the wire before the previous answer is applied', async () => {
    const finalsWhenWritten: number[] = [];
    // Six invoices make three pipelined submissions.
    await drainTwoBySubmission('P', 6, { onWritten: () => finalsWhenWritten.push(finals()) });
    expect(finals()).toBe(6);
    // Submission 2 left while submission 1's answer was still unapplied, and 3 before 2's.
    expect(finalsWhenWritten).toEqual([0, 0, 2]);
    expect(env.emu.aeat.ledger.countRecords()).toBe(6);
  });

  it('a full next submission is stored (en_lote, no attempt) while the one before is at the authority; a partial one is not', async () => {
    const db = env.t.engine.context.db;
    const earlier = new Set((db.statement('SELECT id FROM submission_batches').all() as { id: string }[]).map((b) => b.id));
    /** This test's submissions, oldest first: records, attempts, state, and how many of their records wait en_lote. */
    const batches = () =>
      (
        db
          .statement(
            `SELECT b.id, b.numRegistros AS n, b.intentos, b.estado,
               (SELECT COUNT(*) FROM registros r WHERE r.idLote = b.id AND r.estadoEnvio = 'en_lote') AS enLote
             FROM submission_batches b ORDER BY b.creadoEn, b.id`,
          )
          .all() as { id: string; n: number; intentos: number; estado: string; enLote: number }[]
      )
        .filter((b) => !earlier.has(b.id))
        .map(({ id: _id, ...rest }) => rest);
    const atEachAnswer: ReturnType<typeof batches>[] = [];
    // Seven invoices: three full submissions and a last one of a single record.
    await drainTwoBySubmission('Q', 7, { onAnswer: () => atEachAnswer.push(batches()) });
    const sent = { n: 2, intentos: 1, estado: 'pendiente_respuesta', enLote: 0 };
    const answered = { n: 2, intentos: 1, estado: 'respondido', enLote: 0 };
    const storedAhead = { n: 2, intentos: 0, estado: 'pendiente_respuesta', enLote: 2 };
    expect(atEachAnswer).toEqual([
      // The first answer: nothing stored ahead yet (the second submission is built when it arrives).
      [sent],
      // While the second was at the authority, the third was stored: it leaves on this answer.
      [answered, sent, storedAhead],
      // The fourth has one record: drafted ahead, not stored (a record issued meanwhile may still join it).
      [answered, answered, sent],
      [answered, answered, answered, { ...sent, n: 1 }],
    ]);
    expect(env.emu.aeat.ledger.countRecords()).toBe(13);
    expect(env.emu.aeat.ledger.chainIntact('B12345674')).toBe(true);
    const order = env.emu.aeat.ledger.presentations().map((p) => p.key.split('|')[1]).filter((k) => k?.startsWith('Q'));
    expect(order).toEqual(['Q0', 'Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6']);
  });
});
