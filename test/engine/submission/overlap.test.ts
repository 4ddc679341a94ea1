import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import type { AuthorityAdapter } from '../../../engine/src/submission/authority';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const QUEUE = 'test|aeat|B12345674';

// TiempoEsperaEnvio 0: the worker pipelines submissions back to back.
const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

type WorkerInternals = { register(a: AuthorityAdapter): void; adapterFor(q: string): AuthorityAdapter; drainDue(): Promise<void> };
const finals = () =>
  (env.t.engine.context.db.sqlite.prepare('SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NOT NULL').get() as { n: number }).n;

describe('Pipelined submissions overlap the authority’s work with the local bookkeeping', () => {
  it('the next request is on the wire before the previous answer is applied', async () => {
    const worker = env.t.engine.context.submissions as unknown as WorkerInternals;
    const real = worker.adapterFor(QUEUE);
    const finalsWhenWritten: number[] = [];
    // Two records a submission, so six invoices make three pipelined submissions.
    const small: AuthorityAdapter = {
      autoridad: real.autoridad,
      maxRecords: 2,
      build: (records, context) => real.build(records, context),
      lineKey: (record) => real.lineKey(record),
      interpret: (sent, records) => real.interpret(sent, records),
      send: (entorno, request, onWritten) =>
        real.send(entorno, request, () => {
          finalsWhenWritten.push(finals());
          onWritten?.();
        }),
    };
    worker.register(small);
    try {
      for (let i = 0; i < 6; i++) {
        const res = await env.t.billing('POST', '/v1/verifactu/crear', {
          body: aFacturaF2({ cabecera: { serie: 'P', numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
        });
        expect(res.statusCode).toBe(200);
      }
      await worker.drainDue();
    } finally {
      worker.register(real);
    }
    expect(finals()).toBe(6);
    // Submission 2 left while submission 1's answer was still unapplied, and 3 before 2's.
    expect(finalsWhenWritten).toEqual([0, 0, 2]);
    expect(env.emu.aeat.ledger.countRecords()).toBe(6);
  });
});
