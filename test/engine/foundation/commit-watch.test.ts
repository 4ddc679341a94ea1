import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';
import { ReadCache } from '../../../engine/src/db/read-cache';

let db: Database;
let other: BetterSqlite3.Database;
beforeEach(async () => {
  db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'commit-watch-')));
  await db.migrate();
  db.sqlite.exec('CREATE TABLE t (v INTEGER NOT NULL) STRICT');
  other = new BetterSqlite3(db.file);
  other.pragma('busy_timeout = 5000');
});
afterEach(async () => {
  other.close();
  await db.close();
});

describe('CommitWatch sees every commit, by any connection, and nothing else', () => {
  it('answers changed on the first look, then unchanged while nobody commits', () => {
    const watch = db.watchCommits();
    expect(watch.changed()).toBe(true);
    db.sqlite.prepare('SELECT count(*) FROM t').get();
    other.prepare('SELECT count(*) FROM t').get();
    expect(watch.changed()).toBe(false);
    expect(watch.changed()).toBe(false);
  });

  it('a commit of this connection, then one of another connection, each answer changed once', () => {
    const watch = db.watchCommits();
    watch.changed();
    db.sqlite.prepare('INSERT INTO t VALUES (1)').run();
    expect(watch.changed()).toBe(true);
    expect(watch.changed()).toBe(false);
    other.prepare('INSERT INTO t VALUES (2)').run();
    expect(watch.changed()).toBe(true);
    expect(watch.changed()).toBe(false);
  });

  it('a rolled-back transaction is no commit', () => {
    const watch = db.watchCommits();
    watch.changed();
    expect(() =>
      db.transaction(() => {
        db.sqlite.prepare('INSERT INTO t VALUES (1)').run();
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(watch.changed()).toBe(false);
  });

  it('a commit that restarts the WAL at its first frame after a full checkpoint still answers changed', () => {
    const watch = db.watchCommits();
    other.prepare('INSERT INTO t VALUES (1)').run();
    other.pragma('wal_checkpoint(TRUNCATE)');
    watch.changed();
    // The WAL is empty again: this commit writes the same frame numbers the first one did.
    other.prepare('INSERT INTO t VALUES (2)').run();
    expect(watch.changed()).toBe(true);
    other.pragma('wal_checkpoint(TRUNCATE)');
    watch.changed();
    other.prepare('INSERT INTO t VALUES (3)').run();
    expect(watch.changed()).toBe(true);
  });

  it('forget() makes the next look answer changed', () => {
    const watch = db.watchCommits();
    watch.changed();
    watch.forget();
    expect(watch.changed()).toBe(true);
  });

  it('an in-memory database has no file to watch: every look answers changed', async () => {
    const memory = new SqliteDatabase(':memory:');
    const watch = memory.watchCommits();
    expect(watch.changed()).toBe(true);
    expect(watch.changed()).toBe(true);
    await memory.close();
  });
});

describe('ReadCache reads the generation again only after a commit', () => {
  it('serves from memory without a statement while nobody commits; a bump by another connection clears it', () => {
    const cache = new ReadCache<number>(db);
    let loads = 0;
    const load = () => ++loads;
    expect(cache.get('k', load)).toBe(1);
    expect(cache.get('k', load)).toBe(1);
    other.prepare('UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1').run();
    expect(cache.get('k', load)).toBe(2);
    // A commit that does not touch the counter keeps the entry (the counter is read, unchanged).
    other.prepare('INSERT INTO t VALUES (1)').run();
    expect(cache.get('k', load)).toBe(2);
  });

  it('a failed generation read leaves the next lookup reading again, not trusting stale entries', () => {
    // The real watch on the real file; the counter's statement fails once, as a busy or broken read would.
    let failNext = false;
    let generation = 0;
    const statement = {
      get: () => {
        if (failNext) {
          failNext = false;
          throw new Error('SQLITE_IOERR');
        }
        return { generation };
      },
    };
    const fake = { inTransaction: false, generationProbe: () => () => statement.get(), watchCommits: () => db.watchCommits() };
    const cache = new ReadCache<number>(fake as unknown as Database);
    let loads = 0;
    expect(cache.get('k', () => ++loads)).toBe(1);
    generation = 1;
    other.prepare('INSERT INTO t VALUES (1)').run();
    failNext = true;
    expect(() => cache.get('k', () => ++loads)).toThrow('SQLITE_IOERR');
    // No commit since: the counter must still be read, and its change clears the entry.
    expect(cache.get('k', () => ++loads)).toBe(2);
  });
});
