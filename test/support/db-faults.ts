import type { Database } from '../../engine/src/db/database';

/**
 * A trigger that makes every insert into `table` matching `condition` (SQL over `NEW.*`, valid on
 * both databases) fail with a real database error: SQLite's RAISE(ABORT) or PostgreSQL's RAISE
 * EXCEPTION from a PL/pgSQL trigger function. Returns what removes it again.
 */
export function refuseInserts(db: Database, table: string, message: string, condition = 'true'): () => void {
  const name = `refuse_${table}_${Math.random().toString(36).slice(2, 8)}`;
  if (db.dialect === 'sqlite') {
    db.statement(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} WHEN ${condition} BEGIN SELECT RAISE(ABORT, '${message}'); END`).run();
    return () => void db.statement(`DROP TRIGGER ${name}`).run();
  }
  db.statement(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF ${condition} THEN RAISE EXCEPTION '${message}'; END IF; RETURN NEW; END $$`,
  ).run();
  db.statement(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`).run();
  return () => {
    db.statement(`DROP TRIGGER ${name} ON ${table}`).run();
    db.statement(`DROP FUNCTION ${name}()`).run();
  };
}

/**
 * Renames a table under the running engine (a table that cannot be read). SQLite's schema_version
 * moves with it, which the read caches count as a new generation; PostgreSQL's probe counts
 * migrations only, so there the read-cache generation is bumped too, as any committed write would.
 */
export function renameTable(db: Database, from: string, to: string): void {
  db.statement(`ALTER TABLE ${from} RENAME TO ${to}`).run();
  if (db.dialect === 'postgres') db.statement('UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1').run();
}

/**
 * Runs `fn` (statements on `db`'s connection) with foreign keys unchecked, e.g. to write a chain head
 * without its record: SQLite's foreign_keys pragma; PostgreSQL's replica role, which also skips
 * triggers (none of the tables these tests write directly has one).
 */
export function withoutForeignKeys(db: Database, fn: () => void): void {
  const [off, on] =
    db.dialect === 'sqlite' ? ['PRAGMA foreign_keys = OFF', 'PRAGMA foreign_keys = ON'] : ['SET session_replication_role = replica', 'SET session_replication_role = origin'];
  db.statement(off).run();
  try {
    fn();
  } finally {
    db.statement(on).run();
  }
}
