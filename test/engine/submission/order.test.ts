import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import type { AuthorityAdapter } from '../../../engine/src/core/authority';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { replaceAdapter, useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const QUEUE = `test|aeat|${NIF}`;

// TiempoEsperaEnvio 0: the worker pipelines submissions back to back.
const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

type WorkerInternals = {
  adapters: Map<string, AuthorityAdapter>;
  buildBatch(q: string, a: unknown): Promise<{ id: string }>;
  adapterFor(q: string): AuthorityAdapter;
  drainDue(): Promise<void>;
};

async function issue(from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const res = await env.t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie: 'O', numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    expect(res.statusCode).toBe(200);
  }
}

const LAST_RECORD = /<sum:RegistroFactura>(?:(?!<sum:RegistroFactura>)[\s\S])*<\/sum:RegistroFactura>(?=<\/sum:RegFactuSistemaFacturacion>)/;

describe('An answer that leaves a line out does not let newer records overtake it', () => {
  it('the left-out record goes again before the next submission, so the chain arrives in order', async () => {
    const worker = env.t.engine.context.submissions as unknown as WorkerInternals;
    const real = worker.adapterFor(QUEUE);
    let dropped = false;
    // The first request loses its last record on the way: AEAT never sees it and its answer has no line for it.
    const lossy: AuthorityAdapter = {
      autoridad: real.autoridad,
      maxRecords: real.maxRecords,
      build: (records, context) => real.build(records, context),
      lineKey: (record) => real.lineKey(record),
      interpret: (sent, records) => real.interpret(sent, records),
      send: (entorno, request) => {
        if (dropped) return real.send(entorno, request);
        dropped = true;
        const cut = request.replace(LAST_RECORD, '');
        expect(cut).not.toBe(request);
        return real.send(entorno, cut);
      },
    };
    replaceAdapter(worker, lossy);
    try {
      await issue(0, 5);
      await worker.buildBatch(QUEUE, lossy);
      await issue(5, 5);
      await worker.drainDue();
      for (let i = 0; i < 5 && env.jobsLeft() > 0; i++) {
        clock.advance(1000);
        await worker.drainDue();
      }
    } finally {
      replaceAdapter(worker, real);
    }
    expect(dropped).toBe(true);
    expect(env.jobsLeft()).toBe(0);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(10);
    expect(env.emu.aeat.ledger.chainBreaks(NIF)).toEqual([]);
    // Arrival order at AEAT is chain order: O4 (left out) before O5..O9.
    const arrived = env.emu.aeat.ledger.presentations().map((p) => p.key.split('|')[1]);
    expect(arrived).toEqual(['O0', 'O1', 'O2', 'O3', 'O4', 'O5', 'O6', 'O7', 'O8', 'O9']);
    const states = env.t.engine.context.db.statement("SELECT estadoFactura, COUNT(*) AS n FROM invoices WHERE numeroFactura LIKE 'O%' GROUP BY estadoFactura").all();
    expect(states).toEqual([{ estadoFactura: 'registrada', n: 10 }]);
    // The left-out record was resent in the same submission, rebuilt with only it.
    const batches = env.t.engine.context.db.statement('SELECT numRegistros, intentos FROM submission_batches ORDER BY creadoEn, id').all();
    expect(batches).toEqual([
      { numRegistros: 1, intentos: 2 },
      { numRegistros: 5, intentos: 1 },
    ]);
  });
});
