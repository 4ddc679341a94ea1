// Signing certificates: import from PKCS#12 (per issuer or per install) and, for TEST installs,
// a generated self-signed RSA-2048 certificate. node-forge reads and writes PKCS#12 (node:crypto
// cannot); node:crypto generates the key (forge's JavaScript RSA key generation takes seconds).
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { positiveSerial } from '../../platform/x509';

export interface CertificadoFirma {
  /** PKCS#8 PEM. */
  privateKeyPem: string;
  /** The certificate whose public key matches the private key. */
  certificatePem: string;
  /** The other certificates of the file (intermediates), in file order. */
  chainPem: string[];
  /** Subject as RFC 4514 (most specific RDN first). */
  subject: string;
  /** The NIF the certificate names (organizationIdentifier VATES-…, else serialNumber IDCES-…), if any. */
  nif?: string;
  notAfter: Date;
}

const OID_SERIAL_NUMBER = '2.5.4.5';
const OID_ORGANIZATION_IDENTIFIER = '2.5.4.97';

function subjectRfc4514(certificatePem: string): string {
  return new X509Certificate(certificatePem).subject.split('\n').reverse().join(',');
}

/** "VATES-B12345674", "IDCES-12345678Z" or a bare NIF → the 9-character NIF. */
function nifDeValor(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toUpperCase().replace(/^[A-Z]{5}-/, '');
  return /^[A-Z0-9]{9}$/.test(v) ? v : undefined;
}

function nifDeCertificado(cert: forge.pki.Certificate): string | undefined {
  const attr = (oid: string) => cert.subject.attributes.find((a) => a.type === oid)?.value;
  // A representative's or seal certificate names the entity in organizationIdentifier: that is
  // the issuer who signs; a personal certificate names the person in serialNumber.
  return nifDeValor(attr(OID_ORGANIZATION_IDENTIFIER)) ?? nifDeValor(attr(OID_SERIAL_NUMBER));
}

function bags(p12: forge.pkcs12.Pkcs12Pfx, bagType: string): forge.pkcs12.Bag[] {
  return p12.getBags({ bagType })[bagType] ?? [];
}

/** Reads a PKCS#12 file: the private key, its certificate and the rest of the chain. */
export function loadPkcs12(buffer: Buffer, password: string): CertificadoFirma {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(buffer.toString('binary')));
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (e) {
    throw new Error(`cannot read the PKCS#12 file (wrong password or unsupported format): ${e instanceof Error ? e.message : String(e)}`);
  }
  const keys = [...bags(p12, forge.pki.oids.pkcs8ShroudedKeyBag ?? ''), ...bags(p12, forge.pki.oids.keyBag ?? '')]
    .map((b) => b.key)
    .filter((k): k is forge.pki.rsa.PrivateKey => k !== undefined && k !== null && 'n' in k);
  const certs = bags(p12, forge.pki.oids.certBag ?? '')
    .map((b) => b.cert)
    .filter((c): c is forge.pki.Certificate => c !== undefined && c !== null);
  for (const key of keys) {
    const leaf = certs.find((c) => {
      const pub = c.publicKey as forge.pki.rsa.PublicKey;
      return pub.n !== undefined && pub.n.equals(key.n) && pub.e.equals(key.e);
    });
    if (leaf === undefined) continue;
    const certificatePem = forge.pki.certificateToPem(leaf);
    const nif = nifDeCertificado(leaf);
    return {
      privateKeyPem: forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key))),
      certificatePem,
      chainPem: certs.filter((c) => c !== leaf).map((c) => forge.pki.certificateToPem(c)),
      subject: subjectRfc4514(certificatePem),
      ...(nif !== undefined ? { nif } : {}),
      notAfter: leaf.validity.notAfter,
    };
  }
  throw new Error('the PKCS#12 file holds no RSA private key with its certificate');
}

export interface GenerateTestCertificateInput {
  nif: string;
  nombre: string;
  /** Start of validity (the certificate lasts two years). */
  now: Date;
  /** Password of the PKCS#12 file; default "ticketbai-test". */
  password?: string | undefined;
}

export interface CertificadoPrueba {
  privateKeyPem: string;
  certificatePem: string;
  /** PKCS#12 (3DES, SHA-1 MAC: readable by every TicketBAI client and by OpenSSL 3). */
  pkcs12: Buffer;
  password: string;
  notAfter: Date;
}

/** Legal persons (CIF letters) are named in organizationIdentifier, as seal certificates do. */
function esPersonaJuridica(nif: string): boolean {
  return /^[ABCDEFGHJNPQRSUVW]/.test(nif);
}

/**
 * A self-signed RSA-2048 certificate for TEST installs (the treasuries' test services accept
 * signatures they cannot chain only with warnings). The serial number is derived from the input.
 */
export function generateTestCertificate(input: GenerateTestCertificateInput): CertificadoPrueba {
  const { nif, nombre, now } = input;
  const password = input.password ?? 'ticketbai-test';
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;

  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  cert.serialNumber = positiveSerial(`${nif}\n${nombre}\n${now.toISOString()}`);
  cert.validity.notBefore = new Date(now.getTime());
  const notAfter = new Date(now.getTime());
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + 2);
  cert.validity.notAfter = notAfter;
  const utf8 = (value: string) => ({ value, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class });
  const attrs: forge.pki.CertificateField[] = [{ shortName: 'C', value: 'ES' }];
  if (esPersonaJuridica(nif)) {
    attrs.push({ shortName: 'O', ...utf8(nombre) }, { type: OID_ORGANIZATION_IDENTIFIER, value: `VATES-${nif}` });
  } else {
    attrs.push({ type: OID_SERIAL_NUMBER, value: `IDCES-${nif}` });
  }
  attrs.push({ shortName: 'CN', ...utf8(`${nombre} (TicketBAI TEST)`) });
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
    { name: 'extKeyUsage', clientAuth: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forgeKey, forge.md.sha256.create());
  const certificatePem = forge.pki.certificateToPem(cert);

  const p12 = forge.pkcs12.toPkcs12Asn1(forgeKey, [cert], password, { algorithm: '3des', friendlyName: nombre, generateLocalKeyId: true });
  const pkcs12 = Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
  return { privateKeyPem, certificatePem, pkcs12, password, notAfter };
}
