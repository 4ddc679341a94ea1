// `npm run admin` with POS_DATABASE_URL: every kind of command (accounts, keys, issuers, devices,
// tills, NO VERI*FACTU's mode, anomalías and export, the declaration) runs on the PostgreSQL
// database the engine's nodes share, and a node on it sees what it wrote; the data dir gets no
// SQLite file. (verify-chains on PostgreSQL: test/engine/verification/.)
// Runs on the run's PostgreSQL cluster in every project (test/support/postgres-cluster.ts).
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminWith } from '../../support/admin-cli';
import { makeTestEngine } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';

describe('npm run admin on PostgreSQL (POS_DATABASE_URL)', () => {
  it('accounts, keys, issuers, devices, tills, NO VERI*FACTU and the declaration: written to the database a node reads', async () => {
    const databaseUrl = freshPostgresUrl();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'admin-pg-'));
    const admin = (...args: string[]) => adminWith({ POS_DATA_DIR: dataDir, POS_DATABASE_URL: databaseUrl }, ...args);

    const account = (await admin('account', 'create', '--nif', 'A58818501', '--nombre', 'Tienda SA', '--plan', 'profesional')) as { id: string };
    const live = (await admin('key', 'create', '--account', account.id, '--entorno', 'live')) as { id: string; key: string };
    expect(live.key).toMatch(/^sk_live_/);
    await admin('account', 'set', '--account', account.id, '--estado', 'pago_pendiente', '--facturacion', 'off', '--plan', 'empresa');
    const rotated = (await admin('key', 'rotate', '--key', live.id)) as { id: string; key: string };
    expect(await admin('key', 'list', '--account', account.id)).toHaveLength(2);
    expect(await admin('account', 'list')).toEqual([expect.objectContaining({ id: account.id, nif: 'A58818501', plan: 'empresa' })]);
    for (const entorno of ['test', 'live']) await admin('issuer', 'add', '--account', account.id, '--entorno', entorno, '--nif', 'A58818501', '--nombre', 'Tienda SA');
    expect(await admin('devices', 'phase', 'A58818501', 'preparacion')).toMatchObject({ faseAltaCapacidad: 'preparacion' });
    const devices = (await admin('devices', 'list', 'A58818501')) as { entornos: { entorno: string; faseAltaCapacidad: string }[] };
    expect(devices.entornos.map((e) => e.faseAltaCapacidad)).toEqual(['preparacion', 'preparacion']);
    const till = (await admin('till', 'add', 'A58818501', 'Caja 2', 'caja-2')) as Record<string, unknown>;
    expect(JSON.stringify(till)).toContain('caja-2');
    expect(await admin('till', 'list', 'A58818501')).toEqual([expect.objectContaining({ idMaquina: 'caja-2' })]);
    expect(await admin('till', 'revoke', 'A58818501', 'caja-2')).toEqual({ idMaquina: 'caja-2', revocada: true });
    expect(await admin('issuer', 'mode', 'A58818501', 'verifactu', '--entorno', 'test')).toMatchObject({ modoSif: 'verifactu' });
    const anomalias = (await admin('anomalias', 'A58818501', '--entorno', 'test')) as { anomalias: unknown[] };
    expect(anomalias.anomalias).toEqual([]);
    await expect(admin('exportar', 'A58818501', '--desde', '2026-01-01T00:00:00+01:00', '--hasta', '2026-01-31T23:59:59+01:00')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('NOT_FOUND'),
    });
    expect(await admin('declaration', 'publish')).toMatchObject({ key: 'cumplimiento/declaracion-responsable.pdf', version: 1 });
    expect(await admin('declaration', 'show')).toMatchObject({ version: 1 });
    // Refusals answer as on SQLite: exit 2 for a bad option.
    await expect(admin('account', 'create', '--nif', 'A58818502', '--nombre', 'X', '--plan', 'oro')).rejects.toMatchObject({ code: 2 });
    // The engine's own copies are a till's SQLite file: PostgreSQL's are the database's tools.
    await expect(admin('copia', 'crear')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('pg_dump') });

    // Nothing went to the data dir's SQLite file: it was never created.
    expect(existsSync(path.join(dataDir, 'engine.sqlite'))).toBe(false);

    // A node on the same database sees what the command line wrote, and the next revocation at once.
    const t = await makeTestEngine({ databaseUrl, seed: false });
    expect((await t.billing('GET', '/v1/cuenta', { key: live.key })).statusCode).toBe(403);
    const cuenta = await t.billing('GET', '/v1/cuenta', { key: rotated.key });
    expect(cuenta.json()).toMatchObject({ entorno: 'live', plan: 'empresa', estadoCuenta: 'pago_pendiente', facturacionActiva: false, nifClientePrincipal: 'A58818501' });
    expect((await t.manage('GET', '/v1/cumplimiento/declaracion-responsable', { key: rotated.key })).statusCode).toBe(200);
    await admin('key', 'revoke', '--key', rotated.id);
    expect((await t.billing('GET', '/v1/cuenta', { key: rotated.key })).statusCode).toBe(403);
    await t.close();
    // About twenty command-line runs, each a process loading the engine: minutes on a loaded CI machine.
  }, 180_000);
});
