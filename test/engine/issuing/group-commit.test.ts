// Requests of one group commit run straight in its transaction; a request refused before it wrote
// just gets its error, and one that failed after writing makes the batch run again, each request
// in a savepoint: either way the others' work is committed once and the failed one's not at all.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';
import { GroupCommit } from '../../../engine/src/issuing/group-commit';

let db: Database;
let commit: GroupCommit;
beforeEach(() => {
  db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'group-commit-')));
  db.sqlite.exec('CREATE TABLE sales (n INTEGER PRIMARY KEY) STRICT');
  db.sqlite.exec('CREATE TABLE tally (n INTEGER NOT NULL) STRICT');
  db.sqlite.exec('CREATE TRIGGER sales_tally AFTER INSERT ON sales BEGIN INSERT INTO tally VALUES (NEW.n); END');
  commit = new GroupCommit(db);
});
afterEach(async () => db.close());

const insert = (n: number) => db.sqlite.prepare('INSERT INTO sales VALUES (?)').run(n);
const stored = (table: 'sales' | 'tally') => db.sqlite.prepare(`SELECT n FROM ${table} ORDER BY n`).pluck().all();
const settled = (promises: Promise<unknown>[]) => Promise.allSettled(promises);

describe('Group commit: each request of a batch stands alone', () => {
  it('a request refused before writing gets its error; the batch around it is committed once', async () => {
    let runs = 0;
    const outcomes = await settled([
      commit.run(() => {
        runs++;
        insert(1);
        return 'one';
      }),
      commit.run(() => {
        db.sqlite.prepare('SELECT count(*) FROM sales').get();
        throw new Error('refused');
      }),
      commit.run(() => {
        insert(3);
        return 'three';
      }),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['one', 'refused', 'three']);
    expect(stored('sales')).toEqual([1, 3]);
    expect(runs).toBe(1);
  });

  it('a request that failed after writing leaves none of its rows (nor its triggers\'), the others all theirs', async () => {
    const outcomes = await settled([
      commit.run(() => insert(1).changes),
      commit.run(() => {
        insert(2);
        throw new Error('failed half-way');
      }),
      commit.run(() => insert(3).changes),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([1, 'failed half-way', 1]);
    expect(stored('sales')).toEqual([1, 3]);
    expect(stored('tally')).toEqual([1, 3]);
  });

  it('a statement that failed and was rolled back by SQLite counts as no write: the batch is not run again', async () => {
    let runs = 0;
    insert(7);
    const outcomes = await settled([
      commit.run(() => {
        runs++;
        insert(1);
      }),
      commit.run(() => insert(7)),
    ]);
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' } });
    expect(stored('sales')).toEqual([1, 7]);
    expect(runs).toBe(1);
  });

  it('after a batch ran again, the commit hooks of the first run are gone: each request\'s hook runs once', async () => {
    const hooks: number[] = [];
    const outcomes = await settled([
      commit.run(() => {
        insert(1);
        db.onCommit(() => hooks.push(1));
      }),
      commit.run(() => {
        insert(2);
        db.onCommit(() => hooks.push(2));
        throw new Error('failed after its hook');
      }),
      commit.run(() => {
        insert(3);
        db.onCommit(() => hooks.push(3));
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The failed request's hook was registered in its savepoint, before it failed: hooks are
    // wake-ups, harmless when nothing new is there (as before this change).
    expect(hooks.sort()).toEqual([1, 2, 3]);
    expect(stored('sales')).toEqual([1, 3]);
  });

  it('total_changes counts every write of the connection, triggers included, and nothing for a rolled-back statement', () => {
    const before = db.totalChanges();
    insert(1);
    expect(db.totalChanges()).toBe(before + 2);
    expect(() => insert(1)).toThrow();
    expect(db.totalChanges()).toBe(before + 2);
  });
});
