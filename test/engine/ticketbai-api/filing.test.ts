import { describe, expect, it } from 'vitest';
import { ticketbaiCrearBody } from '../../../src-shared/api/ticketbai';
import type { Interpretation, OutgoingRecord } from '../../../engine/src/core/authority';
import { TransportError } from '../../../engine/src/core/transport';
import type { Verdict } from '../../../engine/src/core/authority';
import { identidadDocumento, LroeAdapter, TbaiRestAdapter } from '../../../engine/src/regimes/ticketbai/authority/filing';
import { POLITICAS_FIRMA } from '../../../engine/src/regimes/ticketbai/politicas';
import { signTicketBai } from '../../../engine/src/regimes/ticketbai/record/xades';
import { buildTicketBaiAlta, buildTicketBaiAnulacion } from '../../../engine/src/regimes/ticketbai/record/xml';
import { aCertificadoTbai, aFacturaTbai, anAnularTbai, aSoftwareTbai, EMISOR_TBAI, GENERADO_EN } from '../ticketbai/fixtures';

const endpoints = { base: { araba: { test: '', live: '' }, bizkaia: { test: '', live: '' }, gipuzkoa: { test: '', live: '' } }, timeoutMs: 1000 };
const adapter = new TbaiRestAdapter('gipuzkoa', endpoints);
const verdictOf = (out: Interpretation, id: string): Verdict | undefined => (out.kind === 'verdicts' ? out.verdicts.get(id) : undefined);
const record: OutgoingRecord = {
  registroId: 'reg_1',
  tipo: 'alta',
  xml: '<T:TicketBai xmlns:T="urn:ticketbai:emision"/>',
  entorno: 'test',
  nifEmisor: 'A58818501',
  numeroFactura: 'T1',
  fechaExpedicion: '20-11-2026',
  creadoEn: '2026-11-20T10:00:00.000Z',
  enviadoAntes: false,
};
/** The same record on a later attempt, its earlier send left unanswered (the worker's word). */
const resent = (r: OutgoingRecord): OutgoingRecord => ({ ...r, enviadoAntes: true });

function response(estado: string, resultados: [string, string][], csv?: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><ns2:TicketBaiResponse xmlns:ns2="urn:ticketbai:emision"><Salida><FechaRecepcion>20-11-2026 10:00:00</FechaRecepcion><Estado>${estado}</Estado><Descripcion>x</Descripcion>${resultados
    .map(([c, d]) => `<ResultadosValidacion><Codigo>${c}</Codigo><Descripcion>${d}</Descripcion></ResultadosValidacion>`)
    .join('')}${csv ? `<CSV>${csv}</CSV>` : ''}</Salida></ns2:TicketBaiResponse>`;
}

describe('Gipuzkoa/Araba answers → verdicts', () => {
  it('01 with several reasons: the first on the record, the rest as motivosAdicionales (webhook only)', () => {
    const out = adapter.interpret({ status: 200, body: response('01', [['004', 'Datos de identificación'], ['010', 'Encadenamiento']]) }, [record]);
    expect(out.kind).toBe('verdicts');
    const verdict = out.kind === 'verdicts' ? out.verdicts.get('reg_1') : undefined;
    expect(verdict).toMatchObject({ kind: 'rechazado', codigo: '004', motivosAdicionales: [{ codigo: '010', descripcion: 'Encadenamiento' }] });
  });
  it('00 with warnings: accepted with errors, TicketBAI fields kept', () => {
    const out = adapter.interpret({ status: 200, body: response('00', [['009', 'Aviso']], 'TBAI-CSV-1') }, [record]);
    const verdict = out.kind === 'verdicts' ? out.verdicts.get('reg_1') : undefined;
    expect(verdict).toMatchObject({ kind: 'aceptado', conErrores: true, codigo: '009', extra: { tipoRespuestaTbai: '00', codigoRespuestaTbai: '009', idRegistroTbai: 'TBAI-CSV-1' } });
  });
  it('005 already registered on a resend (earlier send unanswered): the original acceptance is reconciled', () => {
    const out = adapter.interpret({ status: 200, body: response('01', [['005', 'Factura ya registrada en sistema']]) }, [resent(record)]);
    expect(verdictOf(out, 'reg_1')).toMatchObject({ kind: 'aceptado', extra: { reconciliado: true } });
  });
  it('005 on a first send: someone else registered that invoice → rejected', () => {
    const out = adapter.interpret({ status: 200, body: response('01', [['005', 'Factura ya registrada en sistema']]) }, [record]);
    expect(verdictOf(out, 'reg_1')).toMatchObject({ kind: 'rechazado', codigo: '005' });
  });
  it('the record’s enviadoAntes alone decides: the adapter keeps no memory of an earlier resend', () => {
    const body = response('01', [['005', 'Factura ya registrada en sistema']]);
    expect(verdictOf(adapter.interpret({ status: 200, body }, [resent(record)]), 'reg_1')).toMatchObject({ kind: 'aceptado' });
    expect(verdictOf(adapter.interpret({ status: 200, body }, [record]), 'reg_1')).toMatchObject({ kind: 'rechazado', codigo: '005' });
  });
  it('011 already cancelled: accepted (anulada) on a resend of the cancellation, rejected on a first send or for an alta', () => {
    const anulacion: OutgoingRecord = { ...record, registroId: 'reg_2', tipo: 'anulacion', xml: '<T:AnulaTicketBai xmlns:T="urn:ticketbai:anulacion"/>' };
    const body = response('01', [['011', 'La factura ya ha sido anulada previamente']]);
    expect(verdictOf(adapter.interpret({ status: 200, body }, [anulacion]), 'reg_2')).toMatchObject({ kind: 'rechazado', codigo: '011' });
    expect(verdictOf(adapter.interpret({ status: 200, body }, [resent(anulacion)]), 'reg_2')).toMatchObject({ kind: 'aceptado', extra: { reconciliado: true } });
    expect(verdictOf(adapter.interpret({ status: 200, body }, [resent(record)]), 'reg_1')).toMatchObject({ kind: 'rechazado', codigo: '011' });
  });
  it('006 service unavailable, HTTP 500 and garbage are transient (retried, same bytes)', () => {
    expect(() => adapter.interpret({ status: 200, body: response('01', [['006', 'No disponible']]) }, [record])).toThrow(TransportError);
    expect(() => adapter.interpret({ status: 500, body: 'oops' }, [record])).toThrow(TransportError);
    expect(() => adapter.interpret({ status: 200, body: '<not-xml' }, [record])).toThrow(TransportError);
  });
});

// ---------------------------------------------------------------- Bizkaia LROE

const cert = aCertificadoTbai();
const firma = { privateKeyPem: cert.privateKeyPem, certificatePem: cert.certificatePem, policy: POLITICAS_FIRMA.bizkaia, signingTime: GENERADO_EN, canonicalInput: true };

function lroeRecord(id: string, o: { serie?: string; numero: string; fecha?: string; tipo?: OutgoingRecord['tipo']; signed?: boolean }): OutgoingRecord {
  const fecha = o.fecha ?? '20-11-2026';
  const tipo = o.tipo ?? 'alta';
  let xml: string;
  if (o.signed === false) {
    // Only what the adapter reads: the identity in CabeceraFactura.
    xml = `<T:TicketBai xmlns:T="urn:ticketbai:emision"><Factura><CabeceraFactura>${o.serie !== undefined ? `<SerieFactura>${o.serie}</SerieFactura>` : ''}<NumFactura>${o.numero}</NumFactura><FechaExpedicionFactura>${fecha}</FechaExpedicionFactura></CabeceraFactura></Factura></T:TicketBai>`;
  } else if (tipo === 'anulacion') {
    const anul = anAnularTbai({ provincia: 'bizkaia', numero: o.numero, fechaExpedicion: fecha, ...(o.serie !== undefined ? { serie: o.serie } : {}) });
    xml = signTicketBai(buildTicketBaiAnulacion({ anulacion: anul, nombreEmisor: EMISOR_TBAI.nombre, software: aSoftwareTbai() }), firma).signedXml;
  } else {
    const factura = ticketbaiCrearBody.parse(aFacturaTbai({ provincia: 'bizkaia', numero: o.numero, fechaExpedicion: fecha, serie: o.serie }));
    xml = signTicketBai(buildTicketBaiAlta({ factura, anterior: null, software: aSoftwareTbai(), generadoEn: GENERADO_EN }), firma).signedXml;
  }
  return { registroId: id, tipo, xml, entorno: 'test', nifEmisor: EMISOR_TBAI.nif, numeroFactura: `${o.serie ?? ''}${o.numero}`, fechaExpedicion: fecha, creadoEn: GENERADO_EN.toISOString(), enviadoAntes: false };
}

function lroeReply(registros: { serie?: string; numero: string; fecha?: string; estado: string; codigo?: string; desc?: string }[], tipo = 'Correcto') {
  const body =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ns2:LROEPJ240FacturasEmitidasConSGAltaRespuesta xmlns:ns2="x">\n<Cabecera><Modelo>240</Modelo></Cabecera><Registros>' +
    registros
      .map(
        (r) =>
          `<Registro><Identificador><IDFactura>${r.serie !== undefined ? `<SerieFactura>${r.serie}</SerieFactura>` : ''}<NumFactura>${r.numero}</NumFactura><FechaExpedicionFactura>${r.fecha ?? '20-11-2026'}</FechaExpedicionFactura></IDFactura></Identificador><SituacionRegistro><EstadoRegistro>${r.estado}</EstadoRegistro>${r.codigo ? `<CodigoErrorRegistro>${r.codigo}</CodigoErrorRegistro>` : ''}${r.desc ? `<DescripcionErrorRegistroES>${r.desc}</DescripcionErrorRegistroES>` : ''}</SituacionRegistro></Registro>`,
      )
      .join('') +
    '</Registros></ns2:LROEPJ240FacturasEmitidasConSGAltaRespuesta>';
  return { status: 200, body, headers: { 'eus-bizkaia-n3-tipo-respuesta': tipo, 'eus-bizkaia-n3-identificativo': 'LROE-ID-1' } };
}

const lroe = new LroeAdapter(endpoints, () => undefined);

describe('Bizkaia LROE adapter', () => {
  it('reads the invoice identity (serie, número, fecha) of signed altas and anulaciones', () => {
    expect(identidadDocumento(lroeRecord('r', { serie: 'A&B', numero: '7' }).xml)).toEqual({ serie: 'A&B', numero: '7', fecha: '20-11-2026' });
    expect(identidadDocumento(lroeRecord('r', { numero: '8', tipo: 'anulacion', serie: 'X' }).xml)).toEqual({ serie: 'X', numero: '8', fecha: '20-11-2026' });
    expect(identidadDocumento(lroeRecord('r', { numero: '9', signed: false }).xml)).toEqual({ serie: '', numero: '9', fecha: '20-11-2026' });
  });

  it('batches up to 1000 records, one request per kind of operation and year', () => {
    expect(lroe.maxRecords).toBe(1000);
    const alta26 = lroeRecord('a', { numero: '1', signed: false });
    const alta25 = lroeRecord('b', { numero: '2', fecha: '31-12-2025', signed: false });
    const anul26 = { ...alta26, registroId: 'c', tipo: 'anulacion' as const };
    const subs26 = { ...alta26, registroId: 'd', tipo: 'subsanacion' as const };
    expect(lroe.sameSubmission(alta26, subs26)).toBe(true);
    expect(lroe.sameSubmission(alta26, alta25)).toBe(false);
    expect(lroe.sameSubmission(alta26, anul26)).toBe(false);
    // An alta and its cancellation cannot be answered under one key in one request.
    expect(lroe.lineKey(alta26)).not.toBe(lroe.lineKey(anul26));

    const context = { obligado: { nif: EMISOR_TBAI.nif, nombre: EMISOR_TBAI.nombre }, incidencia: false };
    const mil = Array.from({ length: 1000 }, (_, i) => ({ ...alta26, registroId: `r${i}` }));
    const request = JSON.parse(lroe.build(mil, context)) as { header: { drs: { mode: string; ejer: string } }; xml: string };
    expect(request.header.drs).toEqual({ mode: '240', ejer: '2026' });
    expect(request.xml.match(/<FacturaEmitida>/g)).toHaveLength(1000);
    expect(() => lroe.build([...mil, alta26], context)).toThrow(/1000/);
    const anulaciones = JSON.parse(lroe.build([anul26], context)) as { xml: string };
    expect(anulaciones.xml).toContain('<Operacion>AN0</Operacion>');
  });

  it('matches replies on serie, número and fecha kept apart: A1/23 and A/123 are two invoices', () => {
    const a1 = lroeRecord('a1', { serie: 'A1', numero: '23', signed: false });
    const a = lroeRecord('a', { serie: 'A', numero: '123', signed: false });
    // Different keys, so both may travel in one request.
    expect(lroe.lineKey(a1)).not.toBe(lroe.lineKey(a));
    const out = lroe.interpret(
      lroeReply(
        [
          { serie: 'A', numero: '123', estado: 'Incorrecto', codigo: 'B4_2000020', desc: 'Dato incorrecto' },
          { serie: 'A1', numero: '23', estado: 'Correcto' },
        ],
        'ParcialmenteCorrecto',
      ),
      [a1, a],
    );
    expect(verdictOf(out, 'a1')).toMatchObject({ kind: 'aceptado', conErrores: false, extra: { tipoRespuestaTbai: 'Correcto', idRegistroTbai: 'LROE-ID-1' } });
    expect(verdictOf(out, 'a')).toMatchObject({ kind: 'rechazado', codigo: 'B4_2000020' });
  });

  it('a record the reply does not mention gets no verdict; AceptadoConErrores is accepted with errors', () => {
    const uno = lroeRecord('uno', { serie: 'T', numero: '1', signed: false });
    const dos = lroeRecord('dos', { serie: 'T', numero: '2', signed: false });
    const out = lroe.interpret(lroeReply([{ serie: 'T', numero: '1', estado: 'AceptadoConErrores', codigo: 'B4_2000060', desc: 'Encadenamiento' }]), [uno, dos]);
    expect(verdictOf(out, 'uno')).toMatchObject({ kind: 'aceptado', conErrores: true, codigo: 'B4_2000060' });
    expect(verdictOf(out, 'dos')).toBeUndefined();
  });

  it('B4_2000003 duplicate: rejected on a first send, reconciled to accepted on a resend (alta and anulación)', () => {
    const alta = lroeRecord('alta', { serie: 'T', numero: '5', signed: false });
    const reply = lroeReply([{ serie: 'T', numero: '5', estado: 'Incorrecto', codigo: 'B4_2000003', desc: 'Registro duplicado.' }], 'Incorrecto');
    expect(verdictOf(lroe.interpret(reply, [alta]), 'alta')).toMatchObject({ kind: 'rechazado', codigo: 'B4_2000003' });
    expect(verdictOf(lroe.interpret(reply, [resent(alta)]), 'alta')).toMatchObject({ kind: 'aceptado', conErrores: false, extra: { reconciliado: true } });
    const anul = { ...alta, registroId: 'anul', tipo: 'anulacion' as const };
    expect(verdictOf(lroe.interpret(reply, [anul]), 'anul')).toMatchObject({ kind: 'rechazado', codigo: 'B4_2000003' });
    expect(verdictOf(lroe.interpret(reply, [resent(anul)]), 'anul')).toMatchObject({ kind: 'aceptado', extra: { reconciliado: true } });
  });

  it('a cut reply is transient even when its header says Incorrecto; Incorrecto without records refuses the request', () => {
    const alta = lroeRecord('alta', { serie: 'T', numero: '6', signed: false });
    const full = lroeReply([{ serie: 'T', numero: '6', estado: 'Incorrecto', codigo: 'B4_2000003' }], 'Incorrecto');
    expect(() => lroe.interpret({ ...full, body: full.body.slice(0, 120) }, [alta])).toThrow(TransportError);
    expect(() => lroe.interpret({ ...full, headers: { ...full.headers, 'eus-bizkaia-n3-tipo-respuesta': 'Correcto' }, body: '' }, [alta])).toThrow(TransportError);
    const refused = lroe.interpret(
      { status: 200, body: '', headers: { 'eus-bizkaia-n3-tipo-respuesta': 'Incorrecto', 'eus-bizkaia-n3-codigo-respuesta': 'N3_0000011', 'eus-bizkaia-n3-mensaje-respuesta': 'Cabecera' } },
      [alta],
    );
    expect(refused).toMatchObject({ kind: 'refused', codigo: 'N3_0000011' });
  });
});
