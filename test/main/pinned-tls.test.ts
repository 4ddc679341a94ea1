import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServerTls } from '../../engine/src/core/tls';
import { normalizeFingerprint, pinnedCertificateVerifier } from '../../src-main/pinned-tls';

describe('The till window trusts the shared engine’s certificate by its pinned fingerprint only', () => {
  const tls = loadServerTls({ dataDir: mkdtempSync(path.join(tmpdir(), 'pin-')), names: ['caja-principal.local'], now: new Date() });
  const other = loadServerTls({ dataDir: mkdtempSync(path.join(tmpdir(), 'pin-other-')), names: ['caja-principal.local'], now: new Date() });
  const verdict = (verify: ReturnType<typeof pinnedCertificateVerifier>, hostname: string, data: string) =>
    new Promise<number>((resolve) => verify({ hostname, certificate: { data } }, resolve));

  it('the pinned certificate on the engine’s host: accepted (0); another one, even from the same names: refused (-2)', async () => {
    const verify = pinnedCertificateVerifier('caja-principal.local', tls.fingerprint256.toLowerCase());
    expect(await verdict(verify, 'caja-principal.local', tls.cert)).toBe(0);
    expect(await verdict(verify, 'CAJA-PRINCIPAL.LOCAL', tls.cert)).toBe(0);
    expect(await verdict(verify, 'caja-principal.local', other.cert)).toBe(-2);
    expect(await verdict(verify, 'caja-principal.local', 'not a certificate')).toBe(-2);
  });

  it('other hosts keep Chromium’s own verdict (-3)', async () => {
    const verify = pinnedCertificateVerifier('caja-principal.local', tls.fingerprint256);
    expect(await verdict(verify, 'example.org', other.cert)).toBe(-3);
  });

  it('fingerprints compare in one form', () => {
    expect(normalizeFingerprint('ab:cd:ef')).toBe('AB:CD:EF');
    expect(normalizeFingerprint('ABCDEF')).toBe('AB:CD:EF');
  });
});
