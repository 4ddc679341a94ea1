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
