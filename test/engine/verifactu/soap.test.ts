import { describe, expect, it } from 'vitest';
import { buildRegistroAlta, buildRegistroAnulacion } from '../../../engine/src/regimes/verifactu/record/registro';
import { buildRegFactuSoapEnvelope, NS_SOAP_ENVELOPE, NS_SUMINISTRO_LR } from '../../../engine/src/regimes/verifactu/authority/soap';
import {
  aFacturaF1,
  aFacturaF2,
  aFacturaR,
  anAnularBody,
  aSistemaInformatico,
  EMISOR,
  GENERADO_EN,
} from '../../fixtures/verifactu';
import { soapBodyFirstChild, validateAgainstVerifactuXsd } from '../../support/xsd';

const sistema = aSistemaInformatico();
const obligado = { nombreRazon: EMISOR.nombre, nif: EMISOR.nif };

function chainOfRecords(): string[] {
  const a = buildRegistroAlta({ factura: aFacturaF1(), anterior: null, generadoEn: GENERADO_EN, sistema });
  const prev = (num: string, huella: string) => ({ idEmisorFactura: EMISOR.nif, numSerieFactura: num, fechaExpedicionFactura: '02-03-2026', huella });
  const b = buildRegistroAlta({ factura: aFacturaF2(), anterior: prev(a.numSerieFactura, a.huella), generadoEn: GENERADO_EN, sistema });
  const c = buildRegistroAlta({ factura: aFacturaR('R1', 'S'), anterior: prev(b.numSerieFactura, b.huella), generadoEn: GENERADO_EN, sistema });
  const d = buildRegistroAnulacion({ facturaAnulada: anAnularBody().facturaAnulada, anterior: prev(c.numSerieFactura, c.huella), generadoEn: GENERADO_EN, sistema });
  return [a.xml, b.xml, c.xml, d.xml];
}

describe('RegFactuSistemaFacturacion: Cabecera + 1–1000 RegistroFactura in a SOAP 1.1 envelope', () => {
  it('the Body\'s first child validates against SuministroLR.xsd with several records (alta and anulación)', async () => {
    const envelope = buildRegFactuSoapEnvelope({ obligado, registros: chainOfRecords() });
    expect(envelope.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(envelope).toContain(`xmlns:soapenv="${NS_SOAP_ENVELOPE}"`);
    expect(envelope).toContain(`xmlns:sum="${NS_SUMINISTRO_LR}"`);
    expect(envelope.match(/<sum:RegistroFactura>/g)).toHaveLength(4);
    const result = await validateAgainstVerifactuXsd(soapBodyFirstChild(envelope), 'SuministroLR.xsd');
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('with a Representante and Incidencia = S', async () => {
    const envelope = buildRegFactuSoapEnvelope({
      obligado,
      representante: { nombreRazon: 'Asesoría Fiscal & Co', nif: 'B99999999' },
      incidencia: true,
      registros: chainOfRecords().slice(0, 1),
    });
    expect(envelope).toContain('<sum1:Representante><sum1:NombreRazon>Asesoría Fiscal &amp; Co</sum1:NombreRazon><sum1:NIF>B99999999</sum1:NIF></sum1:Representante>');
    expect(envelope).toContain('<sum1:RemisionVoluntaria><sum1:Incidencia>S</sum1:Incidencia></sum1:RemisionVoluntaria>');
    const result = await validateAgainstVerifactuXsd(soapBodyFirstChild(envelope), 'SuministroLR.xsd');
    expect(result.errors).toEqual([]);
  });

  it('without incidencia there is no RemisionVoluntaria', () => {
    expect(buildRegFactuSoapEnvelope({ obligado, registros: chainOfRecords().slice(0, 1) })).not.toContain('RemisionVoluntaria');
  });

  it('embeds each record byte for byte, dropping an XML declaration', () => {
    const [rec = ''] = chainOfRecords();
    const envelope = buildRegFactuSoapEnvelope({ obligado, registros: [`<?xml version="1.0" encoding="UTF-8"?>\n${rec}`] });
    expect(envelope).toContain(`<sum:RegistroFactura>${rec}</sum:RegistroFactura>`);
    expect(envelope.match(/<\?xml/g)).toHaveLength(1);
  });

  it('refuses 0 and 1001 records', () => {
    expect(() => buildRegFactuSoapEnvelope({ obligado, registros: [] })).toThrow(RangeError);
    const [rec = ''] = chainOfRecords();
    expect(() => buildRegFactuSoapEnvelope({ obligado, registros: Array.from({ length: 1001 }, () => rec) })).toThrow(RangeError);
    expect(() => buildRegFactuSoapEnvelope({ obligado, registros: Array.from({ length: 1000 }, () => rec) })).not.toThrow();
  });
});

describe('The XSD check itself is not vacuous', () => {
  it('rejects a record with an element out of XSD order', async () => {
    const [rec = ''] = chainOfRecords();
    const swapped = rec.replace(
      /(<sum1:CuotaTotal>[^<]*<\/sum1:CuotaTotal>)(<sum1:ImporteTotal>[^<]*<\/sum1:ImporteTotal>)/,
      '$2$1',
    );
    expect(swapped).not.toBe(rec);
    const result = await validateAgainstVerifactuXsd(swapped, 'SuministroInformacion.xsd');
    expect(result.valid).toBe(false);
  });
});
