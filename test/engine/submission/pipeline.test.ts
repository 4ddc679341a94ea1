import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import type { SubmissionWorker } from '../../../engine/src/submission/worker';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { useEngineWithEmulators } from '../../support/filing';

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
    const left = env.t.engine.context.db.sqlite.prepare('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number };
    expect(left.n).toBe(0);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(2500);
    expect(env.emu.aeat.ledger.chainIntact(NIF)).toBe(true);
    expect(env.emu.aeat.ledger.maxBatchSize()).toBe(1000);
    const batches = env.t.engine.context.db.sqlite.prepare("SELECT numRegistros FROM submission_batches ORDER BY creadoEn, id").all() as { numRegistros: number }[];
    expect(batches.map((b) => b.numRegistros)).toEqual([1000, 1000, 500]);
  });
});
