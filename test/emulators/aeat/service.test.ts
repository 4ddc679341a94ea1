import { beforeEach, describe, expect, it } from 'vitest';
import { ChainBuilder, NS_LR, NS_SI, NS_SOAP, buildAlta, buildEnvelope, isoWithOffset } from './builders';
import type { Harness } from './helpers';
import { DEMO, T0, parseFault, parseRespuesta, validateRespuesta, useHarness } from './helpers';

let h: Harness;
let chain: ChainBuilder;

useHarness((harness) => (h = harness), { reset: { census: true } });
beforeEach(() => {
  chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
});

describe('AEAT emulator: SOAP service', () => {
  it('accepts a correct record and answers with a CSV, like AEAT pre-production', async () => {
    const rec = chain.alta();
    const r = await h.post(buildEnvelope({ obligado: DEMO, records: [rec] }));
    expect(r.status).toBe(200);
    const resp = parseRespuesta(r.text);
    expect(resp.csv).toMatch(/^A-[A-Z0-9]{14}$/);
    expect(resp.estadoEnvio).toBe('Correcto');
    expect(resp.tiempoEsperaEnvio).toBe(60);
    expect(resp.nifPresentador).toBe(DEMO.nif);
    expect(resp.timestamp).toBe('2025-03-01T11:00:00+01:00');
    expect(resp.lineas).toEqual([
      expect.objectContaining({ numSerie: rec.id.numSerie, estado: 'Correcto', codigo: null, tipoOperacion: 'Alta' }),
    ]);
    const stored = h.emu.ledger.getRecord(rec.id);
    expect(stored).toMatchObject({ estado: 'Correcto', registered: true, csv: resp.csv, huella: rec.huella, huellaCheck: 'exact' });
  });

  it('uses the real response shape: env/tikR/tik prefixes, Body Id, element order', async () => {
    const r = await h.post(buildEnvelope({ obligado: DEMO, records: [chain.alta()] }));
    expect(r.text).toContain(`<env:Envelope xmlns:env="${NS_SOAP}">\n<env:Header/>\n<env:Body Id="Body">`);
    expect(r.text).toMatch(
      /<tikR:CSV>.*<\/tikR:CSV><tikR:DatosPresentacion>.*<tikR:Cabecera>.*<tikR:TiempoEsperaEnvio>60<\/tikR:TiempoEsperaEnvio><tikR:EstadoEnvio>Correcto<\/tikR:EstadoEnvio><tikR:RespuestaLinea>/,
    );
  });

  it('answers validate against RespuestaSuministro.xsd (accepted, accepted with errors, rejected, duplicate)', async () => {
    const a = chain.alta();
    const ok = await h.post(buildEnvelope({ obligado: DEMO, records: [a] }));
    h.clock.advance(60);
    const bad = chain.alta({ huellaOverride: 'A'.repeat(64) });
    const dupAndBad = await h.post(buildEnvelope({ obligado: DEMO, records: [bad, buildAlta({ ...a.id, prev: null, fechaHoraHusoGenRegistro: isoWithOffset(new Date(T0)) })] }));
    h.clock.advance(60);
    const rejected = await h.post(buildEnvelope({ obligado: DEMO, records: [chain.anulacion({ emisor: DEMO.nif, numSerie: 'NOPE', fecha: '01-03-2025' })] }));
    for (const r of [ok, dupAndBad, rejected]) {
      const v = await validateRespuesta(r.text);
      expect(v.errors).toEqual([]);
      expect(v.valid).toBe(true);
    }
    expect(parseRespuesta(dupAndBad.text).estadoEnvio).toBe('ParcialmenteCorrecto');
    const rej = parseRespuesta(rejected.text);
    expect(rej.estadoEnvio).toBe('Incorrecto');
    expect(rej.csv).toBeNull();
    expect(rej.nifPresentador).toBeNull();
  });

  it('the reply validator itself passes the emulator\'s answer and refuses it without TiempoEsperaEnvio', async () => {
    const r = await h.post(buildEnvelope({ obligado: DEMO, records: [chain.alta()] }));
    expect((await validateRespuesta(r.text)).valid).toBe(true);
    const broken = r.text.replace(/<tikR:TiempoEsperaEnvio>\d+<\/tikR:TiempoEsperaEnvio>/, '');
    expect(broken).not.toBe(r.text);
    expect((await validateRespuesta(broken)).valid).toBe(false);
  });

  it('answers a schema error with a SOAP Fault Codigo[4102] and registers nothing', async () => {
    const rec = chain.alta();
    const xml = buildEnvelope({ obligado: DEMO, records: [rec] }).replace(/<sum1:NombreRazonEmisor>[^<]*<\/sum1:NombreRazonEmisor>/, '');
    const r = await h.post(xml);
    expect(r.status).toBe(500);
    const f = parseFault(r.text);
    expect(f.faultcode).toBe('env:Client');
    expect(f.faultstring).toMatch(/^Codigo\[4102\]\.El XML no cumple el esquema\./);
    expect(f.faultstring).toContain('NombreRazonEmisor');
    expect(h.emu.ledger.countRecords()).toBe(0);
    expect(h.emu.ledger.submissions()).toEqual([expect.objectContaining({ outcome: 'fault', faultCode: '4102', recordCount: 1 })]);
  });

  it('checks namespaces too (schema, not just element names)', async () => {
    const xml = buildEnvelope({ obligado: DEMO, records: [chain.alta()] }).replace(`xmlns:sum1="${NS_SI}"`, `xmlns:sum1="urn:wrong"`);
    const r = await h.post(xml);
    expect(parseFault(r.text).faultstring).toMatch(/^Codigo\[4102\]/);
  });

  it('answers 4102 for a body that is not XML or not SOAP', async () => {
    for (const body of ['not xml at all', `<x:Envelope xmlns:x="${NS_SOAP}"><x:Body></x:Body></x:Envelope>`]) {
      const r = await h.post(body);
      expect(r.status).toBe(500);
      expect(parseFault(r.text).faultstring).toMatch(/^Codigo\[4102\]/);
    }
  });

  it('answers a wrong FechaHoraHusoGenRegistro format with 1244 like the real service', async () => {
    const rec = chain.alta({ fechaHoraHusoGenRegistro: '2025-03-01T10:00:00' });
    const resp = parseRespuesta((await h.post(buildEnvelope({ obligado: DEMO, records: [rec] }))).text);
    expect(resp.lineas[0]).toMatchObject({
      estado: 'Incorrecto',
      codigo: 1244,
      descripcion: 'El campo FechaHoraHusoGenRegistro tiene un formato incorrecto.',
    });
  });

  it('refuses an unknown issuer with a SOAP Fault Codigo[4104]', async () => {
    const other = new ChainBuilder('B00000000', new Date(T0 - 3600_000));
    const r = await h.post(buildEnvelope({ obligado: { nif: 'B00000000', nombre: 'NADIE SL' }, records: [other.alta()] }));
    expect(r.status).toBe(500);
    const f = parseFault(r.text);
    expect(f.faultcode).toBe('env:Client');
    expect(f.faultstring).toBe('Codigo[4104].El NIF del titular en la cabecera no está identificado. NIF:B00000000. NOMBRE_RAZON:NADIE SL');
    expect(h.emu.ledger.countRecords()).toBe(0);
  });

  it('treats a revoked NIF as not identified, a deregistered one as identified', async () => {
    const rev = new ChainBuilder('A11111119', new Date(T0 - 3600_000));
    const r1 = await h.post(buildEnvelope({ obligado: { nif: 'A11111119', nombre: 'SOCIEDAD REVOCADA SA' }, records: [rev.alta()] }));
    expect(parseFault(r1.text).faultstring).toMatch(/^Codigo\[4104\]/);
    const baja = new ChainBuilder('B22222228', new Date(T0 - 3600_000));
    const r2 = await h.post(buildEnvelope({ obligado: { nif: 'B22222228', nombre: 'TIENDA CERRADA SL' }, records: [baja.alta()] }));
    expect(parseRespuesta(r2.text).estadoEnvio).toBe('Correcto');
  });

  it('accepts a taxpayer added through the control API', async () => {
    const add = await h.control('POST', '/__control/census', { nif: 'B00000000', nombre: 'NUEVA SL' });
    expect(add.status).toBe(201);
    const other = new ChainBuilder('B00000000', new Date(T0 - 3600_000));
    const r = await h.post(buildEnvelope({ obligado: { nif: 'B00000000', nombre: 'NUEVA SL' }, records: [other.alta()] }));
    expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
    expect((await h.control('POST', '/__control/census', { nif: 'bad', nombre: '' })).status).toBe(400);
  });

  it('refuses an unknown Representante with Codigo[4105]', async () => {
    const r = await h.post(
      buildEnvelope({ obligado: DEMO, representante: { nif: 'B00000000', nombre: 'X' }, records: [chain.alta()] }),
    );
    expect(parseFault(r.text).faultstring).toMatch(/^Codigo\[4105\]/);
  });

  it('uses the Representante as presenter and echoes the header', async () => {
    const r = await h.post(
      buildEnvelope({ obligado: DEMO, representante: { nif: 'B99999997', nombre: 'ASESORIA FISCAL MODELO SL' }, incidencia: true, records: [chain.alta()] }),
    );
    expect(parseRespuesta(r.text).nifPresentador).toBe('B99999997');
    expect(r.text).toContain('<tik:Representante><tik:NombreRazon>ASESORIA FISCAL MODELO SL</tik:NombreRazon><tik:NIF>B99999997</tik:NIF></tik:Representante><tik:RemisionVoluntaria><tik:Incidencia>S</tik:Incidencia></tik:RemisionVoluntaria>');
    expect((await validateRespuesta(r.text)).valid).toBe(true);
  });

  it('answers GET with Codigo[4135] and unknown paths with 404', async () => {
    const g = await fetch(h.soapUrl);
    expect(g.status).toBe(500);
    expect(parseFault(await g.text()).faultstring).toMatch(/^Codigo\[4135\]/);
    const n = await fetch(`${h.base}/wlpl/TIKE-CONT/ws/SistemaFacturacion/ConsultaSOAP`, { method: 'POST', body: '' });
    expect(n.status).toBe(404);
    // The requerimiento service exists (its header rules are emulated: rules.test.ts).
    const r = await fetch(`${h.base}/wlpl/TIKE-CONT/ws/SistemaFacturacion/RequerimientoSOAP`, { method: 'POST', body: '' });
    expect(r.status).toBe(500);
    expect(parseFault(await r.text()).faultstring).toMatch(/^Codigo\[4102\]/);
  });

  it('accepts envelopes whose namespaces are declared on Body or on the payload itself', async () => {
    const rec = chain.alta();
    const inner = rec.xml;
    const xml =
      `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${NS_SOAP}"><soapenv:Header/>` +
      `<soapenv:Body xmlns:sum1="${NS_SI}"><!-- c --><sum:RegFactuSistemaFacturacion xmlns:sum="${NS_LR}"><sum:Cabecera>` +
      `<sum1:ObligadoEmision><sum1:NombreRazon>${DEMO.nombre}</sum1:NombreRazon><sum1:NIF>${DEMO.nif}</sum1:NIF></sum1:ObligadoEmision>` +
      `</sum:Cabecera>${inner}</sum:RegFactuSistemaFacturacion></soapenv:Body></soapenv:Envelope>`;
    const r = await h.post(xml);
    expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
  });

  it('with validateXsd off, only what the parser needs is enforced', async () => {
    h.emu.configure({ validateXsd: false });
    try {
      const lax = buildEnvelope({ obligado: DEMO, records: [chain.alta()] }).replace(/<sum1:NombreRazonEmisor>[^<]*<\/sum1:NombreRazonEmisor>/, '');
      expect(parseRespuesta((await h.post(lax)).text).estadoEnvio).toBe('Correcto');
      const broken = buildEnvelope({ obligado: DEMO, records: [chain.alta()] }).replace(/<sum1:Huella>[0-9A-F]{64}<\/sum1:Huella><\/sum1:RegistroAlta>/, '</sum1:RegistroAlta>');
      const f = parseFault((await h.post(broken)).text);
      expect(f.faultstring).toBe('Codigo[4102].El XML no cumple el esquema. Falta informar campo obligatorio.: Huella');
    } finally {
      h.emu.configure({ validateXsd: true });
    }
  });
});
