import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });


async function issue(numeros: string[]): Promise<void> {
  for (const numero of numeros) {
    const res = await env.t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie: 'L', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    expect(res.statusCode).toBe(200);
  }
}

describe('Records filed more than 240 s after they were generated go with Incidencia = S', () => {
  it('an outage longer than 240 s: the unanswered submission is rebuilt with S, its new bytes committed before they leave', async () => {
    env.emu.aeat.faults.set({ mode: 'down' });
    await issue(['0', '1', '2']);
    // First attempt within the limit: the submission is built (and its bytes committed) with N.
    await env.t.engine.context.submissions.tick();
    const first = env.t.engine.context.db.statement('SELECT b.id, b.incidencia, p.peticion FROM submission_batches b JOIN submission_requests p ON p.idLote = b.id').get() as { id: string; incidencia: number; peticion: string };
    expect(first.incidencia).toBe(0);
    expect(first.peticion).not.toContain('<sum1:Incidencia>S</sum1:Incidencia>');

    // More records arrive while the authority stays down, then the outage passes 240 s.
    clock.advance(100_000);
    await issue(['3', '4']);
    for (let i = 0; i < 4; i++) {
      clock.advance(50_000);
      await env.t.engine.context.submissions.tick();
    }
    env.emu.aeat.faults.set({ mode: 'none' });
    for (let i = 0; i < 20 && env.jobsLeft() > 0; i++) {
      clock.advance(60_000);
      await env.t.engine.context.submissions.drainDue();
    }
    expect(env.jobsLeft()).toBe(0);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(5);

    // The resent submission carries S, and what the emulator received is exactly what was committed.
    const batches = env.t.engine.context.db.statement('SELECT b.id, b.incidencia, p.peticion FROM submission_batches b JOIN submission_requests p ON p.idLote = b.id ORDER BY b.creadoEn, b.id').all() as { id: string; incidencia: number; peticion: string }[];
    expect(batches[0]!.id).toBe(first.id);
    expect(batches.every((b) => b.incidencia === 1)).toBe(true);
    const processed = env.emu.aeat.ledger.submissions().filter((s) => s.outcome === 'processed');
    const sha = (x: string) => createHash('sha256').update(x).digest('hex');
    expect(processed.map((s) => s.requestSha256)).toEqual(batches.map((b) => sha(b.peticion)));
    expect(batches.every((b) => b.peticion.includes('<sum1:Incidencia>S</sum1:Incidencia>'))).toBe(true);

    // Every record received more than 240 s after its FechaHoraHusoGenRegistro came with S.
    const incidencia = new Map(env.emu.aeat.ledger.submissions().map((s) => [s.id, s.incidencia]));
    const late = env.emu.aeat.ledger
      .presentations()
      .filter((p) => Date.parse(p.receivedAt) - Date.parse(p.fechaHoraHusoGenRegistro) > 240_000);
    expect(late.length).toBe(5);
    for (const p of late) expect(incidencia.get(p.submissionId), p.key).toBe('S');
  });

  it('records filed in time go with N', async () => {
    await issue(['10', '11']);
    clock.advance(1000);
    await env.t.engine.context.submissions.drainDue();
    const last = env.emu.aeat.ledger.submissions().at(-1)!;
    expect(last).toMatchObject({ outcome: 'processed', recordCount: 2, incidencia: 'N' });
  });
});
