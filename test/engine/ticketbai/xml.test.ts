import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import type { FacturaTicketbai } from '../../../src-shared/api/ticketbai';
import { ticketbaiCrearBody } from '../../../src-shared/api/ticketbai';
import { POLITICAS_FIRMA } from '../../../engine/src/regimes/ticketbai/politicas';
import { C14nTbai, signTicketBai, type SignTicketBaiOptions } from '../../../engine/src/regimes/ticketbai/record/xades';
import {
  buildTicketBaiAlta,
  buildTicketBaiAnulacion,
  escapeTexto,
  importe8Canonico,
  type FacturaAnteriorTbai,
} from '../../../engine/src/regimes/ticketbai/record/xml';
import { validateAgainstTicketbaiXsd } from '../../support/xsd-ticketbai';
import {
  aCertificadoTbai,
  aDestinatarioTbai,
  aDetalleTbai,
  aFacturaF1Tbai,
  aFacturaTbai,
  aLineaTbai,
  anAnularTbai,
  aSoftwareTbai,
  EMISOR_TBAI,
  GENERADO_EN,
} from './fixtures';

const software = aSoftwareTbai();

function firma(): SignTicketBaiOptions {
  const c = aCertificadoTbai();
  return { privateKeyPem: c.privateKeyPem, certificatePem: c.certificatePem, policy: POLITICAS_FIRMA.gipuzkoa, signingTime: GENERADO_EN };
}

function alta(f: FacturaTicketbai, anterior: FacturaAnteriorTbai | null = null): string {
  return buildTicketBaiAlta({ factura: ticketbaiCrearBody.parse(f), anterior, software, generadoEn: GENERADO_EN });
}

function raiz(xml: string): Element {
  const r = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  if (r === null) throw new Error('no root');
  return r;
}

function texto(el: Element, ...ruta: string[]): string | undefined {
  let cur: Element | undefined = el;
  for (const name of ruta) {
    let next: Element | undefined;
    for (let n = cur.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1 && (n as Element).localName === name) { next = n as Element; break; }
    if (next === undefined) return undefined;
    cur = next;
  }
  return cur.textContent ?? undefined;
}

async function esperaValidoAlta(xml: string): Promise<void> {
  const signed = signTicketBai(xml, { ...firma(), canonicalInput: true }).signedXml;
  const r = await validateAgainstTicketbaiXsd(signed, 'ticketbaiv1-2-2.xsd');
  expect(r.errors).toEqual([]);
  expect(r.valid).toBe(true);
}

describe('T:TicketBai (alta) validates against ticketbaiv1-2-2.xsd, signed', () => {
  const casos: [string, FacturaTicketbai][] = [
    ['simplified invoice with lineas (8-decimal amounts)', aFacturaTbai()],
    ['complete invoice with a NIF recipient, postcode and address', aFacturaF1Tbai()],
    ['recipient identified by IDOtro, with DesgloseTipoOperacion', aFacturaF1Tbai({
      destinatario: { nombre: 'Louise Dubois', idOtro: { codigoPais: 'FR', idType: '02', id: 'FR52422961982' } },
      desglose: [aDetalleTbai({ baseImponible: '60.00', cuota: '12.60', tipoOperacion: 'prestacion_servicios' }), { baseImponible: '40.00', operacionExenta: 'E5', tipoOperacion: 'entrega' }],
      importeTotal: '112.60',
    })],
    ['without lineas or series (Gipuzkoa), three régimen keys', aFacturaTbai({ serie: undefined, lineas: undefined, clavesRegimen: ['01', '51', '52'] })],
    ['exempt, non-subject, S1 and S2 lines and recargo de equivalencia', aFacturaF1Tbai({
      desglose: [
        { baseImponible: '10.00', operacionExenta: 'E1' },
        { baseImponible: '5.00', operacionExenta: 'E6', tipoImpositivo: '0', cuota: '0' },
        { baseImponible: '7.00', causaNoSujecion: 'RL' },
        { baseImponible: '3.00', causaNoSujecion: 'OT' },
        aDetalleTbai({ baseImponible: '100.00', cuota: '21.00', tipoRecargoEquivalencia: '5.2', cuotaRecargoEquivalencia: '5.20' }),
        aDetalleTbai({ baseImponible: '50.00', tipoImpositivo: '10', cuota: '5.00' }),
        aDetalleTbai({ baseImponible: '20.00', cuota: '4.20', calificacionOperacion: 'S2' }),
      ],
      importeTotal: '230.40',
    })],
    ['rectificativa R1 por sustitución with its amounts', aFacturaF1Tbai({
      tipoFactura: 'R1',
      rectificativa: { tipo: 'S', importes: { baseRectificada: '100.00', cuotaRectificada: '21.00', cuotaRecargoRectificada: '0.00' } },
      facturasRectificadas: [{ serie: 'A-2026', numero: '0001', fechaExpedicion: '01-03-2026' }],
    })],
    ['rectificativa R5 por diferencias (of a simplified invoice), negative amounts', aFacturaTbai({
      tipoFactura: 'R5',
      rectificativa: { tipo: 'I' },
      facturasRectificadas: [{ serie: 'T', numero: '000120', fechaExpedicion: '01-03-2026' }],
      importeTotal: '-2.42',
      desglose: [aDetalleTbai({ baseImponible: '-2.00', cuota: '-0.42' })],
      lineas: [aLineaTbai({ cantidad: '-1', importeUnitario: '2', importeTotal: '-2.42' })],
    })],
    ['F3 issued in substitution of simplified invoices', aFacturaF1Tbai({
      tipoFactura: 'F3',
      facturasSustituidas: [{ serie: 'T', numero: '000120', fechaExpedicion: '01-03-2026' }, { numero: '000121', fechaExpedicion: '01-03-2026' }],
    })],
    ['chained, with a device (idMaquina of 64 characters)', aFacturaTbai({ idMaquina: 'x'.repeat(33) + 'TIENDA-01.CAJA_2-abcdefghijklmn' })],
  ];
  for (const [nombre, f] of casos) {
    it(nombre, async () => {
      const anterior = nombre.startsWith('chained') ? { serie: 'T', numero: '000122', fechaExpedicion: '01-03-2026', signatureValue: 'A'.repeat(344) } : null;
      await esperaValidoAlta(alta(f, anterior));
    });
  }

  it('the validator catches a broken document (sanity): element order, 2 decimals in ImporteTotalFactura', async () => {
    const signed = signTicketBai(alta(aFacturaTbai()), { ...firma(), canonicalInput: true }).signedXml;
    const desordenado = signed.replace('<SerieFactura>T</SerieFactura><NumFactura>000123</NumFactura>', '<NumFactura>000123</NumFactura><SerieFactura>T</SerieFactura>');
    expect((await validateAgainstTicketbaiXsd(desordenado, 'ticketbaiv1-2-2.xsd')).valid).toBe(false);
    const tresDecimales = signed.replace('<ImporteTotalFactura>12.10<', '<ImporteTotalFactura>12.100<');
    expect((await validateAgainstTicketbaiXsd(tresDecimales, 'ticketbaiv1-2-2.xsd')).valid).toBe(false);
  });

  it('elements carry the body: hour from the body, else the generation instant in Madrid', () => {
    expect(texto(raiz(alta(aFacturaF1Tbai())), 'Factura', 'CabeceraFactura', 'HoraExpedicionFactura')).toBe('09:30:00');
    // 10:15:00Z is 11:15:00 CET.
    expect(texto(raiz(alta(aFacturaTbai())), 'Factura', 'CabeceraFactura', 'HoraExpedicionFactura')).toBe('11:15:00');
    const r = raiz(alta(aFacturaTbai()));
    expect(texto(r, 'Cabecera', 'IDVersionTBAI')).toBe('1.2');
    expect(texto(r, 'Factura', 'CabeceraFactura', 'FacturaSimplificada')).toBe('S');
    expect(texto(r, 'Sujetos', 'Emisor', 'ApellidosNombreRazonSocial')).toBe(EMISOR_TBAI.nombre);
    expect(texto(r, 'Factura', 'DatosFactura', 'DetallesFactura', 'IDDetalleFactura', 'DescripcionDetalle')).toBe('Tornillos <M6> & tuercas');
    expect(texto(r, 'Factura', 'DatosFactura', 'DetallesFactura', 'IDDetalleFactura', 'Cantidad')).toBe('4.00');
    expect(texto(r, 'Factura', 'DatosFactura', 'ImporteTotalFactura')).toBe('12.10');
    expect(texto(r, 'Factura', 'DatosFactura', 'DescripcionFactura')).toBe('Venta');
  });

  it('HuellaTBAI: chains the first 100 characters of the previous SignatureValue; NumSerieDispositivo = last 30 of idMaquina', () => {
    const sv = 'B'.repeat(100) + 'C'.repeat(244);
    const idMaquina = 'SUCURSAL-NORTE.TPV-0001-' + 'z'.repeat(20);
    const r = raiz(alta(aFacturaTbai({ idMaquina }), { serie: 'T', numero: '000122', fechaExpedicion: '01-03-2026', signatureValue: sv }));
    expect(texto(r, 'HuellaTBAI', 'EncadenamientoFacturaAnterior', 'SignatureValueFirmaFacturaAnterior')).toBe('B'.repeat(100));
    expect(texto(r, 'HuellaTBAI', 'EncadenamientoFacturaAnterior', 'NumFacturaAnterior')).toBe('000122');
    expect(texto(r, 'HuellaTBAI', 'NumSerieDispositivo')).toBe(idMaquina.slice(-30));
    expect(texto(r, 'HuellaTBAI', 'Software', 'LicenciaTBAI')).toBe(software.licenciaTbai);
    expect(texto(raiz(alta(aFacturaTbai())), 'HuellaTBAI', 'EncadenamientoFacturaAnterior')).toBeUndefined();
  });

  it('is its own inclusive C14N (what lets the signer skip the DOM)', () => {
    for (const f of [aFacturaTbai(), aFacturaF1Tbai({ descripcion: 'Comillas "dobles" y \'simples\' > & < tab\t CRLF\r\n fin', destinatario: aDestinatarioTbai() })]) {
      const xml = alta(f);
      const doc = new DOMParser().parseFromString(xml, 'text/xml');
      expect(new C14nTbai().process(doc.documentElement as never, {})).toBe(xml);
    }
  });
});

describe('T:AnulaTicketBai validates against anula_ticketbaiv1-2-2.xsd, signed', () => {
  it('with series and device', async () => {
    const xml = buildTicketBaiAnulacion({ anulacion: anAnularTbai({ idMaquina: 'TPV-01' }), nombreEmisor: EMISOR_TBAI.nombre, software });
    const r = await validateAgainstTicketbaiXsd(signTicketBai(xml, { ...firma(), canonicalInput: true }).signedXml, 'anula_ticketbaiv1-2-2.xsd');
    expect(r.errors).toEqual([]);
    expect(texto(raiz(xml), 'IDFactura', 'CabeceraFactura', 'NumFactura')).toBe('000123');
    expect(texto(raiz(xml), 'HuellaTBAI', 'NumSerieDispositivo')).toBe('TPV-01');
  });
  it('without series', async () => {
    const xml = buildTicketBaiAnulacion({ anulacion: anAnularTbai({ serie: undefined }), nombreEmisor: EMISOR_TBAI.nombre, software });
    const r = await validateAgainstTicketbaiXsd(signTicketBai(xml, firma()).signedXml, 'anula_ticketbaiv1-2-2.xsd');
    expect(r.errors).toEqual([]);
  });
});

describe('one escaping function, C14N style', () => {
  it('escapes & < > and CR, leaves quotes', () => {
    expect(escapeTexto('a & b < c > d "e" \'f\'\r')).toBe('a &amp; b &lt; c &gt; d "e" \'f\'&#xD;');
    expect(escapeTexto('plain')).toBe('plain');
  });
});

describe('line amounts (ImporteSgn12.8): exact, at least 2 decimals, no trailing zeros beyond', () => {
  it.each([
    ['1', '1.00'],
    ['0.12500000', '0.125'],
    ['007.5', '7.50'],
    ['-0.00', '0.00'],
    ['-2.42', '-2.42'],
    ['66.66666667', '66.66666667'],
  ])('%s → %s', (input, out) => {
    expect(importe8Canonico(input)).toBe(out);
  });
});
