// Every table's SQL lives in a store (issue 26, docs/architecture.md §2): services, workers, routes
// and the admin CLI call store methods, and SQLite's own SQL stays in the SQLite implementations,
// so that a second implementation on PostgreSQL (issue 27) replaces stores, not business code.
// Checked here over the text of engine/src: a direct query outside a store module, or SQLite-only
// SQL outside db/ and the `*.sqlite.ts` files, fails with the file and line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { linesBreaking, root, sourceFiles } from './source-scan';

/** What only the SQLite side may hold: SQLite's own SQL and the better-sqlite3 connection itself. */
const SQLITE_ONLY: readonly [RegExp, string][] = [
  [/\bjson_each\b/i, 'json_each'],
  [/\browid\b/i, 'rowid'],
  [/\bINSERT\s+OR\b/i, 'INSERT OR'],
  [/\.pragma\(|\bPRAGMA\b/i, 'pragma'],
  [/\.sqlite\./, 'the better-sqlite3 connection (db.sqlite)'],
  [/\bsqlite\.prepare\(/, 'sqlite.prepare'],
];

/** What only a store (or db/) may hold: a query built or run. */
const QUERY: readonly [RegExp, string][] = [
  [/\.kysely\b/, 'db.kysely'],
  [/\b(?:selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(/, 'a kysely query'],
  [/\bdb\.(?:run|all|first|prepare)\(/, 'a query run on the database'],
  [/\bsql\s*(?:<[^>]*>)?\s*`/, 'raw SQL (a sql template)'],
];

/** db/ (the database seam) and the SQLite implementations of the stores. */
export function isSqliteSide(file: string): boolean {
  return file.startsWith('engine/src/db/') || file.endsWith('.sqlite.ts');
}

/** A store module: `store.ts` or `<something>-store.ts` in its capability's folder. */
export function isStore(file: string): boolean {
  return isSqliteSide(file) || /(?:^|\/)(?:[\w-]+-)?store\.ts$/.test(file);
}

/** The lines of `source` (named `file`) that break the rule, as `file:line: what`. */
export function sqlOutsideStores(file: string, source: string): string[] {
  if (isSqliteSide(file)) return [];
  return linesBreaking(file, source, isStore(file) ? SQLITE_ONLY : [...SQLITE_ONLY, ...QUERY]);
}

describe('SQL stays in the stores, SQLite-only SQL in the SQLite implementations', () => {
  it('the check fails on a direct query outside a store and on SQLite-only SQL outside the SQLite side', () => {
    const service = 'engine/src/no-verifactu/modo.ts';
    expect(sqlOutsideStores(service, "const r = db.first(db.kysely.selectFrom('sif_modos').selectAll());")).toEqual([
      `${service}:1: db.kysely`,
      `${service}:1: a kysely query`,
      `${service}:1: a query run on the database`,
    ]);
    expect(sqlOutsideStores(service, 'x\n  if (this.db.sqlite.inTransaction) return;')).toEqual([`${service}:2: the better-sqlite3 connection (db.sqlite)`]);
    expect(sqlOutsideStores(service, 'const n = sql<number>`count(*)`;')).toEqual([`${service}:1: raw SQL (a sql template)`]);
    // A store may build queries, but not SQLite's own SQL.
    const store = 'engine/src/devices/till-credentials-store.ts';
    expect(isStore(store)).toBe(true);
    expect(sqlOutsideStores(store, "db.all(db.kysely.selectFrom('till_credentials').selectAll());")).toEqual([]);
    expect(sqlOutsideStores(store, "db.run(sql`INSERT OR IGNORE INTO t SELECT value FROM json_each(${ids})`);")).toEqual([
      `${store}:1: json_each`,
      `${store}:1: INSERT OR`,
    ]);
    expect(sqlOutsideStores(store, "this.db.sqlite.prepare('SELECT rowid FROM t').all();")).toEqual([
      `${store}:1: rowid`,
      `${store}:1: the better-sqlite3 connection (db.sqlite)`,
      `${store}:1: sqlite.prepare`,
    ]);
    // The SQLite side holds both; comments are not code.
    expect(sqlOutsideStores('engine/src/submission/outbox-store.sqlite.ts', 'this.db.sqlite.prepare(`SELECT rowid FROM json_each(?)`)')).toEqual([]);
    expect(sqlOutsideStores(service, '// the store runs db.kysely.selectFrom(…) and json_each')).toEqual([]);
  });

  it('engine/src has no direct query outside its stores and no SQLite-only SQL outside db/ and *.sqlite.ts', () => {
    const files = sourceFiles('engine/src');
    expect(files).toContain('engine/src/no-verifactu/store.ts');
    const found = files.flatMap((file) => sqlOutsideStores(file, readFileSync(path.join(root, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
