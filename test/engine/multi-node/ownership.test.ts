// Issue 27: which node drives a submission queue or a webhook's deliveries, on PostgreSQL's session
// advisory locks (engine/src/db/work-ownership.ts): one node at a time, and the work is free again
// as soon as the node that held it lets go or its connection dies.
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { SqliteDatabase } from '../../../engine/src/db/database';
import { AdvisoryLockOwnership, SOLE_NODE, workOwnershipOf } from '../../../engine/src/db/work-ownership';
import { freshPostgresUrl } from '../../support/postgres';
import { migratedDataDir } from '../../support/engine';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

function node(url: string): { db: PostgresDatabase; ownership: AdvisoryLockOwnership } {
  const db = new PostgresDatabase(url);
  open.push(db);
  return { db, ownership: new AdvisoryLockOwnership(db) };
}

const QUEUE = 'test|verifactu|B12345674';

describe('work ownership across nodes on one PostgreSQL', () => {
  it('one node at a time: the second is refused until the first releases', () => {
    const url = freshPostgresUrl();
    const a = node(url);
    const b = node(url);
    expect(a.ownership.tryTake('submission-queue', QUEUE)).toBe(true);
    expect(a.ownership.holds('submission-queue', QUEUE)).toBe(true);
    // Taking again what it holds neither stacks the lock nor fails.
    expect(a.ownership.tryTake('submission-queue', QUEUE)).toBe(true);
    expect(b.ownership.tryTake('submission-queue', QUEUE)).toBe(false);
    expect(b.ownership.holds('submission-queue', QUEUE)).toBe(false);
    // Another queue, and a webhook with the same key, are other work.
    expect(b.ownership.tryTake('submission-queue', 'test|verifactu|A00000000')).toBe(true);
    expect(b.ownership.tryTake('webhook', QUEUE)).toBe(true);
    a.ownership.release('submission-queue', QUEUE);
    expect(a.ownership.holds('submission-queue', QUEUE)).toBe(false);
    expect(b.ownership.tryTake('submission-queue', QUEUE)).toBe(true);
    expect(a.ownership.tryTake('submission-queue', QUEUE)).toBe(false);
  });

  it('a node whose connection ends loses what it held: another node takes it at once', async () => {
    const url = freshPostgresUrl();
    const a = node(url);
    const b = node(url);
    expect(a.ownership.tryTake('webhook', 'wh_1')).toBe(true);
    expect(b.ownership.tryTake('webhook', 'wh_1')).toBe(false);
    await a.db.close(); // as a SIGKILL closes the socket: the server ends the session
    let taken = false;
    for (let i = 0; i < 100 && !taken; i++) {
      taken = b.ownership.tryTake('webhook', 'wh_1');
      if (!taken) await new Promise((r) => setTimeout(r, 20));
    }
    expect(taken).toBe(true);
  });

  it('a node that lost its session (the server ended it) no longer holds the work, and says so', async () => {
    const url = freshPostgresUrl();
    const a = node(url);
    const b = node(url);
    expect(a.ownership.tryTake('submission-queue', QUEUE)).toBe(true);
    const pid = (a.db.statement('SELECT pg_backend_pid() AS pid').get() as { pid: number }).pid;
    b.db.statement('SELECT pg_terminate_backend(?)').get(pid);
    // The backend ends (and lets go of its locks) a moment after it is told to.
    let taken = false;
    for (let i = 0; i < 100 && !taken; i++) {
      taken = b.ownership.tryTake('submission-queue', QUEUE);
      if (!taken) await new Promise((r) => setTimeout(r, 20));
    }
    expect(taken).toBe(true);
    // The statement that finds the connection lost fails; the next one runs on a new session.
    expect(() => a.ownership.holds('submission-queue', QUEUE)).toThrow();
    expect(a.ownership.holds('submission-queue', QUEUE)).toBe(false);
    expect(a.ownership.tryTake('submission-queue', QUEUE)).toBe(false);
    // Releasing what it lost gives nothing back and takes nothing from the node that holds it.
    a.ownership.release('submission-queue', QUEUE);
    expect(b.ownership.holds('submission-queue', QUEUE)).toBe(true);
  });

  it('on SQLite the one process owns everything', async () => {
    const db = SqliteDatabase.open(migratedDataDir());
    open.push(db);
    expect(workOwnershipOf(db)).toBe(SOLE_NODE);
    expect(SOLE_NODE.tryTake('submission-queue', QUEUE)).toBe(true);
    expect(SOLE_NODE.holds('submission-queue', QUEUE)).toBe(true);
    const pg = new PostgresDatabase(freshPostgresUrl());
    open.push(pg);
    expect(workOwnershipOf(pg)).toBeInstanceOf(AdvisoryLockOwnership);
    expect(workOwnershipOf(pg)).toBe(workOwnershipOf(pg));
  });
});
