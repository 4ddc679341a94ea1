import { beforeEach, describe, expect, it } from 'vitest';
import { AEAT_REQUERIMIENTO_PATH } from '../../../engine/emulators/aeat/index';
import type { AltaOptions, BuiltRecord } from './builders';
import { ChainBuilder, buildEnvelope } from './builders';
import type { EnvelopeOptions, Harness, ParsedRespuesta } from './helpers';
import { DEMO, T0, sendBatch, useHarness } from './helpers';

// Hand-made submissions with one defect each get the AEAT's code from the emulator (issue 31's
// acceptance): record rules as a rejected RespuestaLinea, admissible ones as AceptadoConErrores,
// header rules as a SOAP Fault refusing the whole request. T0 is 01-03-2025.

let h: Harness;
let chain: ChainBuilder;

useHarness((harness) => (h = harness));
beforeEach(() => {
  chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
});

const send = (records: BuiltRecord[], envelope?: EnvelopeOptions): Promise<ParsedRespuesta> => sendBatch(h, records, envelope);

/** The one line of a one-record submission. */
async function verdictOf(o: Partial<AltaOptions>): Promise<{ estado: string; codigo: number | null; descripcion: string | null }> {
  const resp = await send([chain.alta(o)]);
  const l = resp.lineas[0];
  if (!l) throw new Error('no RespuestaLinea');
  return { estado: l.estado, codigo: l.codigo, descripcion: l.descripcion };
}

/** The SOAP Fault code of a refused request. */
async function faultOf(xml: string, path?: string): Promise<number> {
  h.clock.advance(60);
  const r = path ? await fetch(h.base + path, { method: 'POST', body: xml, headers: { 'content-type': 'text/xml' } }) : null;
  const { status, text } = r ? { status: r.status, text: await r.text() } : await h.post(xml);
  expect(status).toBe(500);
  const m = /<faultstring>Codigo\[(\d+)\]\.([^<]*)<\/faultstring>/.exec(text);
  if (!m) throw new Error(`not a coded SOAP Fault: ${text.slice(0, 300)}`);
  expect(text).toContain('<faultcode>env:Client</faultcode>');
  return Number(m[1]);
}

const line = (inner: string): string => `<sum1:DetalleDesglose>${inner}</sum1:DetalleDesglose>`;
const iva = (o: { clave?: string; cal?: string; exenta?: string; tipo?: string; base: string; cuota?: string; impuesto?: string }): string =>
  line(
    (o.impuesto === '' ? '' : `<sum1:Impuesto>${o.impuesto ?? '01'}</sum1:Impuesto>`) +
      (o.clave === undefined ? '' : `<sum1:ClaveRegimen>${o.clave}</sum1:ClaveRegimen>`) +
      (o.cal ? `<sum1:CalificacionOperacion>${o.cal}</sum1:CalificacionOperacion>` : '') +
      (o.exenta ? `<sum1:OperacionExenta>${o.exenta}</sum1:OperacionExenta>` : '') +
      (o.tipo ? `<sum1:TipoImpositivo>${o.tipo}</sum1:TipoImpositivo>` : '') +
      `<sum1:BaseImponibleOimporteNoSujeto>${o.base}</sum1:BaseImponibleOimporteNoSujeto>` +
      (o.cuota ? `<sum1:CuotaRepercutida>${o.cuota}</sum1:CuotaRepercutida>` : ''),
  );

describe('record rules the AEAT rejects (Incorrecto, one code)', () => {
  it('the everyday sale is Correcto', async () => {
    expect(await verdictOf({})).toMatchObject({ estado: 'Correcto', codigo: null });
    expect(await verdictOf({ destinatarioNif: '12345678Z' })).toMatchObject({ estado: 'Correcto', codigo: null });
  });

  it.each([
    ['1142: cuota is not base × rate within 10.00', { lines: [{ base: '100.00', tipo: '21', cuota: '35.00' }], cuotaTotal: '35.00', importeTotal: '135.00' }, 1142],
    ['1143: cuota of the opposite sign', { lines: [{ base: '100.00', tipo: '21', cuota: '-21.00' }], cuotaTotal: '-21.00', importeTotal: '79.00' }, 1143],
    ['1124: a 22 % rate', { lines: [{ base: '100.00', tipo: '22', cuota: '22.00' }], cuotaTotal: '22.00', importeTotal: '122.00' }, 1124],
    ['1194: 5 % outside 07-2022…09-2024', { lines: [{ base: '100.00', tipo: '5', cuota: '5.00' }], cuotaTotal: '5.00', importeTotal: '105.00' }, 1194],
    ['1150: an F2 over 3,000.00 (+10.00)', { lines: [{ base: '3000.00', tipo: '21', cuota: '630.00' }], cuotaTotal: '630.00', importeTotal: '3630.00' }, 1150],
    ['1189: F1 without recipients', { tipoFactura: 'F1' }, 1189],
    ['1190: F2 with recipients', { tipoFactura: 'F2', destinatarioNif: '12345678Z' }, 1190],
    ['1197: S2 on an F2', { desgloseXml: iva({ clave: '01', cal: 'S2', tipo: '0', base: '100.00', cuota: '0' }), cuotaTotal: '0', importeTotal: '100.00' }, 1197],
    ['1198: S2 with a cuota', { destinatarioNif: '12345678Z', desgloseXml: iva({ clave: '01', cal: 'S2', tipo: '21', base: '100.00', cuota: '21.00' }) }, 1198],
    ['1207: a cuota on a non-subject operation… 1237 first', { destinatarioNif: '12345678Z', desgloseXml: iva({ clave: '01', cal: 'N1', base: '100.00', cuota: '21.00' }) }, 1237],
    ['1238: tax fields on an exempt operation', { destinatarioNif: '12345678Z', desgloseXml: iva({ clave: '01', exenta: 'E1', tipo: '21', base: '100.00', cuota: '21.00' }) }, 1238],
    ['1245: IVA without ClaveRegimen', { desgloseXml: iva({ cal: 'S1', tipo: '21', base: '100.00', cuota: '21.00' }) }, 1245],
    ['1286: ClaveRegimen 02 with CalificacionOperacion', { destinatarioNif: '12345678Z', desgloseXml: iva({ clave: '02', cal: 'S1', tipo: '21', base: '100.00', cuota: '21.00' }) }, 1286],
    ['1252: ClaveRegimen 08 not N2', { destinatarioNif: '12345678Z', desgloseXml: iva({ clave: '08', cal: 'N1', base: '100.00' }), cuotaTotal: '0', importeTotal: '100.00' }, 1252],
    ['1289: E5 to a recipient identified by NIF', { destinatarioNif: '12345678Z', desgloseXml: iva({ clave: '01', exenta: 'E5', base: '100.00' }), cuotaTotal: '0', importeTotal: '100.00' }, 1289],
    ['1115: TipoRectificativa on an F1', { destinatarioNif: '12345678Z', afterTipoFactura: '<sum1:TipoRectificativa>I</sum1:TipoRectificativa>' }, 1115],
    ['1185: FacturaSinIdentifDestinatarioArt61d on an F1', { destinatarioNif: '12345678Z', afterDescripcion: '<sum1:FacturaSinIdentifDestinatarioArt61d>S</sum1:FacturaSinIdentifDestinatarioArt61d>' }, 1185],
    [
      '1209: S1 with clave 06 (at cost) without tipo and cuota',
      {
        destinatarioNif: '12345678Z',
        desgloseXml: line('<sum1:Impuesto>01</sum1:Impuesto><sum1:ClaveRegimen>06</sum1:ClaveRegimen><sum1:CalificacionOperacion>S1</sum1:CalificacionOperacion><sum1:BaseImponibleOimporteNoSujeto>100.00</sum1:BaseImponibleOimporteNoSujeto><sum1:BaseImponibleACoste>80.00</sum1:BaseImponibleACoste>'),
        cuotaTotal: '0',
        importeTotal: '100.00',
      },
      1209,
    ],
    ['1138: Macrodato S on a small invoice', { afterDescripcion: '<sum1:Macrodato>S</sum1:Macrodato>' }, 1138],
    [
      '1257: BaseImponibleACoste outside clave 06 / IPSI / otros',
      { destinatarioNif: '12345678Z', desgloseXml: line('<sum1:Impuesto>01</sum1:Impuesto><sum1:ClaveRegimen>01</sum1:ClaveRegimen><sum1:CalificacionOperacion>S1</sum1:CalificacionOperacion><sum1:TipoImpositivo>21</sum1:TipoImpositivo><sum1:BaseImponibleOimporteNoSujeto>100.00</sum1:BaseImponibleOimporteNoSujeto><sum1:BaseImponibleACoste>80.00</sum1:BaseImponibleACoste><sum1:CuotaRepercutida>16.80</sum1:CuotaRepercutida>') },
      1257,
    ],
    [
      '1140: cuota and BaseImponibleACoste of opposite signs',
      { destinatarioNif: '12345678Z', desgloseXml: line('<sum1:Impuesto>01</sum1:Impuesto><sum1:ClaveRegimen>06</sum1:ClaveRegimen><sum1:CalificacionOperacion>S1</sum1:CalificacionOperacion><sum1:TipoImpositivo>21</sum1:TipoImpositivo><sum1:BaseImponibleOimporteNoSujeto>100.00</sum1:BaseImponibleOimporteNoSujeto><sum1:BaseImponibleACoste>-80.00</sum1:BaseImponibleACoste><sum1:CuotaRepercutida>16.80</sum1:CuotaRepercutida>'), cuotaTotal: '16.80', importeTotal: '116.80' },
      1140,
    ],
    [
      '1144: cuota ≠ BaseImponibleACoste × rate',
      { destinatarioNif: '12345678Z', desgloseXml: line('<sum1:Impuesto>01</sum1:Impuesto><sum1:ClaveRegimen>06</sum1:ClaveRegimen><sum1:CalificacionOperacion>S1</sum1:CalificacionOperacion><sum1:TipoImpositivo>21</sum1:TipoImpositivo><sum1:BaseImponibleOimporteNoSujeto>100.00</sum1:BaseImponibleOimporteNoSujeto><sum1:BaseImponibleACoste>80.00</sum1:BaseImponibleACoste><sum1:CuotaRepercutida>50.00</sum1:CuotaRepercutida>'), cuotaTotal: '50.00', importeTotal: '150.00' },
      1144,
    ],
    ['1292: a Huella that is not alphanumeric', { huellaOverride: '-'.repeat(64) }, 1292],
    ['1139: ImporteTotal of 100,000,000.00 without Macrodato', { lines: [{ base: '100000000.00', tipo: '21', cuota: '21000000.00' }], destinatarioNif: '12345678Z', cuotaTotal: '21000000.00', importeTotal: '121000000.00' }, 1139],
  ] as const)('%s', async (_name, o, code) => {
    const v = await verdictOf(o as Partial<AltaOptions>);
    expect(v).toMatchObject({ estado: 'Incorrecto', codigo: code });
    expect(v.descripcion).toBeTruthy();
  });

  it('1150 allows 3,000.00 plus the 10.00 margin, and an F2 under art. 61.d or an agreement beyond it', async () => {
    expect(await verdictOf({ lines: [{ base: '2487.60', tipo: '21', cuota: '522.40' }], cuotaTotal: '522.40', importeTotal: '3010.00' })).toMatchObject({ estado: 'Correcto' });
    const big = { lines: [{ base: '3000.00', tipo: '21', cuota: '630.00' }], cuotaTotal: '630.00', importeTotal: '3630.00' };
    expect(await verdictOf({ ...big, afterDescripcion: '<sum1:FacturaSinIdentifDestinatarioArt61d>S</sum1:FacturaSinIdentifDestinatarioArt61d>' })).toMatchObject({ estado: 'Correcto' });
  });

  it('1142 tolerates 10.00 either way', async () => {
    expect(await verdictOf({ lines: [{ base: '100.00', tipo: '21', cuota: '31.00' }], cuotaTotal: '31.00', importeTotal: '131.00' })).toMatchObject({ estado: 'Correcto' });
    expect(await verdictOf({ lines: [{ base: '100.00', tipo: '21', cuota: '31.01' }], cuotaTotal: '31.01', importeTotal: '131.01' })).toMatchObject({ codigo: 1142 });
  });

  it('1287: a forbidden character in NumSerieFactura, named in the answer', async () => {
    const v = await verdictOf({ numSerie: "E8=A'" });
    expect(v).toEqual({
      estado: 'Incorrecto',
      codigo: 1287,
      descripcion: `El valor del campo NumSerieFactura contiene carácteres no validos (<, >, ", ', =).`,
    });
    for (const c of ['<', '>', '"']) expect(await verdictOf({ numSerie: `T-${c}1` })).toMatchObject({ codigo: 1287 });
  });

  it('1287 no longer applies to free text (#208): a description or recipient name with < " is Correcto', async () => {
    const v = await verdictOf({
      nombreRazonEmisor: 'Comercial "Demo" <SL>',
      destinatariosXml:
        '<sum1:Destinatarios><sum1:IDDestinatario><sum1:NombreRazon>Cliente &lt;Mayorista&gt; = "X"</sum1:NombreRazon><sum1:NIF>12345678Z</sum1:NIF></sum1:IDDestinatario></sum1:Destinatarios>',
      tipoFactura: 'F1',
    });
    expect(v).toMatchObject({ estado: 'Correcto' });
  });

  it('a rejected record leaves the rest of the request accepted (ParcialmenteCorrecto)', async () => {
    const resp = await send([chain.alta(), chain.alta({ tipoFactura: 'F1' }), chain.alta()]);
    expect(resp.estadoEnvio).toBe('ParcialmenteCorrecto');
    expect(resp.lineas.map((l) => [l.estado, l.codigo])).toEqual([
      ['Correcto', null],
      ['Incorrecto', 1189],
      ['Correcto', null],
    ]);
  });
});

describe('record rules the AEAT accepts with errors', () => {
  it('2001 is on by default: a recipient the census does not know', async () => {
    expect(h.emu.config().checkRecipients).toBe(true);
    expect(await verdictOf({ destinatarioNif: '00000000T' })).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2001 });
  });

  it('2002 / 2003: the previous record\'s huella of the wrong length, or not upper-case hex', async () => {
    const first = chain.alta();
    await send([first]);
    const link = { ...first.id };
    expect(await verdictOf({ prev: { ...link, huella: 'ABC' } })).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2002 });
    expect(await verdictOf({ prev: { ...link, huella: first.huella.toLowerCase() } })).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2003 });
  });

  it('2009: IPSI without ClaveRegimen', async () => {
    const v = await verdictOf({ desgloseXml: iva({ impuesto: '02', cal: 'S1', tipo: '10', base: '100.00', cuota: '10.00' }), cuotaTotal: '10.00', importeTotal: '110.00' });
    expect(v).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2009 });
  });
});

describe('request rules: the whole request refused with a SOAP Fault', () => {
  it('4120: FechaFinVeriFactu must be 31-12 of this year or the last', async () => {
    const records = [chain.alta()];
    expect(await faultOf(buildEnvelope({ obligado: DEMO, records, fechaFinVeriFactu: '31-12-2023' }))).toBe(4120);
    expect(await faultOf(buildEnvelope({ obligado: DEMO, records, fechaFinVeriFactu: '30-06-2025' }))).toBe(4120);
    expect(h.emu.ledger.countRecords()).toBe(0);
    const ok = await send(records, { fechaFinVeriFactu: '31-12-2024' });
    expect(ok.estadoEnvio).toBe('Correcto');
    expect((await send([chain.alta()], { fechaFinVeriFactu: '31-12-2025' })).estadoEnvio).toBe('Correcto');
  });

  it('4126: RemisionRequerimiento on the VERI*FACTU endpoint', async () => {
    expect(await faultOf(buildEnvelope({ obligado: DEMO, records: [chain.alta()], refRequerimiento: 'REQ0001' }))).toBe(4126);
    expect(h.emu.ledger.countRecords()).toBe(0);
  });

  it('4127 / 4125: the requerimiento endpoint refuses a voluntary submission and one without RefRequerimiento', async () => {
    expect(await faultOf(buildEnvelope({ obligado: DEMO, records: [chain.alta()], incidencia: true }), AEAT_REQUERIMIENTO_PATH)).toBe(4127);
    expect(await faultOf(buildEnvelope({ obligado: DEMO, records: [chain.alta()] }), AEAT_REQUERIMIENTO_PATH)).toBe(4125);
    expect(h.emu.ledger.countRecords()).toBe(0);
  });
});
