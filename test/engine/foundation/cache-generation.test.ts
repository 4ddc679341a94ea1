// The ReadCaches of one database share one look at the read-cache counter: what one cache's look
// saw must still make every other cache read its rows again.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';
import { CacheGeneration, ReadCache } from '../../../engine/src/db/read-cache';

let db: Database;
let other: BetterSqlite3.Database;
beforeEach(async () => {
  db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'cache-generation-')));
  await db.migrate();
  other = new BetterSqlite3(db.file);
  other.pragma('busy_timeout = 5000');
});
afterEach(async () => {
  other.close();
  await db.close();
});

const bump = (connection: { prepare: (sql: string) => { run: () => unknown } }) =>
  connection.prepare('UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1').run();

describe('CacheGeneration: one look per commit for every cache of a database', () => {
  it('is one object per database', () => {
    expect(CacheGeneration.of(db)).toBe(CacheGeneration.of(db));
  });

  it('a change seen first through one cache still reloads the other', () => {
    const keys = new ReadCache<string>(db);
    const issuers = new ReadCache<string>(db);
    let loads = 0;
    const load = () => `v${++loads}`;
    expect(keys.get('k', load)).toBe('v1');
    expect(issuers.get('i', load)).toBe('v2');
    expect(keys.get('k', load)).toBe('v1');
    expect(issuers.get('i', load)).toBe('v2');
    bump(other);
    // `issuers` looks first and sees the new counter; `keys` must reload all the same.
    expect(issuers.get('i', load)).toBe('v3');
    expect(keys.get('k', load)).toBe('v4');
    expect(keys.get('k', load)).toBe('v4');
    bump(db.sqlite);
    expect(keys.get('k', load)).toBe('v5');
    expect(issuers.get('i', load)).toBe('v6');
  });

  it('an unrelated commit is looked at, and the cached rows kept', () => {
    const cache = new ReadCache<string>(db);
    let loads = 0;
    expect(cache.get('k', () => `v${++loads}`)).toBe('v1');
    other.exec('CREATE TABLE unrelated (x INTEGER) STRICT; INSERT INTO unrelated VALUES (1)');
    expect(cache.get('k', () => `v${++loads}`)).toBe('v1');
  });
});
