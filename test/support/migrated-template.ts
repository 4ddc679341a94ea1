/**
 * vitest globalSetup, after run-tmpdir.ts: one database migrated once per run, which the tests
 * copy into each new data dir (`migratedDataDir` in engine.ts) instead of migrating again. A
 * migration runs each DDL statement as its own fsynced commit (SQLite's DDL is not transactional
 * in kysely's migrator): ≈ 0.5–1 s per new database on the shared CI machine, against a file copy.
 * The template is made by the engine's own Database.migrate, so the copy is the very file a first
 * start would make; the engine still runs `migrate()` on it, which finds nothing left to apply.
 * test/engine/foundation/migrations.test.ts keeps migrating empty databases.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteDatabase } from '../../engine/src/db/database';

/** The environment variable through which the tests (and the engine processes they spawn) find the template. */
export const MIGRATED_TEMPLATE = 'VITEST_MIGRATED_TEMPLATE';

export default async function setup(): Promise<() => void> {
  // The root config and each project (test.projects) run the global setups: the first one wins.
  if (process.env[MIGRATED_TEMPLATE] !== undefined) return () => {};
  const dir = path.join(tmpdir(), 'migrated-template');
  mkdirSync(dir, { recursive: true });
  const db = SqliteDatabase.open(dir);
  await db.migrate();
  // Closing the last connection checkpoints the WAL into the file and removes it: one file to copy.
  await db.close();
  process.env[MIGRATED_TEMPLATE] = db.file;
  return () => {
    delete process.env[MIGRATED_TEMPLATE];
  };
}
