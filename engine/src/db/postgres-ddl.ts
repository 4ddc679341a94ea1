/**
 * The migrations' DDL, written once in SQLite's spelling, in PostgreSQL's: one source for both
 * databases (the migrations are frozen; PostgreSQL replays the same steps). Only the forms the
 * migrations use are rewritten, and a statement this does not recognise runs as written — a
 * migration with a new SQLite-only form fails on PostgreSQL in the tests, never silently.
 *
 * - `STRICT` tables: PostgreSQL's columns are typed already; INTEGER → BIGINT, BLOB → BYTEA,
 *   REAL → DOUBLE PRECISION.
 * - TEXT → TEXT COLLATE "C": text compares and sorts byte by byte, as in SQLite, whatever locale the
 *   database was created with (a server's default is often en_US or es_ES, whose order differs:
 *   'B' < 'a' in SQLite, 'a' < 'B' there). Lists, cursors and MIN/MAX then give the same rows in the
 *   same order on both databases, and no comparison pays for a locale's collation.
 * - SQLite's implicit `rowid` (insertion order, which the outbox and the webhook fan-out read as
 *   commit order): an identity column of that name in every table. Writers hold one lock on
 *   PostgreSQL (postgres.ts, WRITE_LOCK_KEY), so identity order is commit order there too.
 * - Triggers with a body (`BEGIN …; END`): a PL/pgSQL function per trigger, run for each row.
 * - Identifiers are left unquoted, so PostgreSQL stores them folded to lower case; the engine's
 *   queries quote them in lower case and read rows back under their engine names (postgres.ts).
 */
export function sqliteDdlToPostgres(sql: string): string {
  const trigger = /^\s*CREATE TRIGGER (\w+) (AFTER|BEFORE) (INSERT|UPDATE|DELETE) ON (\w+)\s+BEGIN\s+([\s\S]*?);\s*END\s*$/i.exec(sql);
  if (trigger) {
    const [, name, when, event, table, body] = trigger as unknown as [string, string, string, string, string, string];
    return [
      `CREATE OR REPLACE FUNCTION ${name}_fn() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN ${body}; RETURN NULL; END $fn$;`,
      `CREATE TRIGGER ${name} ${when} ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}_fn();`,
    ].join('\n');
  }
  return mapOutsideStrings(sql, (code) =>
    code
      .replace(/\)\s*STRICT\s*$/, ')')
      .replace(/\bINTEGER\b/g, 'BIGINT')
      .replace(/\bBLOB\b/g, 'BYTEA')
      .replace(/\bREAL\b/g, 'DOUBLE PRECISION')
      .replace(/\bTEXT\b/g, 'TEXT COLLATE "C"')
      .replace(/^(\s*CREATE TABLE (?:IF NOT EXISTS )?\w+\s*\()/, '$1rowid BIGINT GENERATED ALWAYS AS IDENTITY, '),
  );
}

/** Applies `rewrite` to the SQL outside its string literals (a CHECK's 'INTEGER' stays as it is). */
function mapOutsideStrings(sql: string, rewrite: (code: string) => string): string {
  const parts = sql.split(/('(?:[^']|'')*')/);
  // Rewriting part by part would cut the anchored patterns (^…, …$): literals are swapped for
  // placeholders, the whole is rewritten, and the literals put back.
  const literals: string[] = [];
  const code = parts.map((part, i) => (i % 2 === 1 ? `\u0000${literals.push(part) - 1}\u0000` : part)).join('');
  return rewrite(code).replace(/\u0000(\d+)\u0000/g, (_, n: string) => literals[Number(n)] ?? '');
}
