// While both WAL fsyncs are under way, the group commit writes nothing: the requests that arrive
// gather into one batch, written and fsynced once one of the fsyncs returns. fs.fsync is wrapped
// here so the test can hold and count them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as NodeFs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const fsyncControl = vi.hoisted(() => ({ calls: 0, held: [] as (() => void)[] }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof NodeFs>();
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    fsyncControl.calls++;
    fsyncControl.held.push(() => real.fsync(fd, callback));
  };
  return { ...real, default: { ...real, fsync }, fsync };
});

const { SqliteDatabase: Database } = await import('../../../engine/src/db/database');
const { GroupCommit } = await import('../../../engine/src/issuing/group-commit');

let db: InstanceType<typeof Database>;
let reader: BetterSqlite3.Database;
beforeEach(() => {
  Object.assign(fsyncControl, { calls: 0, held: [] });
  db = Database.open(mkdtempSync(path.join(tmpdir(), 'group-commit-gathers-')));
  db.sqlite.exec('CREATE TABLE sales (n INTEGER PRIMARY KEY) STRICT');
  reader = new BetterSqlite3(db.file, { readonly: true });
});
afterEach(async () => {
  reader.close();
  for (const run of fsyncControl.held.splice(0)) run();
  await db.close();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const visible = () => reader.prepare('SELECT n FROM sales ORDER BY n').pluck().all();
/** Until `count` fsyncs were asked for (each commit's flush is asked for once its transaction ended). */
const fsyncsAsked = async (count: number) => {
  for (let i = 0; i < 100 && fsyncControl.calls < count; i++) await nextTurn();
  expect(fsyncControl.calls).toBe(count);
};

describe('Group commit while both fsyncs are under way', () => {
  it('writes nothing until one returns, then the requests read meanwhile in one transaction and one fsync', async () => {
    const commit = new GroupCommit(db);
    const insert = (n: number) => commit.run(() => db.sqlite.prepare('INSERT INTO sales VALUES (?)').run(n).changes);
    const first = insert(1);
    await fsyncsAsked(1);
    const second = insert(2);
    await fsyncsAsked(2);
    // Both fsyncs held: these two wait, each read in a turn of its own.
    const third = insert(3);
    await nextTurn();
    const fourth = insert(4);
    await nextTurn();
    await nextTurn();
    expect(visible()).toEqual([1, 2]);
    expect(fsyncControl.calls).toBe(2);

    // The first fsync returns: the waiting requests are written together, with one fsync of their own.
    fsyncControl.held.shift()!();
    await first;
    await fsyncsAsked(3);
    expect(visible()).toEqual([1, 2, 3, 4]);

    for (const run of fsyncControl.held.splice(0)) run();
    await expect(Promise.all([second, third, fourth])).resolves.toEqual([1, 1, 1]);
    expect(fsyncControl.calls).toBe(3);
  });
});
