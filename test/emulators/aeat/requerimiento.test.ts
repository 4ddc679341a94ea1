import { beforeEach, expect, it } from 'vitest';
import { AEAT_REQUERIMIENTO_PATH } from '../../../engine/emulators/aeat/index';
import type { BuiltRecord } from './builders';
import { ChainBuilder, buildEnvelope } from './builders';
import type { Harness, ParsedRespuesta } from './helpers';
import { DEMO, T0, parseRespuesta, useHarness, validateRespuesta } from './helpers';

// Submissions answering a requerimiento (issue 32; Descripción SWeb §6.6 and Anexo III, Validaciones
// §3.1.1.5 and §4.3.2), hand-made and posted to RequerimientoSOAP: every record registered as a new
// one, business rules noted as admissible errors, only NIF/IdOtro identification and syntax refused,
// and a register of its own that shares nothing with VERI*FACTU.

let h: Harness;
let chain: ChainBuilder;

useHarness((harness) => (h = harness));
beforeEach(() => {
  chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
});

async function post(records: BuiltRecord[], o: { ref?: string; fin?: string; path?: string } = {}): Promise<{ status: number; text: string }> {
  h.clock.advance(60);
  const xml = buildEnvelope({ obligado: DEMO, records, refRequerimiento: o.ref ?? 'REQ2025000001', ...(o.fin ? { finRequerimiento: o.fin } : {}) });
  const r = await fetch(h.base + (o.path ?? AEAT_REQUERIMIENTO_PATH), { method: 'POST', body: xml, headers: { 'content-type': 'text/xml' } });
  return { status: r.status, text: await r.text() };
}

async function send(records: BuiltRecord[], o: { ref?: string; fin?: string } = {}): Promise<ParsedRespuesta> {
  const r = await post(records, o);
  expect(r.status, r.text).toBe(200);
  expect((await validateRespuesta(r.text)).errors).toEqual([]);
  return parseRespuesta(r.text);
}

const faultCode = (text: string): number => Number(/<faultstring>Codigo\[(\d+)\]/.exec(text)?.[1]);

it('accepts a requirement submission, echoes RemisionRequerimiento and registers the records', async () => {
  const resp = await send([chain.alta(), chain.alta()], { fin: 'S' });
  expect(resp.estadoEnvio).toBe('Correcto');
  expect(resp.csv).not.toBeNull();
  expect(resp.lineas.map((l) => l.estado)).toEqual(['Correcto', 'Correcto']);
  expect(h.emu.ledger.countRecords()).toBe(2);
});

it('business rules are admissible errors under requirement: the kept record is registered as it is', async () => {
  // 1142 (cuota ≠ base × rate), 1124 (a 22 % rate), 1189 (F1 without recipients), 1112 (issued tomorrow): each rejects in VERI*FACTU.
  const cases: Array<[Parameters<ChainBuilder['alta']>[0], number]> = [
    [{ lines: [{ base: '100.00', tipo: '21', cuota: '35.00' }], cuotaTotal: '35.00', importeTotal: '135.00' }, 1142],
    [{ lines: [{ base: '100.00', tipo: '22', cuota: '22.00' }], cuotaTotal: '22.00', importeTotal: '122.00' }, 1124],
    [{ tipoFactura: 'F1' }, 1189],
    [{ fecha: '02-03-2025' }, 1112],
    [{ rechazoPrevio: 'X' }, 1153],
  ];
  for (const [o, code] of cases) {
    const resp = await send([chain.alta(o)]);
    expect(resp.lineas[0]).toMatchObject({ estado: 'AceptadoConErrores', codigo: code });
    expect(resp.estadoEnvio).toBe('ParcialmenteCorrecto');
  }
  // The same defects on the VERI*FACTU endpoint are rejected.
  h.clock.advance(60);
  const vf = parseRespuesta((await h.post(buildEnvelope({ obligado: DEMO, records: [new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), 'V').alta({ tipoFactura: 'F1' })] }))).text);
  expect(vf.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 1189 });
});

it('identification of NIF / IdOtro still rejects the record (Validaciones §4.3.2)', async () => {
  const resp = await send([
    chain.alta({
      tipoFactura: 'F1',
      destinatariosXml:
        '<sum1:Destinatarios><sum1:IDDestinatario><sum1:NombreRazon>Cliente</sum1:NombreRazon>' +
        '<sum1:IDOtro><sum1:IDType>04</sum1:IDType><sum1:ID>X123</sum1:ID></sum1:IDOtro></sum1:IDDestinatario></sum1:Destinatarios>',
    }),
    chain.alta(),
  ]);
  expect(resp.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 1111 });
  expect(resp.lineas[1]).toMatchObject({ estado: 'Correcto' });
  expect(resp.estadoEnvio).toBe('ParcialmenteCorrecto');
});

it('every record is registered as a new one: a subsanación or an anulación needs nothing held; an exact resend is a duplicate', async () => {
  const alta = chain.alta();
  // In VERI*FACTU a subsanación of a key never registered is 3002, an anulación of one too.
  const subs = chain.alta({ numSerie: 'NEVER-SENT', subsanacion: 'S' });
  const anul = chain.anulacion({ emisor: DEMO.nif, numSerie: 'NEVER-SENT-2', fecha: '01-03-2025' });
  const first = await send([alta, subs, anul]);
  expect(first.lineas.map((l) => [l.estado, l.codigo])).toEqual([['Correcto', null], ['Correcto', null], ['Correcto', null]]);
  // An anulación of a registered alta is a record of its own too; the alta stays.
  const anulAlta = chain.anulacion(alta.id);
  expect((await send([anulAlta])).lineas[0]).toMatchObject({ estado: 'Correcto' });
  expect(h.emu.ledger.countRecords()).toBe(4);
  // The very same record sent again under the same requirement: 3000, nothing added.
  const again = await send([alta]);
  expect(again.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 3000 });
  expect(again.lineas[0]!.duplicado).not.toBeNull();
  expect(h.emu.ledger.countRecords()).toBe(4);
});

it('the requirement register shares nothing with VERI*FACTU (SWeb §6.6)', async () => {
  const alta = chain.alta();
  expect((await send([alta])).lineas[0]).toMatchObject({ estado: 'Correcto' });
  // The same record filed voluntarily is new to VERI*FACTU, not a duplicate.
  h.clock.advance(60);
  const vf = parseRespuesta((await h.post(buildEnvelope({ obligado: DEMO, records: [alta] }))).text);
  expect(vf.lineas[0]).toMatchObject({ estado: 'Correcto' });
  // And a VERI*FACTU anulación cannot see the requirement's record: only VERI*FACTU's own.
  expect(h.emu.ledger.getRecord(alta.id)).not.toBeNull();
});

it('header rules of the requirement endpoint: 4133 (RefRequerimiento not alphanumeric), 4125, 4127; 4126 on VERI*FACTU', async () => {
  const r1 = await post([chain.alta()], { ref: 'REQ-2025-1' });
  expect(r1.status).toBe(500);
  expect(faultCode(r1.text)).toBe(4133);
  const r2 = await post([chain.alta()], { path: '/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP' });
  expect(r2.status).toBe(500);
  expect(faultCode(r2.text)).toBe(4126);
  // FinRequerimiento outside S/N: the XSD's enumeration answers 4102 before 4131 can.
  const r3 = await post([chain.alta()], { fin: 'X' });
  expect(faultCode(r3.text)).toBe(4102);
  expect(h.emu.ledger.countRecords()).toBe(0);
  expect((await send([chain.alta()], { fin: 'N' })).estadoEnvio).toBe('Correcto');
});
