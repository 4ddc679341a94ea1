import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';

const env = useEngineWithEmulators({ clock, waitSeconds: 60 });

const ticket = (numero: string, o: Parameters<typeof aFacturaF2>[0] = {}) =>
  aFacturaF2({ cabecera: { serie: 'T', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' }, ...o });

async function issue(n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, n - start) }, (_, k) => env.t.billing('POST', '/v1/verifactu/crear', { body: ticket(`${prefix}${start + k}`) })),
    );
    for (const res of batch) {
      expect(res.statusCode).toBe(200);
      ids.push(res.json().idFactura);
    }
  }
  return ids;
}

const estado = async (id: string) => (await env.t.billing('GET', `/v1/facturas/${id}/estado?nifEmisor=${NIF}`)).json();

/** Runs the worker, moving time past each TiempoEsperaEnvio, until nothing waits. */
async function fileEverything(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await env.t.engine.context.submissions.drainDue();
    const waiting = env.t.engine.context.db.statement('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number };
    if (waiting.n === 0) return;
    clock.advance(61_000);
  }
  throw new Error('submission did not finish');
}

describe('1,000 invoices issued → all registrada with a CSV', () => {
  it('files them in one submission of 1,000 and records CSV, idLote and envioCompletadoEn', async () => {
    const ids = await issue(1000, 'A');
    expect((await estado(ids[0]!)).estadoEnvio).toBe('pendiente_proceso');
    await fileEverything();
    for (const id of ids) {
      const s = await estado(id);
      expect(s.estadoFactura).toBe('registrada');
      expect(s.estadoEnvio).toBeUndefined();
      expect(s.csvAeat).toMatch(/^A-/);
    }
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(1000);
    expect(env.emu.aeat.ledger.maxBatchSize()).toBe(1000);
    expect(env.emu.aeat.ledger.chainIntact(NIF)).toBe(true);
    const detail = (await env.t.billing('GET', `/v1/facturas/${ids[5]}?nifEmisor=${NIF}`)).json();
    expect(detail.registros[0]).toMatchObject({ estado: 'aceptada', estadoEnvioFinal: 'registrada', csvAeat: expect.stringMatching(/^A-/), idLote: expect.any(String), envioCompletadoEn: expect.any(String) });
    expect(detail.registros[0].estadoEnvio).toBeUndefined();
  });
});

describe('A cancellation → anulada', () => {
  it('files the RegistroAnulacion and the invoice becomes anulada', async () => {
    const [id] = await issue(1, 'C');
    await fileEverything();
    const res = await env.t.billing('POST', '/v1/verifactu/anular', {
      body: { version: '1.0', facturaAnulada: { nifEmisor: NIF, serie: 'T', numero: 'C0', fechaExpedicion: '20-11-2026' } },
    });
    expect(res.statusCode).toBe(200);
    await fileEverything();
    expect((await estado(id!)).estadoFactura).toBe('anulada');
    const events = env.t.engine.context.db.statement("SELECT evento FROM events WHERE invoiceId = ? ORDER BY creadoEn").all(id) as { evento: string }[];
    expect(events.map((e) => e.evento)).toEqual(['factura.registrada', 'factura.anulada']);
  });
});

describe('A record the authority rejects → rejected with its code and text, never resent; subsanar → registrada', () => {
  it('keeps the rejection final and registers the correction', async () => {
    env.emu.aeat.faults.set({ rejectNext: { count: 1, codigo: 1108 } });
    const [id] = await issue(1, 'R');
    await fileEverything();
    const s = await estado(id!);
    expect(s).toMatchObject({ estadoEnvio: 'rechazada' });
    expect(s).not.toHaveProperty('estadoFactura');
    const detail = (await env.t.billing('GET', `/v1/facturas/${id}?nifEmisor=${NIF}`)).json();
    expect(detail.registros[0]).toMatchObject({ estado: 'rechazada', estadoEnvioFinal: 'rechazada', codigoRespuestaAeat: '1108' });
    expect(detail.registros[0].descripcionRespuestaAeat.length).toBeGreaterThan(0);
    const submissionsBefore = env.emu.aeat.ledger.submissions().length;
    clock.advance(120_000);
    await fileEverything();
    expect(env.emu.aeat.ledger.submissions().length).toBe(submissionsBefore);

    const fix = await env.t.billing('PUT', '/v1/verifactu/subsanar', {
      body: { ...ticket('R0'), subsanacion: true },
    });
    expect(fix.statusCode).toBe(200);
    // AEAT holds nothing for a rejected alta: the correction goes as Subsanacion=S, RechazoPrevio=X.
    const xml = (await env.t.billing('GET', `/v1/facturas/${id}/xml?nifEmisor=${NIF}`)).body;
    expect(xml).toContain('<sum1:RechazoPrevio>X</sum1:RechazoPrevio>');
    await fileEverything();
    expect((await estado(id!)).estadoFactura).toBe('registrada');
    const events = env.t.engine.context.db.statement('SELECT evento, datos FROM events WHERE invoiceId = ? ORDER BY creadoEn').all(id) as { evento: string; datos: string }[];
    expect(events.map((e) => e.evento)).toEqual(['factura.rechazada', 'factura.registrada']);
    expect(JSON.parse(events[0]!.datos)).toMatchObject({ tipoRegistro: 'alta', motivoRechazo: { codigo: '1108' } });
  });
});
