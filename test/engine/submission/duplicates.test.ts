import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { buildRegFactuSoapEnvelope } from '../../../engine/src/regimes/verifactu/authority/soap';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

const key = (numero: string) => `${NIF}|${numero}|20-11-2026`;

async function issue(numero: string): Promise<string> {
  const res = await env.t.billing('POST', '/v1/verifactu/crear', {
    body: aFacturaF2({ cabecera: { serie: 'U', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
  });
  expect(res.statusCode).toBe(200);
  return res.json().idFactura as string;
}

async function cancel(numero: string): Promise<void> {
  const res = await env.t.billing('POST', '/v1/verifactu/anular', {
    body: { version: '1.0', facturaAnulada: { nifEmisor: NIF, serie: 'U', numero, fechaExpedicion: '20-11-2026' } },
  });
  expect(res.statusCode).toBe(200);
}

async function fileEverything(): Promise<void> {
  for (let i = 0; i < 20 && env.jobsLeft() > 0; i++) {
    clock.advance(10_000);
    await env.t.engine.context.submissions.drainDue();
  }
  expect(env.jobsLeft()).toBe(0);
}

/** Someone else (another till, another program) files the invoice's newest record first. */
async function fileElsewhere(invoiceId: string): Promise<void> {
  const { xml } = env.t.engine.context.db
    .statement(
      `SELECT d.xml FROM registros r JOIN registro_documentos d ON d.registroId = r.id
       WHERE r.invoiceId = ? ORDER BY r.creadoEn DESC, r.rowid DESC LIMIT 1`,
    )
    .get(invoiceId) as { xml: string };
  const body = buildRegFactuSoapEnvelope({ obligado: { nombreRazon: 'OTRO PROGRAMA', nif: NIF }, registros: [xml] });
  const res = await fetch(env.emu.aeatUrl, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, body });
  expect(res.status).toBe(200);
}

const registros = (invoiceId: string) =>
  env.t.engine.context.db.statement('SELECT tipo, estadoEnvioFinal, codigoRespuesta, descripcionRespuesta, csvAeat FROM registros WHERE invoiceId = ? ORDER BY rowid').all(invoiceId) as {
    tipo: string;
    estadoEnvioFinal: string | null;
    codigoRespuesta: string | null;
    descripcionRespuesta: string | null;
    csvAeat: string | null;
  }[];
const events = (invoiceId: string) =>
  (env.t.engine.context.db.statement('SELECT evento, datos FROM events WHERE invoiceId = ? ORDER BY rowid').all(invoiceId) as { evento: string; datos: string }[]).map((e) => ({
    evento: e.evento,
    datos: JSON.parse(e.datos) as Record<string, unknown>,
  }));
const estadoFactura = (invoiceId: string) => (env.t.engine.context.db.statement('SELECT estadoFactura, estadoEnvio FROM invoices WHERE id = ?').get(invoiceId) as { estadoFactura: string | null; estadoEnvio: string });

describe('AEAT answers "duplicate" to a record this engine may have sent before: reconciled', () => {
  it('an answer lost after AEAT registered the record: the resend is reconciled, without a CSV, naming the original request, with one event', async () => {
    const id = await issue('R1');
    env.emu.aeat.faults.set({ mode: 'malformed', afterProcessing: true, times: 1 });
    await env.t.engine.context.submissions.tick();
    expect(env.emu.aeat.ledger.getRecord(key('UR1'))?.registered).toBe(true);
    expect(registros(id)[0]!.estadoEnvioFinal).toBeNull();
    await fileEverything();

    const original = env.emu.aeat.ledger.getRecord(key('UR1'))!;
    expect(original.idPeticion).toMatch(/^\d{20}$/);
    expect(env.emu.aeat.ledger.presentations(key('UR1')).at(-1)).toMatchObject({ codigo: 3000 });
    const [r] = registros(id);
    expect(r).toMatchObject({ estadoEnvioFinal: 'registrada', csvAeat: null });
    expect(r!.descripcionRespuesta).toContain(original.idPeticion);
    expect(estadoFactura(id).estadoFactura).toBe('registrada');
    expect(events(id).map((e) => e.evento)).toEqual(['factura.registrada']);
  });

  it('a cancellation whose answer was lost: the resend meets 3001 and the invoice becomes anulada', async () => {
    const id = await issue('R2');
    await fileEverything();
    await cancel('R2');
    env.emu.aeat.faults.set({ mode: 'malformed', afterProcessing: true, times: 1 });
    await env.t.engine.context.submissions.tick();
    expect(env.emu.aeat.ledger.getRecord(key('UR2'))?.estadoRegistro).toBe('Anulada');
    await fileEverything();
    expect(env.emu.aeat.ledger.presentations(key('UR2')).at(-1)).toMatchObject({ tipo: 'anulacion', codigo: 3001 });
    expect(estadoFactura(id).estadoFactura).toBe('anulada');
    expect(events(id).map((e) => e.evento)).toEqual(['factura.registrada', 'factura.anulada']);
  });
});

describe('On a first send, a duplicate answer means someone else filed that invoice: a final rejection', () => {
  it('alta already registered elsewhere → rejected with 3000 and AEAT text, never resent', async () => {
    const id = await issue('F1');
    await fileElsewhere(id);
    const submissions = env.emu.aeat.ledger.submissions().length;
    await fileEverything();
    expect(env.emu.aeat.ledger.submissions().length).toBe(submissions + 1);
    const [r] = registros(id);
    expect(r).toMatchObject({ estadoEnvioFinal: 'rechazada', codigoRespuesta: '3000' });
    expect(r!.descripcionRespuesta).toBeTruthy();
    expect(estadoFactura(id)).toMatchObject({ estadoFactura: null, estadoEnvio: 'rechazada' });
    const ev = events(id);
    expect(ev.map((e) => e.evento)).toEqual(['factura.rechazada']);
    expect(ev[0]!.datos).toMatchObject({ motivoRechazo: { codigo: '3000' } });
    clock.advance(300_000);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().length).toBe(submissions + 1);
  });

  it('cancellation already filed elsewhere → the cancellation is rejected with 3001, the invoice stays registrada', async () => {
    const id = await issue('F2');
    await fileEverything();
    await cancel('F2');
    await fileElsewhere(id);
    await fileEverything();
    const rs = registros(id);
    expect(rs.map((r) => r.tipo)).toEqual(['alta', 'anulacion']);
    expect(rs[1]).toMatchObject({ estadoEnvioFinal: 'rechazada', codigoRespuesta: '3001' });
    expect(estadoFactura(id).estadoFactura).toBe('registrada');
    expect(events(id).map((e) => e.evento)).toEqual(['factura.registrada', 'factura.rechazada']);
  });
});
