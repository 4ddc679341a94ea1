import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';
import { migrations } from '../../../engine/src/db/migrations';

const NAME = '20261125T1400Z-devices';

async function migratedBefore(): Promise<{ db: Database; migrator: Migrator }> {
  const db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'mig-devices-')));
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  const names = Object.keys(migrations).sort();
  expect(names).toContain(NAME);
  expect((await migrator.migrateTo(names[names.indexOf(NAME) - 1] ?? '')).error).toBeUndefined();
  return { db, migrator };
}

const issuer = (id: string, account: string, entorno: string, nif: string, fase: string, at: string) =>
  `INSERT INTO issuers VALUES ('${id}','${account}','${entorno}','${nif}','X','verifactu','activo','pendiente','${fase === 'activa' ? 'por_dispositivo' : 'unica'}','${fase}','${at}','${at}');`;

describe(`${NAME}: the phase moves to one row per (account, NIF) shared by TEST and LIVE`, () => {
  it('keeps the furthest phase of either environment, drops the per-environment columns and stores nothing for no_contratada', async () => {
    const { db, migrator } = await migratedBefore();
    db.sqlite.exec(`
      INSERT INTO accounts VALUES ('a','B12345674','X','basico','activa',1,NULL,NULL,'t');
      ${issuer('i1', 'a', 'test', 'B12345674', 'no_contratada', '2026-11-01T00:00:00.000Z')}
      ${issuer('i2', 'a', 'live', 'B12345674', 'no_contratada', '2026-11-01T00:00:00.000Z')}
      ${issuer('i3', 'a', 'test', '12345678Z', 'preparacion', '2026-11-02T00:00:00.000Z')}
      ${issuer('i4', 'a', 'live', '12345678Z', 'no_contratada', '2026-11-01T00:00:00.000Z')}
      ${issuer('i5', 'a', 'test', 'A58818501', 'preparacion', '2026-11-03T00:00:00.000Z')}
      ${issuer('i6', 'a', 'live', 'A58818501', 'activa', '2026-11-04T00:00:00.000Z')}
    `);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(db.sqlite.prepare('SELECT * FROM issuer_phases ORDER BY nif').all()).toEqual([
      { accountId: 'a', nif: '12345678Z', faseAltaCapacidad: 'preparacion', modoCadena: 'unica', observandoDesde: '2026-11-02T00:00:00.000Z', activacionSolicitadaEn: null, ultimaModificacion: '2026-11-02T00:00:00.000Z' },
      { accountId: 'a', nif: 'A58818501', faseAltaCapacidad: 'activa', modoCadena: 'por_dispositivo', observandoDesde: null, activacionSolicitadaEn: null, ultimaModificacion: '2026-11-04T00:00:00.000Z' },
    ]);
    const columns = (db.sqlite.prepare('PRAGMA table_info(issuers)').all() as { name: string }[]).map((c) => c.name);
    expect(columns).not.toContain('modoCadena');
    expect(columns).not.toContain('faseAltaCapacidad');
    await db.close();
  });

  it('refuses a modoCadena that does not follow the phase', async () => {
    const { db, migrator } = await migratedBefore();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    db.sqlite.exec(`INSERT INTO accounts VALUES ('a','B12345674','X','basico','activa',1,NULL,NULL,'t')`);
    const insert = (fase: string, modo: string) => () =>
      db.sqlite.exec(`INSERT OR REPLACE INTO issuer_phases VALUES ('a','B12345674','${fase}','${modo}',NULL,NULL,'t')`);
    expect(insert('activa', 'unica')).toThrow(/CHECK/);
    expect(insert('preparacion', 'por_dispositivo')).toThrow(/CHECK/);
    expect(insert('activa', 'por_dispositivo')).not.toThrow();
    expect(insert('no_contratada', 'unica')).not.toThrow();
    await db.close();
  });
});

describe(`${NAME}: devices, series and observed identifiers`, () => {
  it('creates STRICT tables keyed per environment and issuer', async () => {
    const { db, migrator } = await migratedBefore();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    for (const table of ['issuer_phases', 'devices', 'device_series', 'device_observations']) {
      const { sql } = db.sqlite.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string };
      expect(sql, table).toMatch(/\)\s*STRICT$/);
    }
    db.sqlite.exec(`INSERT INTO devices VALUES ('test','B12345674','TPV-1','',  't',1,NULL,NULL,NULL)`);
    // The same identifier is another device in the other environment, the same one again is refused.
    expect(() => db.sqlite.exec(`INSERT INTO devices VALUES ('live','B12345674','TPV-1','','t',1,NULL,NULL,NULL)`)).not.toThrow();
    expect(() => db.sqlite.exec(`INSERT INTO devices VALUES ('test','B12345674','TPV-1','','t',1,NULL,NULL,NULL)`)).toThrow(/UNIQUE/);
    // An installation number belongs to one device.
    db.sqlite.exec(`UPDATE devices SET numeroInstalacion = 'inst-1' WHERE entorno = 'test'`);
    expect(() => db.sqlite.exec(`UPDATE devices SET numeroInstalacion = 'inst-1' WHERE entorno = 'live'`)).toThrow(/UNIQUE/);
    // A series has one owner; only __SHARD0__ holds reservations.
    db.sqlite.exec(`INSERT INTO device_series VALUES ('test','B12345674','FC','__SHARD0__','t',1)`);
    expect(() => db.sqlite.exec(`INSERT INTO device_series VALUES ('test','B12345674','FC','TPV-1','t',0)`)).toThrow(/UNIQUE/);
    expect(() => db.sqlite.exec(`INSERT INTO device_series VALUES ('test','B12345674','FR','TPV-1','t',1)`)).toThrow(/CHECK/);
    db.sqlite.exec(`INSERT INTO device_observations VALUES ('test','B12345674','caja-9','t1','t2')`);
    expect(() => db.sqlite.exec(`INSERT INTO device_observations VALUES ('test','B12345674','caja-9','t3','t3')`)).toThrow(/UNIQUE/);
    await db.close();
  });
});
