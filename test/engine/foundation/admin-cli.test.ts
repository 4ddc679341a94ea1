import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTestEngine } from '../../support/engine';
import { admin } from '../../support/admin-cli';

describe('npm run admin: accounts, keys, plans, billing state and the declaration', () => {
  it('creates an account and keys, changes plan and billing, rotates and revokes, publishes the declaration', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'admin-'));
    const account = (await admin(dataDir, 'account', 'create', '--nif', 'A58818501', '--nombre', 'Tienda SA', '--plan', 'profesional')) as { id: string };
    const live = (await admin(dataDir, 'key', 'create', '--account', account.id, '--entorno', 'live')) as { id: string; key: string };
    expect(live.key).toMatch(/^sk_live_/);
    await admin(dataDir, 'account', 'set', '--account', account.id, '--estado', 'pago_pendiente', '--facturacion', 'off', '--plan', 'empresa');
    const rotated = (await admin(dataDir, 'key', 'rotate', '--key', live.id)) as { id: string; key: string };
    const published = (await admin(dataDir, 'declaration', 'publish')) as { key: string; version: number };
    expect(published).toMatchObject({ key: 'cumplimiento/declaracion-responsable.pdf', version: 1 });
    const keys = (await admin(dataDir, 'key', 'list', '--account', account.id)) as Record<string, unknown>[];
    expect(keys).toHaveLength(2);
    expect(JSON.stringify(keys)).not.toContain('keyHash');

    // The engine on the same data dir sees what the command line wrote.
    const t = await makeTestEngine({ dataDir, seed: false });
    const old = await t.billing('GET', '/v1/cuenta', { key: live.key });
    expect(old.statusCode).toBe(403);
    const cuenta = await t.billing('GET', '/v1/cuenta', { key: rotated.key });
    expect(cuenta.json()).toMatchObject({ entorno: 'live', plan: 'empresa', estadoCuenta: 'pago_pendiente', facturacionActiva: false, nifClientePrincipal: 'A58818501' });
    const declaracion = await t.manage('GET', '/v1/cumplimiento/declaracion-responsable', { key: rotated.key });
    expect(declaracion.statusCode).toBe(200);
    await admin(dataDir, 'key', 'revoke', '--key', rotated.id);
    expect((await t.billing('GET', '/v1/cuenta', { key: rotated.key })).statusCode).toBe(403);
    await t.close();
  });

  it('refuses an unknown plan or command with exit code 2', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'admin-'));
    await expect(admin(dataDir, 'account', 'create', '--nif', 'A58818501', '--nombre', 'X', '--plan', 'oro')).rejects.toMatchObject({ code: 2 });
    await expect(admin(dataDir, 'frobnicate', 'now')).rejects.toMatchObject({ code: 2 });
    await expect(admin(dataDir, 'account', 'create', '--nif', 'A58818502', '--nombre', 'X')).rejects.toMatchObject({ code: 2 });
  });
});
