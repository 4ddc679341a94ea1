// Migration 20261128T2300Z-modo-sif (issue 32): the mode, its history and the event log, on a
// database that already holds issuers and records (nothing existing changes; every issuer reads
// as `verifactu`).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { expect, it } from 'vitest';
import { SqliteDatabase } from '../../../engine/src/db/database';
import { migrations } from '../../../engine/src/db/migrations';

it('20261128T2300Z-modo-sif adds the mode and event tables, STRICT, with their constraints', async () => {
  const db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'mig-modo-')));
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  expect((await migrator.migrateTo('20261126T0200Z-submission-requests')).error).toBeUndefined();
  const before = db.sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' ORDER BY name").all();
  const result = await migrator.migrateTo('20261128T2300Z-modo-sif');
  expect(result.error).toBeUndefined();
  expect(result.results?.at(-1)?.migrationName).toBe('20261128T2300Z-modo-sif');
  const after = db.sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' ORDER BY name").all() as { name: string; sql: string | null }[];
  // Nothing that existed changed.
  expect(after.filter((r) => (before as { name: string }[]).some((b) => b.name === r.name))).toEqual(before);
  for (const table of ['sif_modos', 'sif_modo_cambios', 'sif_eventos', 'sif_eventos_cabeza']) {
    expect(after.find((r) => r.name === table)?.sql, table).toMatch(/\)\s*STRICT$/);
  }
  const run = (sql: string) => db.sqlite.prepare(sql).run();
  run("INSERT INTO sif_modos VALUES ('test', 'B12345674', 'no_verifactu', 't')");
  expect(() => run("INSERT INTO sif_modos VALUES ('test', 'B12345674', 'verifactu', 't')")).toThrow(/UNIQUE|PRIMARY KEY/);
  expect(() => run("INSERT INTO sif_modos VALUES ('live', 'B12345674', 'otro', 't')")).toThrow(/CHECK/);
  run("INSERT INTO sif_eventos VALUES ('e1', 'test', 'B12345674', 1, '01', 'f', 'H', NULL, '<x/>', 't')");
  expect(() => run("INSERT INTO sif_eventos VALUES ('e2', 'test', 'B12345674', 1, '02', 'f', 'H', NULL, '<x/>', 't')")).toThrow(/UNIQUE/);
  expect(db.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  await db.close();
});
