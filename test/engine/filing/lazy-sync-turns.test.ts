// The filing thread's write turns (engine/src/filing/lazy-sync-turns.ts): each commits with
// synchronous=NORMAL, so no fsync holds SQLite's write lock; the next fsync of the WAL, the one
// before any send (test/engine/filing/durable-before-send.test.ts) or webhook delivery
// (test/engine/webhooks/durable-before-delivery.test.ts), makes it durable.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../../engine/src/db/database';
import { afterPendingEvents } from '../../../engine/src/db/write-priority';
import { LazySyncTurns } from '../../../engine/src/filing/lazy-sync-turns';

let open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

/** The engine's connection, the filing thread's (`otherWriters`) and a bystander that never waits for the lock. */
function connections() {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lazy-sync-turns-')), 'engine.sqlite');
  const engine = new SqliteDatabase(file);
  engine.sqlite.exec('CREATE TABLE writes (seq INTEGER PRIMARY KEY, who TEXT NOT NULL)');
  const filing = new SqliteDatabase(file, { otherWriters: true });
  const bystander = new BetterSqlite3(file);
  bystander.pragma('busy_timeout = 0');
  open = [bystander, filing, engine];
  return { filing, bystander, turns: new LazySyncTurns(filing, afterPendingEvents) };
}

describe("The filing thread's write turns", () => {
  it('commit with synchronous=NORMAL (no fsync inside the lock) and leave the connection at FULL', async () => {
    const { filing, bystander, turns } = connections();
    let syncInside: unknown;
    const result = await turns.take(() =>
      filing.transaction(() => {
        syncInside = filing.sqlite.pragma('synchronous', { simple: true });
        filing.sqlite.prepare('INSERT INTO writes (who) VALUES (?)').run('filing');
        return 'committed';
      }),
    );
    expect(result).toBe('committed');
    expect(syncInside).toBe(1);
    // Committed and visible, the lock free (busy_timeout 0 would fail at once).
    expect(bystander.prepare('SELECT who FROM writes').all()).toEqual([{ who: 'filing' }]);
    bystander.prepare("INSERT INTO writes (who) VALUES ('issuing')").run();
    // Writes outside a turn keep the connection's full fsync at COMMIT.
    expect(filing.sqlite.pragma('synchronous', { simple: true })).toBe(2);

  });

  it('pass on what their transaction throws, with nothing committed and synchronous=FULL again', async () => {
    const { filing, bystander, turns } = connections();
    await expect(
      turns.take(() =>
        filing.transaction(() => {
          filing.sqlite.prepare('INSERT INTO writes (who) VALUES (?)').run('filing');
          throw new Error('constraint failed');
        }),
      ),
    ).rejects.toThrow('constraint failed');
    expect(bystander.prepare('SELECT COUNT(*) AS n FROM writes').get()).toEqual({ n: 0 });
    expect(filing.sqlite.pragma('synchronous', { simple: true })).toBe(2);
  });
});
