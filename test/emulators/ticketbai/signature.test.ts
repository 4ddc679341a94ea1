import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLICIES,
  crc8,
  isValidTbaiIdentifier,
  tbaiIdentifier,
  verifyTicketBaiSignature,
} from '../../../engine/emulators/ticketbai/index';
import { verifyWithXmlCrypto } from '../../../engine/emulators/ticketbai/xmldsig';
import { TbaiChain, altaXml, signTicketBai } from './builders';
import { OFFICIAL_1, OFFICIAL_2, OFFICIAL_ANULA_2, official } from './helpers';

describe('independent XAdES verification', () => {
  it.each([OFFICIAL_1, OFFICIAL_2, OFFICIAL_ANULA_2])('verifies the official signed example %s', (f) => {
    const r = verifyTicketBaiSignature(official(f));
    expect(r).toMatchObject({ ok: true, problem: null, policyIdentifier: 'https://www.gipuzkoa.eus/ticketbai/sinadura' });
    expect(r.signingTime).toMatch(/^2024-02-29T/);
  });

  it('fails when any signed byte changes (document, SignedProperties, KeyInfo, SignatureValue)', () => {
    const x = official(OFFICIAL_1);
    const mutations: Array<[string, string]> = [
      ['<NumFactura>1</NumFactura>', '<NumFactura>2</NumFactura>'],
      ['<xades:SigningTime>2024-02-29T11:05:17+01:00', '<xades:SigningTime>2024-02-29T11:05:18+01:00'],
      ['<ds:Exponent>AQAB</ds:Exponent>', '<ds:Exponent>AQAC</ds:Exponent>'],
    ];
    for (const [a, b] of mutations) {
      expect(x.includes(a)).toBe(true);
      expect(verifyTicketBaiSignature(x.replace(a, b)).ok).toBe(false);
    }
    const sv = /<ds:SignatureValue[^>]*>([^<]{20})/.exec(x)![1]!;
    expect(verifyTicketBaiSignature(x.replace(sv, sv.slice(0, 19) + (sv[19] === 'A' ? 'B' : 'A'))).ok).toBe(false);
  });

  it('stock xml-crypto 6 cannot verify the official files (namespace order bug in its C14N): the emulator fixes it', () => {
    const xml = official(OFFICIAL_1);
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const sx = new SignedXml({ getCertFromKeyInfo: SignedXml.getCertFromKeyInfo });
    (sx.CanonicalizationAlgorithms as Record<string, unknown>)['http://www.w3.org/TR/1999/REC-xpath-19991116'] = class {
      process(n: unknown): unknown {
        return n;
      }
      getAlgorithmName(): string {
        return 'http://www.w3.org/TR/1999/REC-xpath-19991116';
      }
    };
    sx.loadSignature(doc.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')[0] as never);
    // If this starts passing, xml-crypto fixed its C14N and FixedC14n can go.
    expect(sx.checkSignature(xml)).toBe(false);
    expect(verifyTicketBaiSignature(xml).ok).toBe(true);
  });

  it('verifies the test signer and rejects missing XAdES pieces and weak algorithms', () => {
    const good = new TbaiChain().next().xml;
    expect(verifyTicketBaiSignature(good).ok).toBe(true);
    expect(verifyTicketBaiSignature(good.replace(/<xades:SigningTime>[^<]*<\/xades:SigningTime>/, '')).problem).toMatch(/SigningTime/);
    expect(verifyTicketBaiSignature(altaXml({ num: '1' })).problem).toMatch(/falta ds:Signature/);
    const sha1 = good.replace('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'http://www.w3.org/2000/09/xmldsig#rsa-sha1');
    expect(verifyTicketBaiSignature(sha1).problem).toMatch(/algoritmo de firma no admitido/);
    expect(verifyTicketBaiSignature(good, []).problem).toMatch(/política de firma no reconocida/);
    expect(verifyTicketBaiSignature(good, DEFAULT_POLICIES).ok).toBe(true);
  });

  it('agrees with xml-crypto’s own checkSignature on valid and tampered files (both transform orders)', () => {
    const c = new TbaiChain();
    const docs = [official(OFFICIAL_1), official(OFFICIAL_2), official(OFFICIAL_ANULA_2), c.next().xml, c.next({ device: 'D' }).xml];
    const variants = docs.flatMap((d) => [
      d,
      d.replace('<NumFactura>', '<NumFactura>9'),
      d.replace('<xades:SigningTime>20', '<xades:SigningTime>21'),
      d.replace('<ds:X509Data>', '<ds:X509Data><!-- c -->'),
      d.replace('</HuellaTBAI>', '</HuellaTBAI>\n'),
    ]);
    for (const v of variants) {
      expect(verifyTicketBaiSignature(v).ok, v.slice(0, 80)).toBe(verifyWithXmlCrypto(v));
    }
    // The originals verify both ways; the content changes fail both ways.
    expect(docs.every((d) => verifyWithXmlCrypto(d) && verifyTicketBaiSignature(d).ok)).toBe(true);
  });

  it('a signature whose document reference lacks the enveloped transform is refused', () => {
    const xml = signTicketBai(altaXml({ num: '3' })).replace(
      '<ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>',
      '',
    );
    expect(verifyTicketBaiSignature(xml).problem).toMatch(/enveloped/);
  });
});

describe('TicketBAI identifier and CRC-8 (FACTS.md official values)', () => {
  it('reproduces the official CRC examples', () => {
    expect(crc8('123456789')).toBe('244');
    expect(crc8('TBAI-00000006Y-251019-btFpwP8dcLGAF-')).toBe('237');
    expect(crc8('https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70')).toBe('007');
    expect(isValidTbaiIdentifier('TBAI-00000006Y-251019-btFpwP8dcLGAF-237')).toBe(true);
    expect(isValidTbaiIdentifier('TBAI-00000006Y-251019-btFpwP8dcLGAF-238')).toBe(false);
  });

  it('builds the identifier from NIF, DDMMAA and the first 13 characters of SignatureValue', () => {
    expect(tbaiIdentifier('00000006Y', '25-10-2019', 'btFpwP8dcLGAFxxxxxxxx')).toBe('TBAI-00000006Y-251019-btFpwP8dcLGAF-237');
    expect(tbaiIdentifier('00000006Y', '31-02-2019', 'btFpwP8dcLGAFxxxxxxxx')).toBeNull();
    expect(tbaiIdentifier('00000006Y', '25-10-2019', 'short')).toBeNull();
  });
});
