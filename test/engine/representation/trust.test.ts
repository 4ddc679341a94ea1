// The trust decision on a representation signer's certificate (engine/src/representation/trust.ts):
// chain to a trusted CA, validity at verification AND signing time, key usage, and the trust store
// read from configuration.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv, resolveConfig } from '../../../engine/src/config';
import { checkSignerTrust, keyUsageOf, loadTrustAnchors, TrustStore, type TrustInput } from '../../../engine/src/representation/trust';
import { makeCa, makeSigner, trustedTestCa, type Pki } from '../../fixtures/representation-pki';

const NOW = new Date('2026-11-20T10:00:00Z');
const REPRESENTANTE = { cn: 'ETXEBERRIA GOIKOETXEA MIKEL - 23456789D', nif: '23456789D' };

const ca = trustedTestCa();
const anchors = [new X509Certificate(ca.pem)];
const input = (signer: Pki, extra: Partial<TrustInput> = {}): TrustInput => ({ signer: signer.der, others: [], now: NOW, signingTime: NOW, ...extra });

describe('checkSignerTrust: the signer must chain to a trusted CA', () => {
  it('a certificate issued by the trusted CA is accepted; the path ends at the CA', () => {
    const verdict = checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: ca })));
    expect(verdict).toEqual({ trusted: true, problems: [], chain: [REPRESENTANTE.cn, 'AC PRUEBAS TPV'], anchored: true });
  });

  it('a stranger’s self-signed certificate with the right NIF is refused, saying it is self-signed', () => {
    const verdict = checkSignerTrust(anchors, input(makeSigner(REPRESENTANTE)));
    expect(verdict.trusted).toBe(false);
    expect(verdict.anchored).toBe(false);
    expect(verdict.problems).toEqual([`El certificado no es de confianza: «${REPRESENTANTE.cn}» es autofirmado y no es una autoridad de certificación admitida`]);
  });

  it('a certificate issued by another CA is refused, naming that CA', () => {
    const other = makeCa({ cn: 'AC DESCONOCIDA' });
    const verdict = checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: other }), { others: [other.der] }));
    expect(verdict.trusted).toBe(false);
    expect(verdict.problems).toEqual(['El certificado no es de confianza: «AC DESCONOCIDA» es autofirmado y no es una autoridad de certificación admitida']);
    // Without the other CA in the bag, the verdict names the issuer the certificate claims.
    const alone = checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: other })));
    expect(alone.problems).toEqual(['El certificado no es de confianza: su emisor «AC DESCONOCIDA» no es una autoridad de certificación admitida']);
  });

  it('an impostor CA with the trusted CA’s very name (another key) is refused: the signature must verify', () => {
    const impostor = makeCa({ cn: 'AC PRUEBAS TPV' });
    const verdict = checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: impostor })));
    expect(verdict.trusted).toBe(false);
    expect(verdict.problems[0]).toMatch(/no es de confianza/);
  });

  it('through an intermediate CA carried with the signature; refused when the intermediate is missing or is no CA', () => {
    const intermediate = makeCa({ cn: 'AC SUBORDINADA', issuer: ca });
    const signer = makeSigner({ ...REPRESENTANTE, issuer: intermediate });
    expect(checkSignerTrust(anchors, input(signer, { others: [intermediate.der] }))).toEqual({
      trusted: true,
      problems: [],
      chain: [REPRESENTANTE.cn, 'AC SUBORDINADA', 'AC PRUEBAS TPV'],
      anchored: true,
    });
    expect(checkSignerTrust(anchors, input(signer)).trusted).toBe(false);
    // An end-entity certificate of the trusted CA cannot issue certificates.
    const notCa = makeCa({ cn: 'NO SOY AC', issuer: ca, ca: false });
    const issuedByLeaf = makeSigner({ ...REPRESENTANTE, issuer: notCa });
    const verdict = checkSignerTrust(anchors, input(issuedByLeaf, { others: [notCa.der] }));
    expect(verdict.trusted).toBe(false);
    expect(verdict.problems).toEqual(['El certificado no es de confianza: su emisor «NO SOY AC» no es una autoridad de certificación admitida']);
  });

  it('a certificate placed in the trust store itself is trusted (pinning)', () => {
    const pinned = makeSigner(REPRESENTANTE);
    expect(checkSignerTrust([new X509Certificate(pinned.der)], input(pinned)).trusted).toBe(true);
  });
});

describe('checkSignerTrust: validity at verification time and at signing time', () => {
  it('an expired certificate is refused', () => {
    const expired = makeSigner({ ...REPRESENTANTE, issuer: ca, notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
    const verdict = checkSignerTrust(anchors, input(expired));
    expect(verdict.trusted).toBe(false);
    expect(verdict.problems).toEqual([
      'El certificado del firmante había caducado en la fecha de verificación (2026-11-20T10:00:00.000Z): fue válido hasta 2021-01-01T00:00:00.000Z',
      'El certificado del firmante había caducado en la fecha de firma (2026-11-20T10:00:00.000Z): fue válido hasta 2021-01-01T00:00:00.000Z',
    ]);
  });

  it('valid when it signed but expired by now: refused (the signer’s claimed time alone is not enough)', () => {
    const signer = makeSigner({ ...REPRESENTANTE, issuer: ca, notAfter: new Date('2026-06-01T00:00:00Z') });
    const verdict = checkSignerTrust(anchors, input(signer, { signingTime: new Date('2026-03-02T10:15:00Z') }));
    expect(verdict.problems).toEqual(['El certificado del firmante había caducado en la fecha de verificación (2026-11-20T10:00:00.000Z): fue válido hasta 2026-06-01T00:00:00.000Z']);
  });

  it('valid now but not yet when it claims to have signed: refused', () => {
    const signer = makeSigner({ ...REPRESENTANTE, issuer: ca, notBefore: new Date('2026-10-01T00:00:00Z') });
    const verdict = checkSignerTrust(anchors, input(signer, { signingTime: new Date('2026-03-02T10:15:00Z') }));
    expect(verdict.problems).toEqual(['El certificado del firmante no era válido en la fecha de firma (2026-03-02T10:15:00.000Z): lo es desde 2026-10-01T00:00:00.000Z']);
  });

  it('a signing time in the future is refused', () => {
    const verdict = checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: ca }), { signingTime: new Date('2026-11-21T10:00:00Z') }));
    expect(verdict.problems).toEqual(['La fecha de firma (2026-11-21T10:00:00.000Z) es posterior a la fecha actual (2026-11-20T10:00:00.000Z)']);
  });

  it('a CA that had expired when the signature was made is refused, naming it', () => {
    const oldCa = makeCa({ cn: 'AC ANTIGUA', notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2026-01-01T00:00:00Z') });
    const signer = makeSigner({ ...REPRESENTANTE, issuer: oldCa, notBefore: new Date('2021-01-01T00:00:00Z'), notAfter: new Date('2029-01-01T00:00:00Z') });
    const verdict = checkSignerTrust([new X509Certificate(oldCa.pem)], input(signer));
    expect(verdict.trusted).toBe(false);
    expect(verdict.problems[0]).toBe('El certificado de la autoridad «AC ANTIGUA» había caducado en la fecha de verificación (2026-11-20T10:00:00.000Z): fue válido hasta 2026-01-01T00:00:00.000Z');
  });
});

describe('checkSignerTrust: key usage', () => {
  it('keyUsage without digitalSignature or nonRepudiation is refused; either one, or no keyUsage at all, is accepted', () => {
    const encipherOnly = makeSigner({ ...REPRESENTANTE, issuer: ca, keyUsage: { keyEncipherment: true } });
    expect(checkSignerTrust(anchors, input(encipherOnly)).problems).toEqual([
      'El certificado no sirve para firmar: su uso de clave (keyUsage) no incluye firma digital ni no repudio',
    ]);
    expect(checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: ca, keyUsage: { nonRepudiation: true } }))).trusted).toBe(true);
    expect(checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: ca, keyUsage: { digitalSignature: true, keyEncipherment: true } }))).trusted).toBe(true);
    expect(checkSignerTrust(anchors, input(makeSigner({ ...REPRESENTANTE, issuer: ca, keyUsage: null }))).trusted).toBe(true);
  });

  it('keyUsageOf reads the bits from the DER', () => {
    expect(keyUsageOf(makeSigner({ ...REPRESENTANTE, keyUsage: { digitalSignature: true } }).der)).toEqual({ digitalSignature: true, nonRepudiation: false, keyCertSign: false });
    expect(keyUsageOf(ca.der)).toEqual({ digitalSignature: false, nonRepudiation: false, keyCertSign: true });
    expect(keyUsageOf(makeSigner({ ...REPRESENTANTE, keyUsage: null }).der)).toBeUndefined();
  });
});

describe('the trust store from configuration', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rep-cas-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const other = makeCa({ cn: 'AC OTRA' });

  it('entries are PEM text, PEM bundles, DER files or folders of them', () => {
    writeFileSync(path.join(dir, 'bundle.pem'), `${ca.pem}\n${other.pem}`);
    writeFileSync(path.join(dir, 'other.cer'), other.der);
    writeFileSync(path.join(dir, 'README.txt'), 'not a certificate');
    const subjects = (entries: string[]) => loadTrustAnchors(entries).map((c) => /CN=(.*)/.exec(c.subject)?.[1]);
    expect(subjects([ca.pem])).toEqual(['AC PRUEBAS TPV']);
    expect(subjects([path.join(dir, 'bundle.pem')])).toEqual(['AC PRUEBAS TPV', 'AC OTRA']);
    expect(subjects([path.join(dir, 'other.cer')])).toEqual(['AC OTRA']);
    expect(subjects([dir])).toEqual(['AC PRUEBAS TPV', 'AC OTRA', 'AC OTRA']);
    expect(subjects([])).toEqual([]);
  });

  it('a missing or unreadable entry stops the start-up, naming it', () => {
    expect(() => loadTrustAnchors([path.join(dir, 'missing.pem')])).toThrow(/representacionCas: no se puede leer .*missing\.pem/);
    const broken = path.join(dir, 'broken.pem');
    writeFileSync(broken, 'not a certificate');
    expect(() => loadTrustAnchors([broken])).toThrow(/broken\.pem: no es un certificado X\.509 legible/);
  });

  it('POS_REPRESENTACION_CAS lists paths like PATH; none configured means none trusted', () => {
    const env = { POS_REPRESENTACION_CAS: ['/etc/cas/fnmt.pem', '', '/etc/cas/otras'].join(path.delimiter) };
    expect(configFromEnv(env).representacionCas).toEqual(['/etc/cas/fnmt.pem', '/etc/cas/otras']);
    expect(configFromEnv({}).representacionCas).toEqual([]);
    expect(resolveConfig({ dataDir: dir }).representacionCas).toEqual([]);
  });

  it('the install’s test CA is an anchor in TEST only', () => {
    const testCa = new X509Certificate(other.pem);
    const store = new TrustStore(anchors, () => testCa);
    expect(store.anchors('test')).toHaveLength(2);
    expect(store.anchors('live')).toHaveLength(1);
    const signer = makeSigner({ ...REPRESENTANTE, issuer: other });
    expect(store.check('test', input(signer)).trusted).toBe(true);
    expect(store.check('live', input(signer)).trusted).toBe(false);
  });
});
