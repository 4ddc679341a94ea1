import { execFileSync } from 'node:child_process';
import { createPublicKey, sign, verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTestCertificate, loadPkcs12 } from '../../../engine/src/regimes/ticketbai/certificados';
import { aCertificadoTbai, EMISOR_TBAI } from './fixtures';

describe('generateTestCertificate: self-signed RSA-2048 for TEST installs', () => {
  it('certificate, key and PKCS#12 belong together; two years of validity; the NIF is named', () => {
    const c = aCertificadoTbai();
    const x509 = new X509Certificate(c.certificatePem);
    expect(x509.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(x509.issuer).toBe(x509.subject);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.validFrom).toBe('Jan  1 00:00:00 2026 GMT');
    expect(c.notAfter.toISOString()).toBe('2028-01-01T00:00:00.000Z');
    expect(x509.subject).toContain('organizationIdentifier=VATES-B12345674');
    expect(x509.subject).toContain('O=Ferretería López & Hijos\\, S.L.');
    const firma = sign('sha256', Buffer.from('x'), c.privateKeyPem);
    expect(verify('sha256', Buffer.from('x'), createPublicKey(c.certificatePem), firma)).toBe(true);
  });

  it('the serial number is derived from the input (deterministic), positive', () => {
    const now = new Date('2026-05-01T00:00:00Z');
    const a = new X509Certificate(generateTestCertificate({ nif: '12345678Z', nombre: 'Ane Etxeberria', now }).certificatePem);
    const b = new X509Certificate(generateTestCertificate({ nif: '12345678Z', nombre: 'Ane Etxeberria', now }).certificatePem);
    expect(a.serialNumber).toBe(b.serialNumber);
    expect(a.subject).toContain('serialNumber=IDCES-12345678Z');
    expect(parseInt(a.serialNumber.charAt(0), 16)).toBeLessThan(8);
  });
});

describe('loadPkcs12', () => {
  it('reads the generated file: key, certificate, subject, NIF, notAfter', () => {
    const c = aCertificadoTbai();
    const l = loadPkcs12(c.pkcs12, c.password);
    expect(l.certificatePem.replace(/\r/g, '')).toBe(c.certificatePem.replace(/\r/g, ''));
    expect(l.nif).toBe(EMISOR_TBAI.nif);
    expect(l.subject).toMatch(/^CN=Ferretería López & Hijos\\, S\.L\. \(TicketBAI TEST\),organizationIdentifier=VATES-B12345674,/);
    expect(l.notAfter.toISOString()).toBe('2028-01-01T00:00:00.000Z');
    expect(l.chainPem).toEqual([]);
    const firma = sign('sha256', Buffer.from('y'), l.privateKeyPem);
    expect(verify('sha256', Buffer.from('y'), createPublicKey(l.certificatePem), firma)).toBe(true);
  });

  it('a wrong password is an error that says so', () => {
    expect(() => loadPkcs12(aCertificadoTbai().pkcs12, 'wrong')).toThrow(/PKCS#12/);
  });

  it('reads an OpenSSL 3 file (AES-256, PBKDF2, SHA-256 MAC) with a CA chain, and finds the leaf by its key', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tbai-p12-'));
    try {
      const c = aCertificadoTbai();
      const other = generateTestCertificate({ nif: 'A11111111', nombre: 'CA de pruebas', now: new Date('2026-01-01T00:00:00Z') });
      writeFileSync(path.join(dir, 'key.pem'), c.privateKeyPem);
      writeFileSync(path.join(dir, 'cert.pem'), c.certificatePem);
      writeFileSync(path.join(dir, 'ca.pem'), other.certificatePem);
      // The CA first, so the leaf is not simply the first certificate of the file.
      execFileSync('openssl', ['pkcs12', '-export', '-inkey', 'key.pem', '-in', 'cert.pem', '-certfile', 'ca.pem', '-passout', 'pass:secreto', '-out', 'f.p12'], { cwd: dir });
      const l = loadPkcs12(readFileSync(path.join(dir, 'f.p12')), 'secreto');
      expect(new X509Certificate(l.certificatePem).fingerprint256).toBe(new X509Certificate(c.certificatePem).fingerprint256);
      expect(l.chainPem).toHaveLength(1);
      expect(new X509Certificate(l.chainPem[0] ?? '').subject).toContain('CA de pruebas');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
