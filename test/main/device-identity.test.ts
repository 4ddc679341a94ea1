import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { idMaquina } from '../../src-shared/primitives';
import { IDENTITY_FILE, loadDeviceIdentity } from '../../src-main/device-identity';

vi.mock('electron', () => ({ app: { getPath: vi.fn() } }));

const userData = () => mkdtempSync(path.join(tmpdir(), 'till-userdata-'));

describe('Device identity: a stable till id derived from the installation', () => {
  it('the first start creates it in userData; later starts read the same id', () => {
    const dir = userData();
    const first = loadDeviceIdentity(dir);
    expect(first.idMaquina).toMatch(/^TPV-[0-9A-Z]{12}$/);
    expect(idMaquina.safeParse(first.idMaquina).success).toBe(true);
    for (let i = 0; i < 3; i++) expect(loadDeviceIdentity(dir)).toEqual(first);
    expect(JSON.parse(readFileSync(path.join(dir, IDENTITY_FILE), 'utf8'))).toEqual(first);
    expect(statSync(path.join(dir, IDENTITY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('two installations get two different ids', () => {
    expect(loadDeviceIdentity(userData()).idMaquina).not.toBe(loadDeviceIdentity(userData()).idMaquina);
  });

  it('a damaged file is kept aside for support and a new identity is written (and logged)', () => {
    const dir = userData();
    writeFileSync(path.join(dir, IDENTITY_FILE), '{"version":1,"idMaquina":"<script>"}');
    const warn = vi.fn();
    const identity = loadDeviceIdentity(dir, { warn, now: () => new Date('2026-11-22T10:00:00Z') });
    expect(identity.idMaquina).toMatch(/^TPV-/);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('damaged'));
    expect(readdirSync(dir).sort()).toEqual([IDENTITY_FILE, `${IDENTITY_FILE}.damaged-${Date.parse('2026-11-22T10:00:00Z')}`]);
    expect(loadDeviceIdentity(dir)).toEqual(identity);
  });

  it('is derived from the random source it is given (deterministic in tests)', () => {
    const id = loadDeviceIdentity(userData(), { random: (n) => new Uint8Array(n).fill(1), now: () => new Date(0) });
    expect(id).toEqual({ version: 1, idMaquina: 'TPV-111111111111', creadoEn: '1970-01-01T00:00:00.000Z' });
  });
});
