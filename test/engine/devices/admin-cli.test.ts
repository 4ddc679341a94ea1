import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { admin } from '../../support/admin-cli';
import { onPostgres } from '../../support/engine';
import { postgresUrlOf } from '../../support/postgres';

describe('npm run admin -- devices phase|list: the service team sets the phase, support staff read the devices', () => {
  it('sets the phase of an issuer for TEST and LIVE, lists it per environment, refuses a bad phase or NIF', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'admin-devices-'));
    // The PostgreSQL project: the data dir names a fresh database, which the command line then uses.
    if (onPostgres()) postgresUrlOf(dataDir);
    const account = (await admin(dataDir, 'account', 'create', '--nif', 'A58818501', '--nombre', 'Tienda SA')) as { id: string };
    for (const entorno of ['test', 'live']) await admin(dataDir, 'issuer', 'add', '--account', account.id, '--entorno', entorno, '--nif', 'A58818501', '--nombre', 'Tienda SA');
    expect(await admin(dataDir, 'devices', 'phase', 'a58818501', 'preparacion')).toMatchObject({
      nif: 'A58818501',
      faseAltaCapacidad: 'preparacion',
      modoCadena: 'unica',
      observandoDesde: expect.any(String),
    });
    expect(await admin(dataDir, 'devices', 'phase', 'A58818501', 'activa')).toMatchObject({ faseAltaCapacidad: 'activa', modoCadena: 'por_dispositivo' });
    const list = (await admin(dataDir, 'devices', 'list', 'A58818501')) as { cuenta: string; entornos: { entorno: string; faseAltaCapacidad: string; dispositivos: unknown[] }[] };
    expect(list.cuenta).toBe(account.id);
    expect(list.entornos.map((e) => [e.entorno, e.faseAltaCapacidad, e.dispositivos])).toEqual([
      ['test', 'activa', []],
      ['live', 'activa', []],
    ]);
    await expect(admin(dataDir, 'devices', 'phase', 'A58818501', 'total')).rejects.toMatchObject({ code: 2 });
    await expect(admin(dataDir, 'devices', 'list', 'B12345674')).rejects.toMatchObject({ code: 2 });
  });
});
