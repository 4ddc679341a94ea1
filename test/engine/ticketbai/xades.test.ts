import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FacturaTicketbai } from '../../../src-shared/api/ticketbai';
import { ticketbaiCrearBody } from '../../../src-shared/api/ticketbai';
import { identificadorTbai, identificadorTbaiValido } from '../../../engine/src/regimes/ticketbai/record/identificador';
import { POLITICAS_FIRMA } from '../../../engine/src/regimes/ticketbai/politicas';
import {
  signatureValueDe,
  signTicketBai,
  signTicketBaiXmlCrypto,
  verifyTicketBai,
  type SignTicketBaiOptions,
} from '../../../engine/src/regimes/ticketbai/record/xades';
import { buildTicketBaiAlta, buildTicketBaiAnulacion, type FacturaAnteriorTbai } from '../../../engine/src/regimes/ticketbai/record/xml';
import { REFERENCE_DIR } from '../../support/xsd';
import { aCertificadoTbai, aFacturaF1Tbai, aFacturaTbai, anAnularTbai, aSoftwareTbai, EMISOR_TBAI, GENERADO_EN } from './fixtures';
import { xmlsec1Verify } from './xmlsec';

const software = aSoftwareTbai();
const FIRMADO_EN = new Date('2026-03-02T10:15:01Z');
const EJEMPLOS = path.join(REFERENCE_DIR, 'ticketbai/examples/gipuzkoa-official-1_2_2');

function firma(o: Partial<SignTicketBaiOptions> = {}): SignTicketBaiOptions {
  const c = aCertificadoTbai();
  return { privateKeyPem: c.privateKeyPem, certificatePem: c.certificatePem, policy: POLITICAS_FIRMA.gipuzkoa, signingTime: FIRMADO_EN, ...o };
}

function alta(f: FacturaTicketbai = aFacturaTbai(), anterior: FacturaAnteriorTbai | null = null): string {
  return buildTicketBaiAlta({ factura: ticketbaiCrearBody.parse(f), anterior, software, generadoEn: GENERADO_EN });
}

const anulacion = () => buildTicketBaiAnulacion({ anulacion: anAnularTbai(), nombreEmisor: EMISOR_TBAI.nombre, software });

/** Both independent verifiers. */
function verificaciones(signedXml: string): { xmlsec1: boolean; xmlCrypto: boolean; detalle: string } {
  const x = xmlsec1Verify(signedXml, aCertificadoTbai().certificatePem, FIRMADO_EN);
  const v = verifyTicketBai(signedXml, aCertificadoTbai().certificatePem);
  return { xmlsec1: x.ok, xmlCrypto: v.valid, detalle: `${x.output}\n${v.reason ?? ''}` };
}

describe('XAdES-EPES enveloped signature: verifies with xmlsec1 --verify and with xml-crypto', () => {
  const casos: [string, () => string, Partial<SignTicketBaiOptions>][] = [
    ['alta, builder output (canonicalInput: no DOM)', () => alta(), { canonicalInput: true }],
    ['alta, DOM path', () => alta(aFacturaF1Tbai()), {}],
    ['anulación', anulacion, { canonicalInput: true }],
    ['alta with CR, tab, quotes and markup characters in its text', () => alta(aFacturaF1Tbai({ descripcion: 'Línea 1\r\nLínea\t2 "<&>" \'x\'' })), { canonicalInput: true }],
    ['alta signed for Bizkaia (policy identifier with its own URL)', () => alta(aFacturaTbai({ provincia: 'bizkaia' })), { policy: POLITICAS_FIRMA.bizkaia }],
    ['alta signed for Araba', () => alta(aFacturaTbai({ provincia: 'araba' })), { policy: POLITICAS_FIRMA.araba, ids: { token: 'araba-1' } }],
  ];
  for (const [nombre, xml, o] of casos) {
    it(nombre, () => {
      const { signedXml } = signTicketBai(xml(), firma(o));
      const v = verificaciones(signedXml);
      expect(v, v.detalle).toMatchObject({ xmlsec1: true, xmlCrypto: true });
    });
  }

  it('a hand-written document (XML declaration, indentation, xmlns:ds and xsi on the root) through the DOM path', () => {
    const oficial = readFileSync(path.join(EJEMPLOS, 'TicketBAI_Alta_Faktura__Alta_Factura_01_lehena__primera.xml'), 'utf8');
    const sinFirma = oficial.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '');
    const { signedXml } = signTicketBai(sinFirma, firma());
    expect(signedXml.startsWith('<?xml version="1.0" encoding="UTF-8"?><T:TicketBai xmlns:T="urn:ticketbai:emision" xmlns:ds=')).toBe(true);
    const v = verificaciones(signedXml);
    expect(v, v.detalle).toMatchObject({ xmlsec1: true, xmlCrypto: true });
  });

  it('the structure of the official examples: three references, enveloped-signature first, SHA-256, XAdES properties', () => {
    const { signedXml } = signTicketBai(alta(), firma({ ids: { token: 'abc' } }));
    const sig = signedXml.slice(signedXml.indexOf('<ds:Signature'));
    expect(sig).toContain('<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315">');
    expect(sig).toContain('<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256">');
    expect(sig).toContain(
      '<ds:Reference Id="Reference-abc" URI=""><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"></ds:Transform>' +
        '<ds:Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></ds:Transform></ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256">',
    );
    expect(sig).toContain('<ds:Reference Type="http://uri.etsi.org/01903#SignedProperties" URI="#Signature-abc-SignedProperties">');
    expect(sig).toContain('<ds:Reference URI="#Signature-abc-KeyInfo">');
    expect(sig).toMatch(/<xades:SigningTime>2026-03-02T11:15:01\+01:00<\/xades:SigningTime>/);
    expect(sig).toMatch(/<xades:CertDigest><ds:DigestMethod Algorithm="http:\/\/www.w3.org\/2001\/04\/xmlenc#sha256"><\/ds:DigestMethod><ds:DigestValue>[A-Za-z0-9+/=]{44}<\/ds:DigestValue>/);
    expect(sig).toMatch(/<ds:X509IssuerName>CN=Ferretería López &amp; Hijos\\, S\.L\. \(TicketBAI TEST\),organizationIdentifier=VATES-B12345674,O=.*,C=ES<\/ds:X509IssuerName><ds:X509SerialNumber>\d+<\/ds:X509SerialNumber>/);
    expect(sig).toContain(
      '<xades:SigPolicyId><xades:Identifier>https://www.gipuzkoa.eus/TicketBAI/signature</xades:Identifier><xades:Description></xades:Description></xades:SigPolicyId>' +
        '<xades:SigPolicyHash><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></ds:DigestMethod><ds:DigestValue>6NrKAm60o7u62FUQwzZew24ra2ve9PRQYwC21AM6In0=</ds:DigestValue></xades:SigPolicyHash>' +
        '<xades:SigPolicyQualifiers><xades:SigPolicyQualifier><xades:SPURI>https://www.gipuzkoa.eus/TicketBAI/signature</xades:SPURI>',
    );
    expect(sig).toContain('<xades:DataObjectFormat ObjectReference="#Reference-abc">');
    expect(sig).toContain('<xades:MimeType>text/xml</xades:MimeType>');
    expect(sig).toContain('<ds:KeyValue><ds:RSAKeyValue><ds:Modulus>');
    expect(signedXml.endsWith('</ds:Signature></T:TicketBai>')).toBe(true);
  });
});

describe('the fast signer and xml-crypto computeSignature produce the same signature', () => {
  it('same SignatureValue (RSA PKCS#1 v1.5 is deterministic): same SignedInfo, same digests', () => {
    const xml = alta(aFacturaF1Tbai());
    const rapida = signTicketBai(xml, firma({ canonicalInput: true }));
    const dom = signTicketBai(xml, firma());
    const xmlCrypto = signTicketBaiXmlCrypto(xml, firma());
    expect(dom.signedXml).toBe(rapida.signedXml);
    expect(xmlCrypto.signatureValue).toBe(rapida.signatureValue);
    const v = verificaciones(xmlCrypto.signedXml);
    expect(v, v.detalle).toMatchObject({ xmlsec1: true, xmlCrypto: true });
  });

  it('signing is deterministic (Ids derived from the document digest)', () => {
    expect(signTicketBai(alta(), firma()).signedXml).toBe(signTicketBai(alta(), firma()).signedXml);
    expect(signTicketBai(alta(), firma()).signedXml).not.toBe(signTicketBai(alta(aFacturaTbai({ numero: '9' })), firma()).signedXml);
  });
});

describe('changing any signed byte makes both verifications fail', () => {
  const { signedXml } = (() => {
    const s = signTicketBai(alta(aFacturaF1Tbai()), firma({ canonicalInput: true }));
    return s;
  })();
  const cambios: [string, (x: string) => string][] = [
    ['a digit of ImporteTotalFactura', (x) => x.replace('<ImporteTotalFactura>121.00<', '<ImporteTotalFactura>121.01<')],
    ['the SigningTime', (x) => x.replace('2026-03-02T11:15:01+01:00', '2026-03-02T11:15:02+01:00')],
    ['the issuer NIF', (x) => x.replace('<NIF>B12345674</NIF>', '<NIF>B12345675</NIF>')],
    ['the policy digest', (x) => x.replace('6NrKAm60o7u62FUQ', '6NrKAm60o7u62FUR')],
    ['the document DigestValue in SignedInfo', (x) => x.replace(/(URI=""><ds:Transforms>.*?<ds:DigestValue>)(.)/, (_m, a: string, c: string) => a + (c === 'A' ? 'B' : 'A'))],
    ['a character of the KeyInfo modulus', (x) => x.replace(/(<ds:Modulus>.{20})(.)/, (_m, a: string, c: string) => a + (c === 'A' ? 'B' : 'A'))],
    ['the SignatureValue', (x) => x.replace(/(<ds:SignatureValue[^>]*>.{10})(.)/, (_m, a: string, c: string) => a + (c === 'A' ? 'B' : 'A'))],
  ];
  for (const [nombre, cambiar] of cambios) {
    it(nombre, () => {
      const alterado = cambiar(signedXml);
      expect(alterado).not.toBe(signedXml);
      const v = verificaciones(alterado);
      expect(v.xmlsec1, v.detalle).toBe(false);
      expect(v.xmlCrypto, v.detalle).toBe(false);
    });
  }
});

describe('the official signed Gipuzkoa examples verify with verifyTicketBai (xmlsec1 1.2.37 cannot: c14n before enveloped)', () => {
  for (const f of [
    'TicketBAI_Alta_Faktura__Alta_Factura_01_lehena__primera.xml',
    'TicketBAI_Alta_Faktura__Alta_Factura_02_hurrengoa__sucesiva.xml',
    'TicketBAI_Baligabetzea_Faktura__Anulacion_Factura_02.xml',
  ]) {
    it(f, () => {
      const xml = readFileSync(path.join(EJEMPLOS, f), 'utf8');
      expect(verifyTicketBai(xml)).toMatchObject({ valid: true });
      expect(verifyTicketBai(xml.replace('<NumFactura>', '<NumFactura>9')).valid).toBe(false);
      expect(verifyTicketBai(xml.replace('2024-02-29T11:', '2024-02-29T12:')).valid).toBe(false);
    });
  }
  it('invoice 2 chains the first 100 characters of invoice 1', () => {
    const uno = readFileSync(path.join(EJEMPLOS, 'TicketBAI_Alta_Faktura__Alta_Factura_01_lehena__primera.xml'), 'utf8');
    const dos = readFileSync(path.join(EJEMPLOS, 'TicketBAI_Alta_Faktura__Alta_Factura_02_hurrengoa__sucesiva.xml'), 'utf8');
    expect(dos).toContain(`<SignatureValueFirmaFacturaAnterior>${signatureValueDe(uno).slice(0, 100)}</SignatureValueFirmaFacturaAnterior>`);
  });
  it('a signature checked against another certificate fails', () => {
    const xml = readFileSync(path.join(EJEMPLOS, 'TicketBAI_Alta_Faktura__Alta_Factura_01_lehena__primera.xml'), 'utf8');
    expect(verifyTicketBai(xml, aCertificadoTbai().certificatePem)).toMatchObject({ valid: false, reason: 'SigningCertificate does not match the signing certificate' });
  });
});

describe('chaining and the identifier from real signatures', () => {
  it('invoice n+1 carries the first 100 characters of invoice n\'s SignatureValue; each idTbai has 39 characters and a valid CRC', () => {
    let anterior: FacturaAnteriorTbai | null = null;
    const firmadas: { signedXml: string; signatureValue: string }[] = [];
    for (let n = 1; n <= 3; n++) {
      const f = aFacturaTbai({ numero: String(n) });
      const s = signTicketBai(alta(f, anterior), firma({ canonicalInput: true }));
      expect(s.signatureValue).toBe(signatureValueDe(s.signedXml));
      const prev = firmadas[firmadas.length - 1];
      if (prev !== undefined) {
        expect(s.signedXml).toContain(`<SignatureValueFirmaFacturaAnterior>${prev.signatureValue.slice(0, 100)}</SignatureValueFirmaFacturaAnterior>`);
        expect(s.signedXml).toContain(`<NumFacturaAnterior>${n - 1}</NumFacturaAnterior>`);
      }
      const id = identificadorTbai({ nif: f.emisor.nif, fechaExpedicion: f.fechaExpedicion, signatureValue: s.signatureValue });
      expect(id).toHaveLength(39);
      expect(id).toBe(`TBAI-B12345674-020326-${s.signatureValue.slice(0, 13)}-${id.slice(36)}`);
      expect(identificadorTbaiValido(id)).toBe(true);
      firmadas.push(s);
      anterior = { serie: f.serie, numero: f.numero, fechaExpedicion: f.fechaExpedicion, signatureValue: s.signatureValue };
    }
  });
});

describe('input guards', () => {
  it('canonicalInput refuses text that is plainly not canonical', () => {
    expect(() => signTicketBai('<T:TicketBai xmlns:T="urn:ticketbai:emision"><Cabecera/></T:TicketBai>', firma({ canonicalInput: true }))).toThrow(/C14N/);
  });
  it('refuses to sign a signed document or malformed XML', () => {
    const { signedXml } = signTicketBai(alta(), firma());
    expect(() => signTicketBai(signedXml, firma())).toThrow(/already signed/);
    expect(() => signTicketBai('<a><b></a>', firma())).toThrow(/well-formed/);
  });
  it('verifyTicketBai names what is wrong', () => {
    const { signedXml } = signTicketBai(alta(), firma());
    expect(verifyTicketBai(signedXml.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')).reason).toMatch(/expected one ds:Signature/);
    expect(verifyTicketBai('<a>').valid).toBe(false);
  });
});
