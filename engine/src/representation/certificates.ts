import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { validateNif } from '../../../src-shared/nif';

/** Who a certificate names, as the representation flow needs it. */
export interface CertIdentity {
  /** Spanish tax IDs found in the subject: the holder's (serialNumber, CN) and, for a
   *  representative-of-entity or seal certificate, the entity's (organizationIdentifier). */
  nifs: string[];
  /** The holder's ID when there is one (the first of `nifs`). */
  nif?: string;
  nombre: string;
  numeroSerie: string;
  emisor: string;
  validoDesde: string;
  validoHasta: string;
}

/** `IDCES-12345678Z`, `VATES-B12345674`, `12345678Z` → the NIF when it is a valid one. */
function nifFrom(value: string): string | undefined {
  const candidate = value.trim().toUpperCase().replace(/^(IDC|VAT|NTR|PAS)[A-Z]{2}-?/, '');
  const check = validateNif(candidate);
  return check.valid ? check.normalized : undefined;
}

function subjectFields(subject: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const line of subject.split('\n')) {
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const key = line.slice(0, at).trim();
    const list = fields.get(key) ?? [];
    list.push(line.slice(at + 1).trim());
    fields.set(key, list);
  }
  return fields;
}

/** Reads the identity of a certificate (DER), the Spanish way: FNMT/qualified naming conventions. */
export function certIdentity(der: Buffer): CertIdentity {
  const x509 = new X509Certificate(der);
  const fields = subjectFields(x509.subject);
  const get = (k: string) => fields.get(k) ?? [];
  const holder: string[] = [];
  for (const v of get('serialNumber')) {
    const n = nifFrom(v);
    if (n) holder.push(n);
  }
  const cn = get('CN')[0] ?? '';
  // FNMT persons: "APELLIDO1 APELLIDO2 NOMBRE - 12345678Z"; representatives: "12345678Z NOMBRE (R: B12345674)".
  for (const m of cn.matchAll(/\b([0-9XYZKLM][0-9]{7}[A-Z]|[A-HJNP-SUVW][0-9]{7}[0-9A-J])\b/g)) {
    const n = nifFrom(m[1] ?? '');
    if (n) holder.push(n);
  }
  const entity: string[] = [];
  for (const v of [...get('organizationIdentifier'), ...get('2.5.4.97')]) {
    const n = nifFrom(v);
    if (n) entity.push(n);
  }
  const nifs = [...new Set([...holder, ...entity])];
  const nombre = cn.replace(/\s+-\s+[0-9A-Z]{9}$/, '').trim() || (get('O')[0] ?? '');
  return {
    nifs,
    ...(nifs[0] ? { nif: nifs[0] } : {}),
    nombre,
    numeroSerie: x509.serialNumber.toUpperCase(),
    emisor: (subjectFields(x509.issuer).get('CN') ?? [x509.issuer.replace(/\n/g, ', ')])[0] ?? '',
    validoDesde: new Date(Date.parse(x509.validFrom)).toISOString(),
    validoHasta: new Date(Date.parse(x509.validTo)).toISOString(),
  };
}

export function forgeCertToDer(cert: forge.pki.Certificate): Buffer {
  return Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
}

export class Pkcs12Error extends Error {
  constructor(
    readonly campo: 'certificado' | 'password',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Opens a PKCS#12 with its password and returns the certificate that matches its private key.
 * The key must be in a shrouded (password-protected) bag, as every real .p12/.pfx has it.
 */
export function openPkcs12(p12: Buffer, password: string): { der: Buffer; identity: CertIdentity; others: Buffer[] } {
  let parsed: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
    parsed = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (error) {
    const message = (error as Error).message;
    if (/password|MAC/i.test(message)) throw new Pkcs12Error('password', 'La contraseña no abre el certificado');
    throw new Pkcs12Error('certificado', 'certificado no es un PKCS#12 (.p12/.pfx) legible');
  }
  const shrouded = forge.pki.oids.pkcs8ShroudedKeyBag as string;
  const certBag = forge.pki.oids.certBag as string;
  const keyBag = parsed.getBags({ bagType: shrouded })[shrouded]?.[0];
  const key = keyBag?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!key) throw new Pkcs12Error('certificado', 'El PKCS#12 no contiene una clave privada RSA protegida');
  const certs: forge.pkcs12.Bag[] = parsed.getBags({ bagType: certBag })[certBag] ?? [];
  const cert = certs
    .map((bag) => bag.cert)
    .find((c): c is forge.pki.Certificate => {
      const pub = c?.publicKey as forge.pki.rsa.PublicKey | undefined;
      return pub !== undefined && pub.n.compareTo(key.n) === 0 && pub.e.compareTo(key.e) === 0;
    });
  if (!cert) throw new Pkcs12Error('certificado', 'El PKCS#12 no contiene el certificado de su clave privada');
  const der = forgeCertToDer(cert);
  // The rest of the bag (the CA chain a .p12 usually carries): candidates for the trust path.
  const others = certs.flatMap((bag) => (bag.cert && bag.cert !== cert ? [forgeCertToDer(bag.cert)] : []));
  return { der, identity: certIdentity(der), others };
}
