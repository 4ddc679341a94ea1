import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const require = createRequire(import.meta.url);

// Runs in its own thread with its own connection: a PASSIVE checkpoint never blocks writers.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: next round */ }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'stop') {
    clearInterval(timer);
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
    db.close();
    parentPort.postMessage('stopped');
  }
});
`;

/**
 * Moves WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever
 * COMMIT crosses the threshold and fsyncs the database file there, a latency spike for the
 * issuing request that happens to trigger it; the engine's connection turns it off and this
 * thread checkpoints in the background instead.
 */
export class BackgroundCheckpointer {
  private worker: Worker | undefined;

  start(file: string, intervalMs = 500): void {
    if (this.worker || file === ':memory:') return;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, intervalMs, driver: require.resolve('better-sqlite3') },
    });
    this.worker.unref();
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate().then(() => resolve()), 2000);
      worker.once('message', () => {
        clearTimeout(timer);
        void worker.terminate().then(() => resolve());
      });
      worker.postMessage('stop');
    });
  }
}
