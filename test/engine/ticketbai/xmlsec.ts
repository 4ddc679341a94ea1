// Independent signature check with Debian's xmlsec1 (libxml2 + OpenSSL), as the treasuries'
// verifiers work. XAdES references point at SignedProperties and KeyInfo by their Id attribute,
// which xmlsec1 only resolves for the elements named with --id-attr; the certificate in KeyInfo
// is checked against the test certificate given as trusted, at the signing time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Xmlsec1Result {
  ok: boolean;
  output: string;
}

export function xmlsec1Verify(signedXml: string, certificatePem: string, verificationTime: Date): Xmlsec1Result {
  const dir = mkdtempSync(path.join(tmpdir(), 'tbai-xmlsec-'));
  try {
    const xmlFile = path.join(dir, 'signed.xml');
    const certFile = path.join(dir, 'cert.pem');
    writeFileSync(xmlFile, signedXml);
    writeFileSync(certFile, certificatePem);
    const r = spawnSync(
      'xmlsec1',
      [
        '--verify',
        '--trusted-pem', certFile,
        '--verification-time', verificationTime.toISOString().slice(0, 19).replace('T', ' '),
        '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
        '--id-attr:Id', 'http://www.w3.org/2000/09/xmldsig#:KeyInfo',
        xmlFile,
      ],
      { encoding: 'utf8' },
    );
    if (r.error !== undefined) throw r.error;
    return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
