import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';

let db: Database;
beforeEach(async () => {
  db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'db-')));
  await db.migrate();
});
afterEach(async () => db.close());

const settings = () => db.all(db.kysely.selectFrom('settings').selectAll().orderBy('key'));

describe('Database.transaction: one transaction, nested calls are savepoints, hooks after commit', () => {
  it('onCommit runs only after the outermost commit, and not at all on rollback', () => {
    const calls: string[] = [];
    db.transaction(() => {
      db.run(db.kysely.insertInto('settings').values({ key: 'a', value: '1' }));
      db.onCommit(() => calls.push(`committed with ${settings().length}`));
      expect(calls).toEqual([]);
    });
    expect(calls).toEqual(['committed with 1']);
    expect(() =>
      db.transaction(() => {
        db.onCommit(() => calls.push('never'));
        db.run(db.kysely.insertInto('settings').values({ key: 'b', value: '2' }));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(calls).toEqual(['committed with 1']);
    expect(settings().map((s) => s.key)).toEqual(['a']);
  });

  it('a failing nested call rolls back alone', () => {
    db.transaction(() => {
      db.run(db.kysely.insertInto('settings').values({ key: 'kept', value: '1' }));
      expect(() =>
        db.transaction(() => {
          db.run(db.kysely.insertInto('settings').values({ key: 'undone', value: '1' }));
          throw new Error('inner');
        }),
      ).toThrow('inner');
    });
    expect(settings().map((s) => s.key)).toEqual(['kept']);
  });
});

describe('Database.prepare: built once, run with named values', () => {
  it('binds slots by name and keeps constants', () => {
    const insert = db.prepare<never, 'key' | 'value'>((slot) => db.kysely.insertInto('settings').values({ key: slot('key'), value: slot('value') }));
    const find = db.prepare<{ value: string }, 'key'>((slot) =>
      db.kysely.selectFrom('settings').select('value').where('key', '=', slot('key')).where('value', '!=', 'hidden'),
    );
    expect(insert.run({ key: 'x', value: 'one' })).toBe(1);
    insert.run({ key: 'y', value: 'hidden' });
    expect(find.first({ key: 'x' })).toEqual({ value: 'one' });
    expect(find.first({ key: 'y' })).toBeUndefined();
    expect(find.all({ key: 'x' })).toEqual([{ value: 'one' }]);
  });
});

describe('WAL checkpoints run on a background thread, not inside a COMMIT', () => {
  it('commits leave the main file alone; the background thread copies the log into it', async () => {
    expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const file = db.sqlite.name;
    const before = statSync(file).size;
    db.transaction(() => {
      for (let i = 0; i < 500; i++) db.run(db.kysely.insertInto('settings').values({ key: `k${i}`, value: 'x'.repeat(200) }));
    });
    expect(statSync(file).size).toBe(before); // the rows are only in the WAL
    db.startBackgroundCheckpoints(20);
    // A checkpoint writes pages one by one, so the file may be seen half grown: wait for all of it.
    let after = before;
    for (let i = 0; i < 500 && after <= before + 100_000; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = statSync(file).size;
    }
    expect(after).toBeGreaterThan(before + 100_000);
  });
});
