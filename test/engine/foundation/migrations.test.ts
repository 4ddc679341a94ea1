import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../../engine/src/db/database';
import { migrations } from '../../../engine/src/db/migrations';

function schemaOf(db: Database): unknown[] {
  return db.sqlite.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' ORDER BY name").all();
}

describe('Migrations run on an empty database and again on a migrated one without change', () => {
  it('applies every migration once, then nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mig-'));
    const db = Database.open(dir);
    const first = await db.migrate();
    expect(first.results?.map((r) => r.migrationName)).toEqual(Object.keys(migrations).sort());
    const before = schemaOf(db);
    await db.close();
    const again = Database.open(dir);
    const second = await again.migrate();
    expect(second.results).toEqual([]);
    expect(schemaOf(again)).toEqual(before);
    await again.close();
  });

  it('migration names are ISO dates and sort in the order they were written', () => {
    for (const name of Object.keys(migrations)) expect(name).toMatch(/^\d{8}T\d{4}Z-[a-z0-9-]+$/);
  });

  it('tables are STRICT and the database runs WAL with synchronous=FULL and foreign keys', async () => {
    const db = Database.open(mkdtempSync(path.join(tmpdir(), 'mig-')));
    await db.migrate();
    const tables = db.sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type='table' AND name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%'").all() as { name: string; sql: string }[];
    for (const table of tables) expect(table.sql, table.name).toMatch(/\)\s*STRICT$/);
    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    await db.close();
  });
});

describe('20261122T1100Z-foundation', () => {
  it('creates accounts, keys, quota, issuers and declarations that accept a row each', async () => {
    const db = Database.open(mkdtempSync(path.join(tmpdir(), 'mig-')));
    await db.migrate();
    db.sqlite.exec(`
      INSERT INTO accounts VALUES ('a','B12345674','X','basico','activa',1,NULL,NULL,'t');
      INSERT INTO api_keys VALUES ('k','a','test','h','sk_test_',  't',NULL,NULL);
      INSERT INTO quota_usage VALUES ('k','2026-11',3,NULL,NULL);
      INSERT INTO issuers VALUES ('i','a','test','B12345674','X','verifactu','activo','pendiente','unica','no_contratada','t','t');
    `);
    expect(() => db.sqlite.exec(`INSERT INTO api_keys VALUES ('k2','a','prod','h2','p','t',NULL,NULL)`)).toThrow();
    expect(() => db.sqlite.exec(`INSERT INTO issuers VALUES ('i2','a','test','B12345674','Y','verifactu','activo','pendiente','unica','no_contratada','t','t')`)).toThrow(/UNIQUE/);
    await db.close();
  });
});
