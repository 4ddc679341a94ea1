import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../engine/src/config';
import { certificateNames, loadServerTls } from '../../engine/src/core/tls';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tls-config-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('The engine’s TLS configuration', () => {
  it('POS_TLS takes on or auto; anything else (off) is refused at start', () => {
    expect(configFromEnv({ POS_TLS: 'on' }).serverTls).toMatchObject({ mode: 'on' });
    expect(configFromEnv({}).serverTls).toMatchObject({ mode: 'auto' });
    expect(() => configFromEnv({ POS_TLS: 'off' })).toThrow(/POS_TLS must be "on" or "auto"/);
  });

  it('the certificate names: the LAN names and the listen address, never a wildcard, plus loopback', () => {
    expect(certificateNames('0.0.0.0', ['caja-principal.local', '192.168.1.10'])).toEqual(['caja-principal.local', '192.168.1.10', 'localhost', '127.0.0.1']);
    expect(certificateNames('192.168.1.10', [])).toEqual(['192.168.1.10', 'localhost', '127.0.0.1']);
  });

  it('made once and kept; made again when the LAN names change; its names are in the certificate', () => {
    const dataDir = tempDir();
    const now = new Date();
    const first = loadServerTls({ dataDir, names: ['caja-principal.local', '127.0.0.1'], now });
    expect(loadServerTls({ dataDir, names: ['127.0.0.1', 'caja-principal.local'], now }).fingerprint256).toBe(first.fingerprint256);
    const x509 = new X509Certificate(first.cert);
    expect(x509.subjectAltName).toContain('DNS:caja-principal.local');
    expect(x509.subjectAltName).toContain('IP Address:127.0.0.1');
    const renamed = loadServerTls({ dataDir, names: ['caja-2.local', '127.0.0.1'], now });
    expect(renamed.fingerprint256).not.toBe(first.fingerprint256);
    expect(new X509Certificate(renamed.cert).subjectAltName).toContain('DNS:caja-2.local');
  });

  it('a configured certificate and key are used as they are; one without the other is refused', () => {
    const made = loadServerTls({ dataDir: tempDir(), names: ['caja.local'], now: new Date() });
    const dir = tempDir();
    const certFile = path.join(dir, 'server.pem');
    const keyFile = path.join(dir, 'server-key.pem');
    // The made ones, as files an operator would configure.
    writeFileSync(certFile, made.cert);
    writeFileSync(keyFile, made.key);
    const configured = loadServerTls({ dataDir: tempDir(), names: ['x'], certFile, keyFile, now: new Date() });
    expect(configured.fingerprint256).toBe(made.fingerprint256);
    expect(configured.caFile).toBeUndefined();
    expect(() => loadServerTls({ dataDir: tempDir(), names: ['x'], certFile, now: new Date() })).toThrow(/POS_TLS_CERT and POS_TLS_KEY go together/);
    expect(() => loadServerTls({ dataDir: tempDir(), names: ['x'], certFile: path.join(dir, 'missing.pem'), keyFile, now: new Date() })).toThrow(/cannot be read/);
  });
});
