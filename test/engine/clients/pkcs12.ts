// Test certificates: a PKCS#12 built with node-forge around an RSA key from node:crypto (fast).
// Subjects follow the Spanish conventions the engine reads: serialNumber "IDCES-<NIF>" for the
// holder, organizationIdentifier "VATES-<NIF>" for the entity of a representative's certificate.
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { trustedTestCa } from '../../fixtures/representation-pki';

export interface TestCertOptions {
  cn: string;
  /** Holder's NIF, written as serialNumber IDCES-<nif>. */
  nif?: string;
  /** Entity's NIF, written as organizationIdentifier VATES-<nif>. */
  entidad?: string;
  password?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Self-signed instead of issued by the CA the test engines trust. */
  selfSigned?: boolean;
}

let cachedKey: forge.pki.rsa.PrivateKey | undefined;
function key(): forge.pki.rsa.PrivateKey {
  if (!cachedKey) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    cachedKey = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  }
  return cachedKey;
}

/** A PKCS#12 (base64) with a certificate issued by the trusted test CA (or self-signed) and its key, protected by `password`. */
export function testP12(options: TestCertOptions): string {
  const privateKey = key();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  // A leading 01 keeps the INTEGER positive and minimal whatever the random bytes are. The former
  // `0` + random hex was not DER when the first random byte was 00 (1 in 256): forge signed
  // `00 00 …`, the engine's PKCS#12 reader re-encodes it as `00 …`, and the signature no longer
  // verified ("su emisor … no es una autoridad admitida": the representacion tests' rare 400).
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  cert.validity.notBefore = options.notBefore ?? new Date('2025-01-01T00:00:00Z');
  cert.validity.notAfter = options.notAfter ?? new Date('2029-01-01T00:00:00Z');
  const subject: forge.pki.CertificateField[] = [
    { name: 'countryName', value: 'ES' },
    ...(options.entidad ? [{ type: '2.5.4.97', value: `VATES-${options.entidad}` }] : []),
    ...(options.nif ? [{ type: '2.5.4.5', value: `IDCES-${options.nif}` }] : []),
    { name: 'commonName', value: options.cn },
  ];
  cert.setSubject(subject);
  const ca = options.selfSigned ? undefined : trustedTestCa();
  cert.setIssuer(ca ? ca.cert.subject.attributes : subject);
  cert.sign(ca?.key ?? privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(privateKey, [cert], options.password ?? 'secreta', { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary').toString('base64');
}
