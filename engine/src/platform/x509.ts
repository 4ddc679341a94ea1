// What every certificate the engine makes for itself shares (the engine's TLS CA, the install's
// TEST representation CA, TicketBAI's TEST certificates): an RSA-2048 key, a positive serial
// number, and for a CA its self-signed skeleton.
import { createHash, generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

/** node:crypto generates the key (fast, native); forge signs the certificates. */
export function rsaKey(): forge.pki.rsa.PrivateKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey;
}

/** 16 bytes of SHA-256(`seed`), first bit clear and never zero: a positive INTEGER as RFC 5280 asks. */
export function positiveSerial(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex').slice(0, 32);
  return ((parseInt(h.charAt(0), 16) & 0x7) | 0x1).toString(16) + h.slice(1);
}

/** A CA certificate signed by its own `key` (no intermediate below it: pathLen 0), as PEM with its key. */
export function selfSignedCa(
  key: forge.pki.rsa.PrivateKey,
  ca: { serialNumber: string; notBefore: Date; notAfter: Date; name: forge.pki.CertificateField[] },
): { certificatePem: string; privateKeyPem: string } {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = ca.serialNumber;
  cert.validity.notBefore = ca.notBefore;
  cert.validity.notAfter = ca.notAfter;
  cert.setSubject(ca.name);
  cert.setIssuer(ca.name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(cert), privateKeyPem: forge.pki.privateKeyToPem(key) };
}
