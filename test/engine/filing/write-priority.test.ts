// Issuing first at SQLite's write lock (engine/src/db/write-priority.ts): the filing thread starts
// no write transaction while issuing commits wait, except past its floor, and an issuing commit
// that finds the filing thread inside one waits for it off the event loop instead of in SQLite's
// busy handler.
import { mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';
import { WritePriority } from '../../../engine/src/db/write-priority';
import { GroupCommit } from '../../../engine/src/issuing/group-commit';
import { startModuleWorker } from '../../../engine/src/platform/worker-pool';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Turns that defer at the lock only, never rest. */
const lockOnly = (maxDeferMs: number) => ({ maxDeferMs, shareWhileIssuing: 1, issuingWindowMs: 0, maxRestMs: 0 });
/** Keeps this thread busy for `ms` (the work a turn rests after). */
const work = (ms: number) => {
  for (const end = performance.now() + ms; performance.now() < end; );
};
/** Whether the turn's transaction ran before the event loop's next round (no rest). */
const ranAtOnce = async (turns: ReturnType<WritePriority['filingTurns']>) => {
  let ran = false;
  const turn = turns.take(() => (ran = true));
  await new Promise((resolve) => setImmediate(resolve));
  const atOnce = ran;
  await turn;
  return atOnce;
};

describe("The filing thread's turn", () => {
  it('waits while issuing requests are queued for the lock and runs once they are done', async () => {
    const issuing = new WritePriority();
    const filing = new WritePriority(issuing.buffer).filingTurns(lockOnly(60_000));
    const order: string[] = [];
    issuing.issuingQueued(2);
    const turn = filing.take(() => order.push('filing'));
    await pause(20);
    issuing.issuingDone(1);
    await pause(20);
    order.push('issuing done');
    issuing.issuingDone(1);
    await turn;
    expect(order).toEqual(['issuing done', 'filing']);
  });

  it('runs after its longest deferral even while issuing never stops queuing (the drain never stalls)', async () => {
    const issuing = new WritePriority();
    const filing = new WritePriority(issuing.buffer).filingTurns(lockOnly(30));
    issuing.issuingQueued();
    let ran = 0;
    for (let i = 0; i < 3; i++) await filing.take(() => (ran += 1));
    expect(ran).toBe(3);
    issuing.issuingDone();
  });

  it('rests before its transaction while issuing is busy, as long as it worked since its last turn; not while issuing is idle', async () => {
    const issuing = new WritePriority();
    const halfWhileIssuing = { maxDeferMs: 0, shareWhileIssuing: 0.5, issuingWindowMs: 60_000, maxRestMs: 60_000 };

    const quiet = new WritePriority(issuing.buffer).filingTurns(halfWhileIssuing);
    work(20);
    expect(await ranAtOnce(quiet)).toBe(true);

    const busy = new WritePriority(issuing.buffer).filingTurns(halfWhileIssuing);
    issuing.issuingQueued();
    issuing.issuingDone();
    work(20);
    expect(await ranAtOnce(busy)).toBe(false);
  });

  it('does not rest for issuing that stopped longer ago than its window, though it first notices it now (a backlog issued while filing was paused drains at full speed)', async () => {
    const issuing = new WritePriority();
    const turns = new WritePriority(issuing.buffer).filingTurns({ maxDeferMs: 0, shareWhileIssuing: 0.5, issuingWindowMs: 50, maxRestMs: 60_000 });
    issuing.issuingQueued(1000);
    issuing.issuingDone(1000);
    await pause(100);
    work(20);
    expect(await ranAtOnce(turns)).toBe(true);
  });

  it('says issuing is busy from a commit on for its window, and idle before any and after the window', async () => {
    const issuing = new WritePriority();
    const turns = new WritePriority(issuing.buffer).filingTurns({ maxDeferMs: 0, shareWhileIssuing: 0.5, issuingWindowMs: 50, maxRestMs: 0 });
    expect(turns.issuingBusy()).toBe(false);
    issuing.issuingQueued();
    issuing.issuingDone();
    expect(turns.issuingBusy()).toBe(true);
    await pause(100);
    expect(turns.issuingBusy()).toBe(false);
  });

  it('passes on what its transaction throws, and leaves the lock to issuing after it', async () => {
    const issuing = new WritePriority();
    const filing = new WritePriority(issuing.buffer).filingTurns(lockOnly(0));
    await expect(
      filing.take(() => {
        expect(issuing.filingLeft()).toBeDefined();
        throw new Error('constraint failed');
      }),
    ).rejects.toThrow('constraint failed');
    expect(issuing.filingLeft()).toBeUndefined();
  });
});

describe('An issuing group commit while the filing thread holds the write lock', () => {
  let worker: Worker | undefined;
  let db: Database | undefined;
  afterEach(async () => {
    await worker?.terminate();
    await db?.close();
    worker = undefined;
    db = undefined;
  });

  /** A database whose busy_timeout is 0, so asking SQLite for a held lock fails at once; and a filing stand-in holding it. */
  async function filingHolds(priority: WritePriority) {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'write-priority-')), 'engine.sqlite');
    db = new SqliteDatabase(file);
    db.sqlite.exec('CREATE TABLE writes (seq INTEGER PRIMARY KEY, who TEXT NOT NULL)');
    db.sqlite.pragma('busy_timeout = 0');
    worker = startModuleWorker(new URL('./holding-writer-fixture.ts', import.meta.url), { file, buffer: priority.buffer, holdMs: 100 });
    const holding = once(worker, 'message');
    worker.postMessage('hold');
    expect(await holding).toEqual(['holding']);
    return { db, released: once(worker, 'message') };
  }

  it('waits for its turn and commits after it, never asking SQLite while the lock is held', async () => {
    const priority = new WritePriority();
    const { db, released } = await filingHolds(priority);
    const groupCommit = new GroupCommit(db, 512, priority);
    const committed = groupCommit.run(() => db.sqlite.prepare('INSERT INTO writes (who) VALUES (?)').run('issuing'));
    await expect(committed).resolves.toMatchObject({ changes: 1 });
    expect(await released).toEqual(['released']);
    expect(db.sqlite.prepare('SELECT who FROM writes ORDER BY seq').all()).toEqual([{ who: 'filing' }, { who: 'issuing' }]);
  });

  it('without the shared priority asks SQLite at once and is refused (what the busy handler would otherwise wait out, event loop stopped)', async () => {
    const { db, released } = await filingHolds(new WritePriority());
    const groupCommit = new GroupCommit(db);
    await expect(groupCommit.run(() => db.sqlite.prepare('INSERT INTO writes (who) VALUES (?)').run('issuing'))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    await released;
  });
});
