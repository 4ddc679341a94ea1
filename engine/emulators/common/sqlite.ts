import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

// The emulators' ledgers: SQLite files of their own, and the conversions of
// their rows.

export type Row = Record<string, unknown>;

export const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
export const strOrNull = (v: unknown): string | null => (v == null ? null : String(v));
export const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : Number(v ?? 0));
export const numOrNull = (v: unknown): number | null => (v == null ? null : num(v));
export const boolOrNull = (v: unknown): boolean | null => (v == null ? null : num(v) === 1);

/** SQLite file (or `:memory:`) of an emulator's ledger, with its schema created. */
export abstract class SqliteLedger {
  readonly db: Database.Database;

  constructor(dbPath: string, schema: string) {
    this.db = new Database(dbPath);
    if (dbPath !== ':memory:') this.db.pragma('journal_mode = WAL');
    // A test double, not a system of record. What it must keep: every answered submission across
    // its own restarts and its own process dying (a committed WAL frame is in the OS's page cache
    // at once), never the engine's crash tests' business (they kill the engine, not the emulator).
    // What it need not survive: the machine losing power. So no fsync, not even at checkpoints.
    this.db.pragma('synchronous = OFF');
    // A 100 k-record ledger is ~100 MB: its indexes' working set must not go through pread.
    this.db.pragma('cache_size = -65536');
    this.db.exec(schema);
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** The ledger file: `dbPath`, else `fileName` in `dataDir` (created if missing), else `:memory:`. */
export function ledgerPath(opts: { dataDir?: string; dbPath?: string }, fileName: string): string {
  let dbPath = opts.dbPath ?? ':memory:';
  if (!opts.dbPath && opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    dbPath = path.join(opts.dataDir, fileName);
  }
  return dbPath;
}
