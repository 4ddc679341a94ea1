import { gunzipSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { ticketbaiCrearBody } from '../../../src-shared/api/ticketbai';
import { buildLroeAlta, buildLroeAnulacion } from '../../../engine/src/regimes/ticketbai/authority/lroe';
import { POLITICAS_FIRMA } from '../../../engine/src/regimes/ticketbai/politicas';
import { signTicketBai, verifyTicketBai } from '../../../engine/src/regimes/ticketbai/record/xades';
import { buildTicketBaiAlta, buildTicketBaiAnulacion } from '../../../engine/src/regimes/ticketbai/record/xml';
import { validateAgainstTicketbaiXsd } from '../../support/xsd-ticketbai';
import { aCertificadoTbai, aFacturaTbai, anAnularTbai, aSoftwareTbai, EMISOR_TBAI, GENERADO_EN } from './fixtures';

const cert = aCertificadoTbai();
const firma = { privateKeyPem: cert.privateKeyPem, certificatePem: cert.certificatePem, policy: POLITICAS_FIRMA.bizkaia, signingTime: GENERADO_EN, canonicalInput: true };

function altaFirmada(numero: string): string {
  const factura = ticketbaiCrearBody.parse(aFacturaTbai({ provincia: 'bizkaia', numero }));
  return signTicketBai(buildTicketBaiAlta({ factura, anterior: null, software: aSoftwareTbai(), generadoEn: GENERADO_EN }), firma).signedXml;
}

function anulacionFirmada(numero: string): string {
  const xml = buildTicketBaiAnulacion({ anulacion: anAnularTbai({ provincia: 'bizkaia', numero }), nombreEmisor: EMISOR_TBAI.nombre, software: aSoftwareTbai() });
  return signTicketBai(xml, firma).signedXml;
}

const obligado = { nif: EMISOR_TBAI.nif, nombre: EMISOR_TBAI.nombre };

describe('Bizkaia LROE requests', () => {
  it('model 240 alta with two signed invoices validates against LROE_PJ_240 AltaPeticion; each TicketBai is the signed file in base64', async () => {
    const facturas = [altaFirmada('1'), altaFirmada('2')];
    const p = buildLroeAlta({ modelo: '240', ejercicio: 2026, obligado, facturas: facturas.map((signedXml) => ({ signedXml })) });
    const r = await validateAgainstTicketbaiXsd(p.bodyXml, 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd');
    expect(r.errors).toEqual([]);
    expect(p.headerJson).toEqual({ con: 'LROE', apa: '1.1', inte: { nif: 'B12345674', nrs: EMISOR_TBAI.nombre }, drs: { mode: '240', ejer: '2026' } });
    expect(gunzipSync(p.gzipped).toString('utf8')).toBe(p.bodyXml);
    const doc = new DOMParser().parseFromString(p.bodyXml, 'text/xml');
    const embebidas = [...doc.getElementsByTagName('TicketBai')].map((e) => Buffer.from(e.textContent ?? '', 'base64').toString('utf8'));
    expect(embebidas).toEqual(facturas);
    for (const e of embebidas) expect(verifyTicketBai(e).valid).toBe(true);
    expect(p.bodyXml).toContain('<Modelo>240</Modelo><Capitulo>1</Capitulo><Subcapitulo>1.1</Subcapitulo><Operacion>A00</Operacion>');
  });

  it('model 140 alta carries the IAE heading of each income and validates against LROE_PF_140 AltaPeticion', async () => {
    const p = buildLroeAlta({ modelo: '140', ejercicio: 2026, obligado: { nif: '12345678Z', nombre: 'Ane Etxeberria Goikoetxea' }, facturas: [{ signedXml: altaFirmada('3'), epigrafe: '659000' }] });
    const r = await validateAgainstTicketbaiXsd(p.bodyXml, 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd');
    expect(r.errors).toEqual([]);
    expect(p.headerJson.drs).toEqual({ mode: '140', ejer: '2026' });
    expect(p.bodyXml).toContain('<Renta><DetalleRenta><Epigrafe>659000</Epigrafe></DetalleRenta></Renta>');
    expect(() => buildLroeAlta({ modelo: '140', ejercicio: 2026, obligado, facturas: [{ signedXml: altaFirmada('4') }] })).toThrow(/epigrafe/);
  });

  it('anulación, models 240 and 140, validate against their AnulacionPeticion schemas', async () => {
    const p240 = buildLroeAnulacion({ modelo: '240', ejercicio: 2026, obligado, anulaciones: [{ signedXml: anulacionFirmada('1') }] });
    expect((await validateAgainstTicketbaiXsd(p240.bodyXml, 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd')).errors).toEqual([]);
    expect(p240.bodyXml).toContain('<Operacion>AN0</Operacion>');
    const p140 = buildLroeAnulacion({ modelo: '140', ejercicio: 2026, obligado, anulaciones: [{ signedXml: anulacionFirmada('2') }, { signedXml: anulacionFirmada('3') }] });
    expect((await validateAgainstTicketbaiXsd(p140.bodyXml, 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd')).errors).toEqual([]);
  });

  it('the validator catches a broken request (sanity)', async () => {
    const p = buildLroeAlta({ modelo: '240', ejercicio: 2026, obligado, facturas: [{ signedXml: altaFirmada('5') }] });
    const roto = p.bodyXml.replace('<Modelo>240</Modelo>', '<Modelo>241</Modelo>');
    expect((await validateAgainstTicketbaiXsd(roto, 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd')).valid).toBe(false);
  });

  it('1 to 1000 files, a 4-digit ejercicio', () => {
    expect(() => buildLroeAlta({ modelo: '240', ejercicio: 2026, obligado, facturas: [] })).toThrow(/1 to 1000/);
    expect(() => buildLroeAlta({ modelo: '240', ejercicio: 26, obligado, facturas: [{ signedXml: '<x/>' }] })).toThrow(/ejercicio/);
  });
});
