import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import forge from 'node-forge';
import { positiveSerial, rsaKey, selfSignedCa } from '../platform/x509';

/**
 * TLS on the engine's own ports when they listen beyond loopback (issue 30): a certificate and key
 * configured (POS_TLS_CERT / POS_TLS_KEY), or one made once by the engine from a local CA of its
 * own, both kept in `<data dir>/tls` (keys 0600). Tills do not trust the CA: each pins the server
 * certificate's SHA-256 fingerprint (printed in the banner and written in each till's engine.json).
 */
export interface ServerTls {
  cert: string;
  key: string;
  /** `AA:BB:…` (node's X509Certificate.fingerprint256 format). */
  fingerprint256: string;
  /** The engine's own CA certificate (undefined with a configured certificate). */
  caFile?: string;
}

export interface TlsOptions {
  dataDir: string;
  /** Names and addresses the certificate must hold (the LAN names, the listen address). */
  names: readonly string[];
  certFile?: string | undefined;
  keyFile?: string | undefined;
  now: Date;
}

const TLS_DIR = 'tls';

const serial = () => positiveSerial(forge.random.getBytesSync(16));

const days = (date: Date, n: number) => new Date(date.getTime() + n * 86_400_000);

function writeSecret(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

function makeCa(now: Date): { certPem: string; keyPem: string } {
  const { certificatePem, privateKeyPem } = selfSignedCa(rsaKey(), {
    serialNumber: serial(),
    notBefore: days(now, -1),
    notAfter: days(now, 3650),
    name: [
      { shortName: 'O', value: 'TPV Cumple (servidor de tienda)' },
      { shortName: 'CN', value: 'AC local del motor de esta tienda' },
    ],
  });
  return { certPem: certificatePem, keyPem: privateKeyPem };
}

function makeServerCert(ca: { certPem: string; keyPem: string }, names: readonly string[], now: Date): { certPem: string; keyPem: string } {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const key = rsaKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = serial();
  cert.validity.notBefore = days(now, -1);
  // 825 days: what browsers accept for a leaf certificate.
  cert.validity.notAfter = days(now, 825);
  cert.setSubject([{ shortName: 'CN', value: names.find((n) => isIP(n) === 0) ?? names[0] ?? 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) !== 0 ? { type: 7, ip: n } : { type: 2, value: n })) },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(key) };
}

/** The certificate names for a listen address and the LAN names (wildcards are not names). */
export function certificateNames(host: string, allowedHosts: readonly string[]): string[] {
  const strip = (n: string) => n.replace(/^\[|\]$/g, '').toLowerCase();
  const wildcard = ['0.0.0.0', '::', ''].includes(strip(host));
  return [...new Set([...allowedHosts.map(strip), ...(wildcard ? [] : [strip(host)]), 'localhost', '127.0.0.1'])];
}

export function loadServerTls(options: TlsOptions): ServerTls {
  if (options.certFile || options.keyFile) {
    if (!options.certFile || !options.keyFile) throw new Error('POS_TLS_CERT and POS_TLS_KEY go together: set both, or neither (the engine makes its own)');
    let cert: string;
    let key: string;
    try {
      cert = readFileSync(options.certFile, 'utf8');
      key = readFileSync(options.keyFile, 'utf8');
    } catch (error) {
      throw new Error(`the TLS certificate or key cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
    return { cert, key, fingerprint256: new X509Certificate(cert).fingerprint256 };
  }
  const dir = path.join(options.dataDir, TLS_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = path.join(dir, 'ca.pem');
  const caKeyFile = path.join(dir, 'ca-key.pem');
  const certFile = path.join(dir, 'server.pem');
  const keyFile = path.join(dir, 'server-key.pem');
  const namesFile = path.join(dir, 'server-names.json');
  let ca: { certPem: string; keyPem: string };
  if (existsSync(caFile) && existsSync(caKeyFile)) {
    ca = { certPem: readFileSync(caFile, 'utf8'), keyPem: readFileSync(caKeyFile, 'utf8') };
  } else {
    ca = makeCa(options.now);
    writeSecret(caKeyFile, ca.keyPem);
    writeFileSync(caFile, ca.certPem, { mode: 0o644 });
  }
  const wanted = JSON.stringify([...options.names].sort());
  const kept = existsSync(namesFile) ? readFileSync(namesFile, 'utf8') : '';
  let server: { certPem: string; keyPem: string } | undefined;
  if (kept === wanted && existsSync(certFile) && existsSync(keyFile)) {
    const certPem = readFileSync(certFile, 'utf8');
    // Made again a month before it expires.
    if (new Date(new X509Certificate(certPem).validTo).getTime() > days(options.now, 30).getTime()) server = { certPem, keyPem: readFileSync(keyFile, 'utf8') };
  }
  if (!server) {
    // New names (POS_ALLOWED_HOSTS changed) or none yet: a new certificate, so a new fingerprint
    // to pin on every till.
    server = makeServerCert(ca, options.names, options.now);
    writeSecret(keyFile, server.keyPem);
    writeFileSync(certFile, server.certPem, { mode: 0o644 });
    writeFileSync(namesFile, wanted);
  }
  return { cert: server.certPem, key: server.keyPem, fingerprint256: new X509Certificate(server.certPem).fingerprint256, caFile };
}
