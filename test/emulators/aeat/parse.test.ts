import { describe, expect, it } from 'vitest';
import { parseRegFactu } from '../../../engine/emulators/aeat/parse';
import { extractBodyPayload } from '../../../engine/emulators/aeat/soap';
import { ChainBuilder, NS_SI, buildEnvelope } from './builders';
import { DEMO, T0 } from './helpers';

const payloadOf = (xml: string): string => extractBodyPayload(xml).xml;

function faultOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as { faultstring?: string }).faultstring ?? String(err);
  }
  throw new Error('expected a fault');
}

describe('parseRegFactu', () => {
  it('reads the fields the checks use, records carrying their own namespace declaration as the engine sends them', () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const first = chain.alta({ destinatarioNif: '12345678Z' });
    const second = chain.alta();
    const withDecl = second.xml.replace('<sum1:RegistroAlta>', `<sum1:RegistroAlta xmlns:sum1="${NS_SI}">`);
    const parsed = parseRegFactu(payloadOf(buildEnvelope({ obligado: DEMO, incidencia: true, records: [first, withDecl] })));
    expect(parsed.cabecera).toEqual({ obligado: { nif: DEMO.nif, nombre: DEMO.nombre }, remisionVoluntaria: { incidencia: 'S' } });
    expect(parsed.records).toHaveLength(2);
    expect(parsed.records[0]).toMatchObject({
      tipo: 'alta',
      index: 0,
      sistema: { idSistemaInformatico: 'TT', numeroInstalacion: '0001' },
      emisor: DEMO.nif,
      numSerie: first.id.numSerie,
      tipoFactura: 'F1',
      cuotaTotal: '21.00',
      importeTotal: '121.00',
      lines: [{ claveRegimen: '01', base: '100.00', cuota: '21.00' }],
      destinatarioNifs: ['12345678Z'],
      prev: null,
      huella: first.huella,
    });
    expect(parsed.records[1]).toMatchObject({
      index: 1,
      numSerie: second.id.numSerie,
      destinatarioNifs: [],
      prev: { emisor: DEMO.nif, numSerie: first.id.numSerie, fecha: first.id.fecha, huella: first.huella },
      huella: second.huella,
    });
  });

  it('takes names only where the schema puts them: a NIF inside an element it does not read is not a recipient', () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const rec = chain.alta().xml.replace(
      '<sum1:Desglose>',
      '<sum1:Tercero><sum1:NombreRazon>OTRO</sum1:NombreRazon><sum1:NIF>B99999997</sum1:NIF></sum1:Tercero><sum1:Desglose>',
    );
    const [r] = parseRegFactu(payloadOf(buildEnvelope({ obligado: DEMO, records: [rec] }))).records;
    expect(r).toMatchObject({ tipo: 'alta', destinatarioNifs: [] });
  });

  it('joins text cut by comments and CDATA, decodes entities, trims, and skips attribute values holding ">"', () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const rec = chain
      .alta()
      .xml.replace('<sum1:TipoFactura>', '<sum1:RefExterna note="a>b"> r<!-- c -->e<?pi x?>f<![CDATA[<&>]]>&amp;&#65; </sum1:RefExterna><sum1:TipoFactura>');
    const [r] = parseRegFactu(payloadOf(buildEnvelope({ obligado: DEMO, records: [rec] }))).records;
    expect(r?.refExterna).toBe('ref<&>&A');
  });

  it('reads records whose shape changes from one to the next (optional elements, anulaciones, attributes, spaces in tags, empty elements)', () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const a1 = chain.alta({ destinatarioNif: '12345678Z', subsanacion: 'S', rechazoPrevio: 'N' });
    const a2 = chain.alta({ lines: [{ base: '10.00', tipo: '21', cuota: '2.10' }, { base: '5.00', tipo: '10', cuota: '0.50' }] });
    const an = chain.anulacion(a1.id, { sinRegistroPrevio: 'N' });
    // Same names, other spellings: white space before '>', an attribute, an empty element, a self-closed one it does not read.
    const a3 = chain.alta();
    const a3xml = a3.xml
      .replace('<sum1:TipoFactura>', '<sum1:TipoFactura >')
      .replace('<sum1:CuotaTotal>', '<sum1:CuotaTotal\n  xmlns:x="urn:x">')
      .replace('</sum1:ImporteTotal>', '</sum1:ImporteTotal ><sum1:Extra/><sum1:RefExterna/>');
    const a4 = chain.alta({ destinatarioNif: 'B99999997' });
    const parsed = parseRegFactu(payloadOf(buildEnvelope({ obligado: DEMO, records: [a1, a2, an, a3xml, a4] })));
    expect(parsed.records.map((r) => r.tipo)).toEqual(['alta', 'alta', 'anulacion', 'alta', 'alta']);
    expect(parsed.records[0]).toMatchObject({ subsanacion: 'S', rechazoPrevio: 'N', destinatarioNifs: ['12345678Z'], prev: null });
    expect(parsed.records[1]).toMatchObject({
      lines: [
        { claveRegimen: '01', base: '10.00', cuota: '2.10' },
        { claveRegimen: '01', base: '5.00', cuota: '0.50' },
      ],
      destinatarioNifs: [],
      prev: { numSerie: a1.id.numSerie, huella: a1.huella },
    });
    expect(parsed.records[1]).not.toHaveProperty('subsanacion');
    expect(parsed.records[2]).toMatchObject({ tipo: 'anulacion', numSerie: a1.id.numSerie, sinRegistroPrevio: 'N', huella: an.huella });
    expect(parsed.records[3]).toMatchObject({ tipoFactura: 'F2', cuotaTotal: '21.00', importeTotal: '121.00', refExterna: '', huella: a3.huella });
    expect(parsed.records[4]).toMatchObject({ tipoFactura: 'F1', destinatarioNifs: ['B99999997'], huella: a4.huella });
  });

  it('refuses what is not well-formed with 4102, and names a missing field', () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const good = payloadOf(buildEnvelope({ obligado: DEMO, records: [chain.alta()] }));
    const malformed = /^Codigo\[4102\]\.El XML no cumple el esquema\. XML mal formado: /;
    expect(faultOf(() => parseRegFactu(good.replace('</sum1:TipoFactura>', '</sum1:TipoFacturaX>')))).toMatch(malformed);
    expect(faultOf(() => parseRegFactu(good.replace('</sum1:TipoFactura>', '</sum1:TipoFactura')))).toMatch(malformed);
    expect(faultOf(() => parseRegFactu(good.slice(0, -30)))).toMatch(malformed);
    expect(faultOf(() => parseRegFactu(`<!DOCTYPE x [<!ENTITY a "b">]>${good}`))).toMatch(malformed);
    expect(faultOf(() => parseRegFactu(`${good}trailing`))).toMatch(malformed);
    expect(faultOf(() => parseRegFactu(good.replace(/<sum1:Huella>[0-9A-F]{64}<\/sum1:Huella><\/sum1:RegistroAlta>/, '</sum1:RegistroAlta>')))).toBe(
      'Codigo[4102].El XML no cumple el esquema. Falta informar campo obligatorio.: Huella',
    );
    expect(faultOf(() => parseRegFactu(good.replace(/<sum1:NIF>B12345674<\/sum1:NIF><\/sum1:ObligadoEmision>/, '</sum1:ObligadoEmision>')))).toBe(
      'Codigo[4102].El XML no cumple el esquema. Falta informar campo obligatorio.: NIF',
    );
  });
});

describe('extractBodyPayload', () => {
  it('says where the payload lies in the envelope, so its bytes can be cut from the body without building the text', () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const plain = buildEnvelope({ obligado: DEMO, records: [chain.alta(), chain.alta()] });
    // Declarations on Body as well as Envelope, white space and a comment around the payload.
    const spaced = plain
      .replace('<soapenv:Body>', '<soapenv:Body xmlns:x="urn:x">\n  <!-- lote -->\n  ')
      .replace('</soapenv:Body>', '\n\t </soapenv:Body>');
    for (const envelope of [plain, spaced]) {
      const { xml, span } = extractBodyPayload(envelope);
      expect(envelope.slice(span.start, span.nameEnd) + span.inserted + envelope.slice(span.nameEnd, span.end)).toBe(xml);
      expect(xml.startsWith('<sum:RegFactuSistemaFacturacion xmlns:')).toBe(true);
      expect(xml.endsWith('</sum:RegFactuSistemaFacturacion>')).toBe(true);
    }
    expect(extractBodyPayload(spaced).span.inserted).toContain(' xmlns:x="urn:x"');
  });
});
