// The filing thread's write turns (engine/src/filing/durable-turns.ts): each commits with
// synchronous=NORMAL, leaves SQLite's write lock at COMMIT, and resolves only once its own fsync
// of the WAL has returned. fs.fsync is held here to look inside that window (the technique of
// durable-before-send.test.ts: the connection runs in this process so it sees the mock).
import type * as NodeFs from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';

const fsyncControl = vi.hoisted(() => ({ calls: 0, held: [] as (() => void)[], hold: false, fail: false }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof NodeFs>();
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    fsyncControl.calls++;
    // The kernel's answer when it could not write the pages back.
    if (fsyncControl.fail) return void setImmediate(() => callback(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })));
    const run = () => real.fsync(fd, callback);
    if (fsyncControl.hold) fsyncControl.held.push(run);
    else run();
  };
  return { ...real, default: { ...real, fsync }, fsync };
});

const { Database } = await import('../../../engine/src/db/database');
const { afterPendingEvents } = await import('../../../engine/src/db/write-priority');
const { DurableTurns } = await import('../../../engine/src/filing/durable-turns');

const releaseHeld = () => {
  for (const run of fsyncControl.held.splice(0)) run();
};
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, 50));
  return done;
};

let open: { close(): unknown }[] = [];
afterEach(async () => {
  fsyncControl.hold = false;
  fsyncControl.fail = false;
  releaseHeld();
  for (const c of open.splice(0)) await c.close();
});

/** The engine's connection, the filing thread's (`otherWriters`) and a bystander that never waits for the lock. */
function connections() {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'durable-turns-')), 'engine.sqlite');
  const engine = new Database(file);
  engine.sqlite.exec('CREATE TABLE writes (seq INTEGER PRIMARY KEY, who TEXT NOT NULL)');
  const filing = new Database(file, { otherWriters: true });
  const bystander = new BetterSqlite3(file);
  bystander.pragma('busy_timeout = 0');
  open = [bystander, filing, engine];
  return { filing, bystander, turns: new DurableTurns(filing, afterPendingEvents) };
}

describe("The filing thread's write turns", () => {
  it('commit with synchronous=NORMAL, free the write lock at COMMIT, and resolve only after their fsync of the WAL', async () => {
    const { filing, bystander, turns } = connections();
    const fsyncsBefore = fsyncControl.calls;
    fsyncControl.hold = true;
    let syncInside: unknown;
    const turn = turns.take(() =>
      filing.transaction(() => {
        syncInside = filing.sqlite.pragma('synchronous', { simple: true });
        filing.sqlite.prepare('INSERT INTO writes (who) VALUES (?)').run('filing');
        return 'committed';
      }),
    );
    await vi.waitFor(() => expect(fsyncControl.held).toHaveLength(1));
    expect(syncInside).toBe(1);
    // Committed and visible, the lock already free (busy_timeout 0 would fail at once), the turn still waiting for the disk.
    expect(bystander.prepare('SELECT who FROM writes').all()).toEqual([{ who: 'filing' }]);
    bystander.prepare("INSERT INTO writes (who) VALUES ('issuing')").run();
    expect(await settled(turn)).toBe(false);

    releaseHeld();
    await expect(turn).resolves.toBe('committed');
    expect(fsyncControl.calls - fsyncsBefore).toBe(1);
    // Writes outside a turn keep the connection's full fsync at COMMIT.
    expect(filing.sqlite.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('pass on what their transaction throws, with nothing committed, nothing to fsync and synchronous=FULL again', async () => {
    const { filing, bystander, turns } = connections();
    const fsyncsBefore = fsyncControl.calls;
    await expect(
      turns.take(() =>
        filing.transaction(() => {
          filing.sqlite.prepare('INSERT INTO writes (who) VALUES (?)').run('filing');
          throw new Error('constraint failed');
        }),
      ),
    ).rejects.toThrow('constraint failed');
    expect(fsyncControl.calls - fsyncsBefore).toBe(0);
    expect(bystander.prepare('SELECT COUNT(*) AS n FROM writes').get()).toEqual({ n: 0 });
    expect(filing.sqlite.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('fail when their fsync fails: nothing goes on from a commit that may not be on disk', async () => {
    const { filing, turns } = connections();
    fsyncControl.fail = true;
    await expect(
      turns.take(() => filing.transaction(() => filing.sqlite.prepare("INSERT INTO writes (who) VALUES ('filing')").run())),
    ).rejects.toThrow(/fsync of the write-ahead log failed/);
  });
});
