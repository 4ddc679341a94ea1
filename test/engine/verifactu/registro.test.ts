import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import type { FacturaVerifactu } from '../../../src-shared/api/verifactu';
import { verifactuCrearBody } from '../../../src-shared/api/verifactu';
import { huellaAlta, huellaAnulacion } from '../../../engine/src/regimes/verifactu/record/huella';
import { buildRegistroAlta, buildRegistroAnulacion, NS_SUMINISTRO_INFORMACION } from '../../../engine/src/regimes/verifactu/record/registro';
import {
  aDestinatarioIdOtro,
  aDestinatarioNif,
  aDetalle,
  aFacturaF1,
  aFacturaF2,
  aFacturaF3,
  aFacturaR,
  anAnularBody,
  aRegistroAnterior,
  aSistemaInformatico,
  EMISOR,
  GENERADO_EN,
} from '../../fixtures/verifactu';
import { validateAgainstVerifactuXsd } from '../../support/xsd';

const sistema = aSistemaInformatico();

function parse(xml: string): Element {
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  if (root === null) throw new Error('no root');
  return root;
}

/** Text of the element at a path of local names below `el` (first match at each step). */
function text(el: Element, ...names: string[]): string | undefined {
  let cur: Element | undefined = el;
  for (const name of names) {
    cur = children(cur).find((c) => c.localName === name);
    if (cur === undefined) return undefined;
  }
  return cur.textContent ?? undefined;
}

function children(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

/** The huella recomputed from the fields as written in a RegistroAlta. */
function huellaDesdeXmlAlta(xml: string): string {
  const r = parse(xml);
  return huellaAlta({
    IDEmisorFactura: text(r, 'IDFactura', 'IDEmisorFactura') ?? '',
    NumSerieFactura: text(r, 'IDFactura', 'NumSerieFactura') ?? '',
    FechaExpedicionFactura: text(r, 'IDFactura', 'FechaExpedicionFactura') ?? '',
    TipoFactura: text(r, 'TipoFactura') ?? '',
    CuotaTotal: text(r, 'CuotaTotal') ?? '',
    ImporteTotal: text(r, 'ImporteTotal') ?? '',
    Huella: text(r, 'Encadenamiento', 'RegistroAnterior', 'Huella'),
    FechaHoraHusoGenRegistro: text(r, 'FechaHoraHusoGenRegistro') ?? '',
  });
}

async function expectValidAlta(factura: FacturaVerifactu, extra: Partial<Parameters<typeof buildRegistroAlta>[0]> = {}) {
  // The fixtures must be bodies the API accepts, or the test proves nothing about real input.
  expect(verifactuCrearBody.safeParse(factura).error?.issues ?? []).toEqual([]);
  const r = buildRegistroAlta({ factura, anterior: aRegistroAnterior(), generadoEn: GENERADO_EN, sistema, ...extra });
  const xsd = await validateAgainstVerifactuXsd(r.xml, 'SuministroInformacion.xsd');
  expect(xsd.errors).toEqual([]);
  expect(xsd.valid).toBe(true);
  expect(text(parse(r.xml), 'Huella')).toBe(r.huella);
  expect(huellaDesdeXmlAlta(r.xml)).toBe(r.huella);
  return r;
}

describe('RegistroAlta: every invoice type validates against SuministroInformacion.xsd and its huella recomputes', () => {
  it.each([
    ['F1', aFacturaF1()],
    ['F2', aFacturaF2()],
    ['F3 with FacturasSustituidas', aFacturaF3()],
    ['R1 S', aFacturaR('R1', 'S')],
    ['R1 I', aFacturaR('R1', 'I')],
    ['R2 S', aFacturaR('R2', 'S')],
    ['R2 I', aFacturaR('R2', 'I')],
    ['R3 S', aFacturaR('R3', 'S')],
    ['R3 I', aFacturaR('R3', 'I')],
    ['R4 S', aFacturaR('R4', 'S')],
    ['R4 I', aFacturaR('R4', 'I')],
    ['R5 S', aFacturaR('R5', 'S')],
    ['R5 I', aFacturaR('R5', 'I')],
  ])('%s', async (_, factura) => {
    await expectValidAlta(factura);
  });

  it('F1 to a foreign recipient by IDOtro (with and without CodigoPais)', async () => {
    const r = await expectValidAlta(aFacturaF1({ destinatario: aDestinatarioIdOtro() }));
    expect(r.xml).toContain('<sum1:IDOtro><sum1:CodigoPais>FR</sum1:CodigoPais><sum1:IDType>02</sum1:IDType><sum1:ID>FR52422961982</sum1:ID></sum1:IDOtro>');
    await expectValidAlta(aFacturaF1({ destinatario: { nombre: 'Ann Smith', idOtro: { idType: '02', id: 'DE123456789' } } }));
  });

  it('every especial flag, Tercero, RefExterna and several desglose lines (IGIC, exempt, not subject, recargo)', async () => {
    const factura = aFacturaF1({
      especial: {
        facturaSimplificadaArt7273: true,
        cupon: true,
        emitidaPor: 'T',
        tercero: { nombre: 'Gestoría Tercera, S.L.', nif: 'B11111119' },
        numRegistroAcuerdoFacturacion: 'ACU-2026-00001',
        idAcuerdoSistemaInformatico: 'SIS-ACUERDO-001',
      },
      aux: { refExterna: 'pedido #42 & más' },
      detalleDesglose: [
        aDetalle({ claveRegimen: '18', tipoRecargoEquivalencia: '5.2', cuotaRecargoEquivalencia: '5.20' }),
        aDetalle({ impuesto: '03', claveRegimen: '01', tipoImpositivo: '7', baseImponible: '50', cuotaRepercutida: '3.5' }),
        aDetalle({ calificacionOperacion: undefined, operacionExenta: 'E1', tipoImpositivo: undefined, cuotaRepercutida: undefined, baseImponible: '10' }),
        aDetalle({ calificacionOperacion: 'N1', tipoImpositivo: undefined, cuotaRepercutida: undefined, baseImponible: '5' }),
        aDetalle({ impuesto: '05', claveRegimen: undefined, tipoImpositivo: '4', baseImponible: '25', cuotaRepercutida: '1' }),
      ],
      totales: { cuotaTotal: '30.70', importeTotal: '220.70' },
    });
    const r = await expectValidAlta(factura);
    for (const fragment of [
      '<sum1:RefExterna>pedido #42 &amp; más</sum1:RefExterna>',
      '<sum1:FacturaSimplificadaArt7273>S</sum1:FacturaSimplificadaArt7273>',
      '<sum1:EmitidaPorTerceroODestinatario>T</sum1:EmitidaPorTerceroODestinatario>',
      '<sum1:Tercero><sum1:NombreRazon>Gestoría Tercera, S.L.</sum1:NombreRazon><sum1:NIF>B11111119</sum1:NIF></sum1:Tercero>',
      '<sum1:Cupon>S</sum1:Cupon>',
      '<sum1:NumRegistroAcuerdoFacturacion>ACU-2026-00001</sum1:NumRegistroAcuerdoFacturacion>',
      '<sum1:IdAcuerdoSistemaInformatico>SIS-ACUERDO-001</sum1:IdAcuerdoSistemaInformatico>',
      '<sum1:TipoRecargoEquivalencia>5.20</sum1:TipoRecargoEquivalencia><sum1:CuotaRecargoEquivalencia>5.20</sum1:CuotaRecargoEquivalencia>',
      '<sum1:OperacionExenta>E1</sum1:OperacionExenta><sum1:BaseImponibleOimporteNoSujeto>10.00</sum1:BaseImponibleOimporteNoSujeto>',
    ]) {
      expect(r.xml).toContain(fragment);
    }
  });

  it('FacturaSinIdentifDestinatarioArt61d on an F2, and emitted by the recipient (D)', async () => {
    await expectValidAlta(aFacturaF2({ especial: { facturaSinIdentifDestinatarioArt61d: true } }));
    await expectValidAlta(aFacturaF1({ especial: { emitidaPor: 'D' } }));
  });

  it('Macrodato = S from 100,000,000.00', async () => {
    const factura = aFacturaF1({
      detalleDesglose: [aDetalle({ baseImponible: '100000000', cuotaRepercutida: '21000000' })],
      totales: { cuotaTotal: '21000000', importeTotal: '121000000' },
    });
    const r = await expectValidAlta(factura);
    expect(r.xml).toContain('<sum1:Macrodato>S</sum1:Macrodato>');
    expect(buildRegistroAlta({ factura: aFacturaF1(), anterior: null, generadoEn: GENERADO_EN, sistema }).xml).not.toContain('Macrodato');
  });

  it('Subsanacion = S with RechazoPrevio N, S and X', async () => {
    for (const rechazoPrevio of ['N', 'S', 'X'] as const) {
      const r = await expectValidAlta(aFacturaF1(), { subsanacion: { rechazoPrevio } });
      expect(r.xml).toContain(`<sum1:Subsanacion>S</sum1:Subsanacion><sum1:RechazoPrevio>${rechazoPrevio}</sum1:RechazoPrevio>`);
    }
    const sin = await expectValidAlta(aFacturaF1(), { subsanacion: {} });
    expect(sin.xml).toContain('<sum1:Subsanacion>S</sum1:Subsanacion><sum1:TipoFactura>');
  });

  it('FechaOperacion and ImporteRectificacion with CuotaRecargoRectificado', async () => {
    const r = await expectValidAlta(
      aFacturaR('R4', 'S', {
        cabecera: { fechaOperacion: '28-02-2026' },
        rectificativa: { tipo: 'S', importes: { baseRectificada: '100', cuotaRectificada: '21', cuotaRecargoRectificada: '5.2' } },
      }),
    );
    expect(r.xml).toContain(
      '<sum1:ImporteRectificacion><sum1:BaseRectificada>100.00</sum1:BaseRectificada><sum1:CuotaRectificada>21.00</sum1:CuotaRectificada><sum1:CuotaRecargoRectificado>5.20</sum1:CuotaRecargoRectificado></sum1:ImporteRectificacion><sum1:FechaOperacion>28-02-2026</sum1:FechaOperacion>',
    );
  });
});

describe('RegistroAlta: encadenamiento', () => {
  it('PrimerRegistro = S when there is no previous record, and Huella= in the hash', async () => {
    const r = await expectValidAlta(aFacturaF1(), { anterior: null });
    expect(r.xml).toContain('<sum1:Encadenamiento><sum1:PrimerRegistro>S</sum1:PrimerRegistro></sum1:Encadenamiento>');
  });

  it('RegistroAnterior carries the previous record\'s identity and huella', async () => {
    const anterior = aRegistroAnterior();
    const r = await expectValidAlta(aFacturaF1(), { anterior });
    expect(r.xml).toContain(
      `<sum1:RegistroAnterior><sum1:IDEmisorFactura>${anterior.idEmisorFactura}</sum1:IDEmisorFactura><sum1:NumSerieFactura>${anterior.numSerieFactura}</sum1:NumSerieFactura><sum1:FechaExpedicionFactura>${anterior.fechaExpedicionFactura}</sum1:FechaExpedicionFactura><sum1:Huella>${anterior.huella}</sum1:Huella></sum1:RegistroAnterior>`,
    );
  });
});

describe('RegistroAlta: one canonical amount in the XML, the hash and the result', () => {
  it('renders "121" as 121.00 everywhere', () => {
    const r = buildRegistroAlta({
      factura: aFacturaF1({ detalleDesglose: [aDetalle({ baseImponible: '100', tipoImpositivo: '21', cuotaRepercutida: '21' })], totales: { cuotaTotal: '21', importeTotal: '121' } }),
      anterior: null,
      generadoEn: GENERADO_EN,
      sistema,
    });
    expect(r.importeTotal).toBe('121.00');
    expect(r.cuotaTotal).toBe('21.00');
    expect(r.xml).toContain('<sum1:CuotaTotal>21.00</sum1:CuotaTotal><sum1:ImporteTotal>121.00</sum1:ImporteTotal>');
    expect(r.xml).toContain('<sum1:TipoImpositivo>21.00</sum1:TipoImpositivo><sum1:BaseImponibleOimporteNoSujeto>100.00</sum1:BaseImponibleOimporteNoSujeto>');
    expect(huellaDesdeXmlAlta(r.xml)).toBe(r.huella);
  });

  it('numSerieFactura is serie + numero, and text is escaped once', () => {
    const r = buildRegistroAlta({
      factura: aFacturaF1({ cabecera: { serie: '12345678&', numero: 'G33' }, destinatario: aDestinatarioNif({ nombre: 'A & B <C>' }) }),
      anterior: null,
      generadoEn: GENERADO_EN,
      sistema,
    });
    expect(r.numSerieFactura).toBe('12345678&G33');
    expect(r.xml).toContain('<sum1:NumSerieFactura>12345678&amp;G33</sum1:NumSerieFactura>');
    expect(r.xml).toContain('<sum1:NombreRazon>A &amp; B &lt;C&gt;</sum1:NombreRazon>');
    expect(text(parse(r.xml), 'IDFactura', 'NumSerieFactura')).toBe('12345678&G33');
    expect(huellaDesdeXmlAlta(r.xml)).toBe(r.huella);
  });

  it('uses the census name when given, the namespace of the XSD, and passes incidencia through', () => {
    const r = buildRegistroAlta({ factura: aFacturaF1(), emisorNombre: 'FERRETERIA LOPEZ SL', anterior: null, generadoEn: GENERADO_EN, sistema, incidencia: true });
    expect(r.xml.startsWith(`<sum1:RegistroAlta xmlns:sum1="${NS_SUMINISTRO_INFORMACION}">`)).toBe(true);
    expect(r.xml).toContain('<sum1:NombreRazonEmisor>FERRETERIA LOPEZ SL</sum1:NombreRazonEmisor>');
    expect(r.incidencia).toBe(true);
  });
});

describe('RegistroAnulacion validates against SuministroInformacion.xsd and its huella recomputes', () => {
  function huellaDesdeXmlAnulacion(xml: string): string {
    const r = parse(xml);
    return huellaAnulacion({
      IDEmisorFacturaAnulada: text(r, 'IDFactura', 'IDEmisorFacturaAnulada') ?? '',
      NumSerieFacturaAnulada: text(r, 'IDFactura', 'NumSerieFacturaAnulada') ?? '',
      FechaExpedicionFacturaAnulada: text(r, 'IDFactura', 'FechaExpedicionFacturaAnulada') ?? '',
      Huella: text(r, 'Encadenamiento', 'RegistroAnterior', 'Huella'),
      FechaHoraHusoGenRegistro: text(r, 'FechaHoraHusoGenRegistro') ?? '',
    });
  }

  it.each([
    ['chained', {}],
    ['first record', { anterior: null }],
    ['SinRegistroPrevio', { sinRegistroPrevio: true }],
    ['RechazoPrevio S', { rechazoPrevio: 'S' as const }],
    ['RefExterna', { refExterna: 'anulación <1>' }],
  ])('%s', async (_, extra) => {
    const r = buildRegistroAnulacion({
      facturaAnulada: anAnularBody().facturaAnulada,
      anterior: aRegistroAnterior(),
      generadoEn: GENERADO_EN,
      sistema,
      ...extra,
    });
    const xsd = await validateAgainstVerifactuXsd(r.xml, 'SuministroInformacion.xsd');
    expect(xsd.errors).toEqual([]);
    expect(huellaDesdeXmlAnulacion(r.xml)).toBe(r.huella);
    expect(r.numSerieFactura).toBe('A-2026/0001');
  });

  it('reproduces caso 3 of the hash specification', () => {
    const r = buildRegistroAnulacion({
      facturaAnulada: { nifEmisor: '89890001K', serie: '12345679/', numero: 'G34', fechaExpedicion: '01-01-2024' },
      anterior: aRegistroAnterior({ huella: 'F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97' }),
      generadoEn: new Date('2024-01-01T18:20:40Z'),
      sistema,
    });
    expect(r.huella).toBe('177547C0D57AC74748561D054A9CEC14B4C4EA23D1BEFD6F2E69E3A388F90C68');
  });

  it('writes the emisor NIF of the cancelled invoice', () => {
    const r = buildRegistroAnulacion({ facturaAnulada: anAnularBody().facturaAnulada, anterior: null, generadoEn: GENERADO_EN, sistema });
    expect(r.xml).toContain(`<sum1:IDEmisorFacturaAnulada>${EMISOR.nif}</sum1:IDEmisorFacturaAnulada>`);
  });
});
