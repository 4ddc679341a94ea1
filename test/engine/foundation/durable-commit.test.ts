// Issuing's commits are made durable off the event loop (db/wal-sync.ts): COMMIT writes the WAL
// without fsync, the fsync runs on libuv's thread pool, and nothing is acknowledged, woken or sent
// to an authority before it returns. fs.fsync is wrapped here so the tests can hold it, count it
// and make it fail.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as NodeFs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqliteOf } from '../../support/sqlite-of';
import { aTicketDemo } from '../../fixtures/verifactu';

const fsyncControl = vi.hoisted(() => ({
  calls: 0,
  /** The descriptor of each fsync, in call order. */
  fds: [] as number[],
  held: [] as (() => void)[],
  hold: false,
  failWith: null as NodeJS.ErrnoException | null,
}));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof NodeFs>();
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    fsyncControl.calls++;
    fsyncControl.fds.push(fd);
    const run = () => {
      if (fsyncControl.failWith) callback(fsyncControl.failWith);
      else real.fsync(fd, callback);
    };
    if (fsyncControl.hold) fsyncControl.held.push(run);
    else run();
  };
  return { ...real, default: { ...real, fsync }, fsync };
});

const { SqliteDatabase: Database } = await import('../../../engine/src/db/database');
const { WalSync, WalSyncError } = await import('../../../engine/src/db/wal-sync');
const { makeTestEngine } = await import('../../support/engine');

const releaseHeld = () => {
  const held = fsyncControl.held.splice(0);
  for (const run of held) run();
};
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, 20));
  return done;
};

/** A migrated database per test, closed after it with every held fsync released. */
function withMigratedDatabase(): { db: InstanceType<typeof Database> } {
  const current = {} as { db: InstanceType<typeof Database> };
  beforeEach(async () => {
    current.db = Database.open(mkdtempSync(path.join(tmpdir(), 'durable-')));
    await current.db.migrate();
  });
  afterEach(async () => {
    fsyncControl.hold = false;
    releaseHeld();
    await current.db.close();
  });
  return current;
}

beforeEach(() => {
  Object.assign(fsyncControl, { calls: 0, fds: [], held: [], hold: false, failWith: null });
});

describe('WalSync: one fsync covers every commit written before it started', () => {
  const current = withMigratedDatabase();

  /** Two flushes, each with its fsync started and held. */
  function twoHeldFlushes() {
    const sync = new WalSync(`${current.db.file}-wal`);
    fsyncControl.hold = true;
    return { sync, first: sync.flush(), second: sync.flush() };
  }

  it('two fsyncs run at once; flushes asked for while both run share the next; whenDurable waits for it', async () => {
    const sync = new WalSync(`${current.db.file}-wal`);
    fsyncControl.hold = true;
    const first = sync.flush();
    const second = sync.flush(); // does not wait for the first fsync to return
    expect(fsyncControl.calls).toBe(2);
    const third = sync.flush();
    const fourth = sync.flush();
    expect(fsyncControl.calls).toBe(2);
    const durable = sync.whenDurable();
    releaseHeld(); // both return; the third starts for the two that came meanwhile
    await Promise.all([first, second]);
    expect(fsyncControl.calls).toBe(3);
    expect(await settled(third)).toBe(false);
    expect(await settled(durable)).toBe(false);
    releaseHeld();
    await Promise.all([third, fourth, durable]);
    expect(fsyncControl.calls).toBe(3);
    await expect(sync.whenDurable()).resolves.toBeUndefined(); // idle: nothing to wait for
    await sync.close();
  });

  it('each fsync under way has its own descriptor, and the descriptors are reused', async () => {
    const sync = new WalSync(`${current.db.file}-wal`);
    fsyncControl.hold = true;
    const both = [sync.flush(), sync.flush()];
    expect(new Set(fsyncControl.fds).size).toBe(2);
    releaseHeld();
    await Promise.all(both);
    fsyncControl.hold = false;
    await sync.flush();
    await sync.flush();
    expect(fsyncControl.fds).toHaveLength(4);
    expect(new Set(fsyncControl.fds).size).toBe(2);
    await sync.close();
  });

  it('an fsync that returns first answers the flushes of the one started before it; close waits for that one', async () => {
    const { sync, first, second } = twoHeldFlushes();
    const [earlier, later] = fsyncControl.held.splice(0);
    later!();
    await Promise.all([first, second]);
    await expect(sync.whenDurable()).resolves.toBeUndefined();
    // The earlier fsync still runs on its descriptor: close must not release it yet.
    const closed = sync.close();
    expect(await settled(closed)).toBe(false);
    earlier!();
    await closed;
  });

  it('a later fsync that returns first answers nothing started after it', async () => {
    const { sync, first, second } = twoHeldFlushes();
    const [earlier] = fsyncControl.held.splice(0, 1);
    earlier!(); // the first returns while the second still runs
    await first;
    expect(await settled(second)).toBe(false);
    releaseHeld();
    await second;
    await sync.close();
  });

  it('a failed fsync is final: that flush, the ones under way or queued and every later one reject', async () => {
    const { sync, first, second } = twoHeldFlushes();
    const queued = sync.flush();
    fsyncControl.failWith = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    const [failing] = fsyncControl.held.splice(0, 1);
    failing!();
    await expect(first).rejects.toBeInstanceOf(WalSyncError);
    await expect(second).rejects.toBeInstanceOf(WalSyncError);
    await expect(queued).rejects.toBeInstanceOf(WalSyncError);
    fsyncControl.failWith = null;
    releaseHeld(); // the other fsync returns fine: nothing changes
    fsyncControl.hold = false;
    await expect(sync.flush()).rejects.toThrow('fsync of the write-ahead log failed: EIO');
    await expect(sync.whenDurable()).rejects.toBeInstanceOf(WalSyncError);
    await sync.close();
  });
});

describe('Database.transactionDurableLater', () => {
  const current = withMigratedDatabase();

  it('commits at once, runs onCommit hooks only after the fsync, and leaves synchronous=FULL', async () => {
    fsyncControl.hold = true;
    const calls: string[] = [];
    const { result, durable } = current.db.transactionDurableLater(() => {
      current.db.run(current.db.kysely.insertInto('settings').values({ key: 'k', value: 'v' }));
      current.db.onCommit(() => calls.push('woken'));
      return 'done';
    });
    expect(result).toBe('done');
    // Committed (another connection sees it), not yet durable, nobody woken.
    const other = new BetterSqlite3(current.db.file, { readonly: true });
    expect(other.prepare("SELECT value FROM settings WHERE key = 'k'").get()).toEqual({ value: 'v' });
    other.close();
    expect(sqliteOf(current.db).pragma('synchronous', { simple: true })).toBe(2);
    expect(await settled(durable)).toBe(false);
    expect(calls).toEqual([]);
    expect(await settled(current.db.whenDurable())).toBe(false);
    releaseHeld();
    await durable;
    expect(calls).toEqual(['woken']);
    await expect(current.db.whenDurable()).resolves.toBeUndefined();
  });

  it('an in-memory database has nothing to fsync: durable at once', async () => {
    const memory = new Database(':memory:');
    await memory.migrate();
    const { durable } = memory.transactionDurableLater(() => memory.run(memory.kysely.insertInto('settings').values({ key: 'm', value: '1' })));
    await expect(durable).resolves.toBeUndefined();
    expect(fsyncControl.calls).toBe(0);
    await memory.close();
  });
});

const factura = (nif: string, numero: string) => aTicketDemo(nif, 'W', numero);

describe('Issuing answers only once its commit is on disk', () => {
  it('crear is answered after the fsync returns, never before; a replay waits too', async () => {
    const t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
    try {
      fsyncControl.hold = true;
      const answer = t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '1') });
      await vi.waitFor(() => expect(fsyncControl.held.length).toBe(1));
      expect(await settled(answer)).toBe(false);
      // Stored (committed) while the fsync runs, but not acknowledged.
      expect(sqliteOf(t.engine.context.db).prepare("SELECT COUNT(*) AS n FROM invoices WHERE numero = '1'").get()).toEqual({ n: 1 });
      const replay = t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '1') });
      expect(await settled(replay)).toBe(false);
      fsyncControl.hold = false;
      releaseHeld();
      expect((await answer).statusCode).toBe(200);
      const repeated = await replay;
      expect(repeated.statusCode).toBe(200);
      expect(repeated.json().yaExistente).toBe(true);
    } finally {
      fsyncControl.hold = false;
      releaseHeld();
      await t.close();
    }
  });

  it('a failed fsync answers 503 STORAGE_ERROR, and the worker sends nothing to the authority', async () => {
    const t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
    try {
      fsyncControl.failWith = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      const res = await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '2') });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'STORAGE_ERROR' });
      expect(res.headers['retry-after']).toBe('60');
      // Issuing stays refused (the failure is final until a restart).
      fsyncControl.failWith = null;
      const again = await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '3') });
      expect(again.statusCode).toBe(503);
      // The committed-but-unsynced record is never filed: the worker stops before the wire.
      await t.engine.context.submissions.tick();
      const batches = sqliteOf(t.engine.context.db).prepare('SELECT ultimoError FROM submission_batches').all() as { ultimoError: string | null }[];
      expect(batches.length).toBeGreaterThan(0);
      for (const b of batches) expect(b.ultimoError).toContain('fsync of the write-ahead log failed');
    } finally {
      await t.close();
    }
  });
});
