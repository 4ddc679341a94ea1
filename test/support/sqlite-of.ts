import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase, type Database } from '../../engine/src/db/database';

/** The better-sqlite3 connection under an engine database, for tests that look at the SQLite file itself. */
export function sqliteOf(db: Database): BetterSqlite3.Database {
  if (!(db instanceof SqliteDatabase)) throw new Error('this test reads the SQLite file: it runs on SQLite only');
  return db.sqlite;
}
