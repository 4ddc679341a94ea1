// A filing thread's stand-in: on 'hold' it takes its turn at the write lock (WritePriority) and,
// inside it, holds SQLite's write lock for `holdMs` (blocking, as a long transaction does).
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { WritePriority } from '../../../engine/src/db/write-priority';

const { file, buffer, holdMs } = (workerData as { data: { file: string; buffer: SharedArrayBuffer; holdMs: number } }).data;
const port = parentPort!;
const db = new BetterSqlite3(file);
const turns = new WritePriority(buffer).filingTurns({ maxDeferMs: 0, shareWhileIssuing: 1, issuingWindowMs: 0, maxRestMs: 0 });

port.on('message', (message: string) => {
  if (message !== 'hold') return;
  void turns
    .take(() => {
      db.exec('BEGIN IMMEDIATE');
      db.prepare('INSERT INTO writes (who) VALUES (?)').run('filing');
      port.postMessage('holding');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
      db.exec('COMMIT');
    })
    .then(() => port.postMessage('released'));
});
