import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ticketbaiCrearBody, ticketbaiSubsanarBody } from '../../../src-shared/api/ticketbai';
import { POLITICAS_FIRMA } from '../../../engine/src/regimes/ticketbai/politicas';
import { signTicketBai } from '../../../engine/src/regimes/ticketbai/record/xades';
import { buildTicketBaiAlta } from '../../../engine/src/regimes/ticketbai/record/xml';
import { buildZuzenduSubsanar } from '../../../engine/src/regimes/ticketbai/authority/zuzendu';
import { REFERENCE_DIR } from '../../support/xsd';
import { validateAgainstTicketbaiXsd } from '../../support/xsd-ticketbai';
import { aCertificadoTbai, aDetalleTbai, aFacturaF1Tbai, aLineaTbai, aSoftwareTbai, GENERADO_EN } from './fixtures';

const cert = aCertificadoTbai();
const anterior = { serie: 'A-2026', numero: '0000', fechaExpedicion: '01-03-2026', signatureValue: 'Q'.repeat(100) + 'R'.repeat(244) };

/** The original: issued at 11:15:00 in Madrid (no horaExpedicion in the body), chained, from a device. */
function original() {
  const factura = ticketbaiCrearBody.parse(aFacturaF1Tbai({ horaExpedicion: undefined, idMaquina: 'TPV-NORTE-01' }));
  const xml = buildTicketBaiAlta({ factura, anterior, software: aSoftwareTbai(), generadoEn: GENERADO_EN });
  return signTicketBai(xml, { privateKeyPem: cert.privateKeyPem, certificatePem: cert.certificatePem, policy: POLITICAS_FIRMA.gipuzkoa, signingTime: GENERADO_EN, canonicalInput: true });
}

/** The correction: the rejected invoice had the wrong VAT rate. */
function corregida() {
  return ticketbaiSubsanarBody.parse({
    ...aFacturaF1Tbai({
      horaExpedicion: undefined,
      idMaquina: 'TPV-NORTE-01',
      importeTotal: '110.00',
      desglose: [aDetalleTbai({ baseImponible: '100.00', tipoImpositivo: '10', cuota: '10.00' })],
      lineas: [aLineaTbai({ cantidad: '1', importeUnitario: '100', importeTotal: '110' })],
    }),
    subsanacion: true,
  });
}

describe('Zuzendu SubsanacionModificacionTicketBAI (Gipuzkoa, Araba)', () => {
  it('validates against zuzendualta_ticketbaiv1-2-2.xsd (imports under their upper-case names)', async () => {
    const xml = buildZuzenduSubsanar({ factura: corregida(), originalSignedXml: original().signedXml });
    const r = await validateAgainstTicketbaiXsd(xml, 'zuzendualta_ticketbaiv1-2-2.xsd');
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it('the official Zuzendu example validates with the same support (sanity of the validator)', async () => {
    const ejemplo = readFileSync(path.join(REFERENCE_DIR, 'ticketbai/examples/zuzendu-official-1_2_2/ZuzenduSubsanar_Adibidea_Ejemplo.xml'), 'utf8');
    expect((await validateAgainstTicketbaiXsd(ejemplo, 'zuzendualta_ticketbaiv1-2-2.xsd')).valid).toBe(true);
    expect((await validateAgainstTicketbaiXsd(ejemplo.replace('<Accion>SUBSANAR</Accion>', '<Accion>BORRAR</Accion>'), 'zuzendualta_ticketbaiv1-2-2.xsd')).valid).toBe(false);
  });

  it('keeps the original identity, hour and huella, carries the corrected data and the original SignatureValue', () => {
    const o = original();
    const xml = buildZuzenduSubsanar({ factura: corregida(), originalSignedXml: o.signedXml });
    expect(xml).toContain('<Cabecera><IDVersion>1.0</IDVersion><Accion>SUBSANAR</Accion></Cabecera>');
    expect(xml).toContain('<SerieFactura>A-2026</SerieFactura><NumFactura>0001</NumFactura><FechaExpedicionFactura>02-03-2026</FechaExpedicionFactura><HoraExpedicionFactura>11:15:00</HoraExpedicionFactura>');
    expect(xml).toContain('<ImporteTotalFactura>110.00</ImporteTotalFactura>');
    expect(xml).toContain('<TipoImpositivo>10.00</TipoImpositivo>');
    // The HuellaTBAI of the original, byte for byte.
    const huella = (x: string) => x.slice(x.indexOf('<HuellaTBAI>'), x.indexOf('</HuellaTBAI>') + 13);
    expect(huella(xml)).toBe(huella(o.signedXml));
    expect(huella(xml)).toContain(`<SignatureValueFirmaFacturaAnterior>${'Q'.repeat(100)}</SignatureValueFirmaFacturaAnterior>`);
    expect(huella(xml)).toContain('<NumSerieDispositivo>TPV-NORTE-01</NumSerieDispositivo>');
    expect(xml).toContain(`<SignatureValueFirmaFactura>${o.signatureValue.slice(0, 100)}</SignatureValueFirmaFactura>`);
    expect(xml).not.toContain('ds:Signature');
  });

  it('MODIFICAR for an invoice that was received but needs a change', () => {
    expect(buildZuzenduSubsanar({ factura: corregida(), originalSignedXml: original().signedXml, accion: 'MODIFICAR' })).toContain('<Accion>MODIFICAR</Accion>');
  });

  it('refuses a correction that changes the identity', () => {
    const otra = { ...corregida(), numero: '0002' };
    expect(() => buildZuzenduSubsanar({ factura: otra, originalSignedXml: original().signedXml })).toThrow(/identity; changed: numero/);
    expect(() => buildZuzenduSubsanar({ factura: corregida(), originalSignedXml: '<T:AnulaTicketBai xmlns:T="urn:ticketbai:anulacion"></T:AnulaTicketBai>' })).toThrow(/not a TicketBAI alta/);
  });
});
