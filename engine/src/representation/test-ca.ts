import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import type { Database } from '../db/database';
import { installValue, settingValue } from '../db/settings';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import { positiveSerial, rsaKey, selfSignedCa } from '../platform/x509';
import { validateNif } from '../../../src-shared/nif';

// The install's TEST certification authority: created once per install (kept in `settings`),
// trusted for TEST representation signatures only, so the demo flow can sign without a real
// qualified certificate. Its key never leaves the database.

const SETTING = 'representacionTestCa';
const OID_SERIAL_NUMBER = '2.5.4.5';
const OID_ORGANIZATION_IDENTIFIER = '2.5.4.97';

interface CaMaterial {
  certificatePem: string;
  privateKeyPem: string;
}

const utf8 = (value: string) => ({ value, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class });

const addYears = (date: Date, years: number) => {
  const d = new Date(date.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
};

export interface IssuedTestCertificate {
  /** PKCS#12 with the key, the certificate and the CA's, protected by the password given. */
  pkcs12: Buffer;
  certificatePem: string;
}

export class InstallTestCa {
  private cached: { material: CaMaterial; x509: X509Certificate } | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * The CA when it exists. Verifying never creates it: until a test certificate is issued,
   * nothing can chain to it.
   */
  existing(): X509Certificate | undefined {
    if (this.cached) return this.cached.x509;
    const value = settingValue(this.db, SETTING);
    return value !== undefined ? this.remember(JSON.parse(value) as CaMaterial).x509 : undefined;
  }

  private material(): CaMaterial {
    if (this.cached) return this.cached.material;
    const value = installValue(this.db, SETTING, () => JSON.stringify(this.createCa()));
    return this.remember(JSON.parse(value) as CaMaterial).material;
  }

  private remember(material: CaMaterial) {
    this.cached = { material, x509: new X509Certificate(material.certificatePem) };
    return this.cached;
  }

  private createCa(): CaMaterial {
    const now = this.clock.now();
    return selfSignedCa(rsaKey(), {
      serialNumber: positiveSerial(this.ids.next('ca')),
      notBefore: now,
      notAfter: addYears(now, 20),
      name: [
        { shortName: 'C', value: 'ES' },
        { shortName: 'O', value: 'TPV Cumple (instalacion de pruebas)' },
        { shortName: 'CN', value: 'AC de PRUEBAS de esta instalacion - representacion TEST' },
      ],
    });
  }

  /**
   * A TEST signature certificate for `nif`, named the Spanish way (serialNumber IDCES-<NIF> for a
   * person, organizationIdentifier VATES-<NIF> for an entity), valid two years from now.
   */
  issue(input: { nif: string; nombre: string; password: string }): IssuedTestCertificate {
    const ca = this.material();
    const caCert = forge.pki.certificateFromPem(ca.certificatePem);
    const caKey = forge.pki.privateKeyFromPem(ca.privateKeyPem);
    const key = rsaKey();
    const now = this.clock.now();
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    cert.serialNumber = positiveSerial(this.ids.next('cert'));
    cert.validity.notBefore = now;
    const twoYears = addYears(now, 2);
    cert.validity.notAfter = twoYears < caCert.validity.notAfter ? twoYears : caCert.validity.notAfter;
    const check = validateNif(input.nif);
    if (!check.valid) throw new Error(`NIF no válido para un certificado de pruebas: ${check.reason}`);
    const nif = check.normalized;
    const entity = check.kind === 'cif';
    cert.setSubject([
      { shortName: 'C', value: 'ES' },
      ...(entity
        ? [{ shortName: 'O', ...utf8(input.nombre) }, { type: OID_ORGANIZATION_IDENTIFIER, value: `VATES-${nif}` }]
        : [{ type: OID_SERIAL_NUMBER, value: `IDCES-${nif}` }]),
      { shortName: 'CN', ...utf8(entity ? input.nombre : `${input.nombre} - ${nif}`) },
    ]);
    cert.setIssuer(caCert.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    cert.sign(caKey, forge.md.sha256.create());
    const p12 = forge.pkcs12.toPkcs12Asn1(key, [cert, caCert], input.password, { algorithm: '3des', friendlyName: input.nombre });
    return { pkcs12: Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'), certificatePem: forge.pki.certificateToPem(cert) };
  }
}
