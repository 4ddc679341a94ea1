// Entry of the filing thread (see filing-thread.ts; bundled as engine-filing.js for the desktop app).
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDatabase, type SqliteDatabase as Database } from '../db/database';
import { WritePriority, type FilingPolicy } from '../db/write-priority';
import { systemClock } from '../platform/clock';
import { timeOrderedIds } from '../platform/ids';
import type { Logger } from '../platform/logger';
import type { FilingThreadStart, FromFilingThread, ToFilingThread } from './filing-thread';
import { LazySyncTurns } from './lazy-sync-turns';
import { FILING_THREAD_NICENESS, lowerThisThreadsPriority } from './thread-priority';
import { buildFilingWorkers, type FilingWorkers } from './workers';

const port = parentPort;
if (!port) throw new Error('the filing thread runs in a worker thread');
const data = (workerData as { data: FilingThreadStart }).data;

/**
 * Issuing first, at the lock and at the CPU. A write transaction waits while issuing commits are
 * queued, at most 100 ms: the floor under a drain while the tills never pause (each transaction
 * applies up to VERDICTS_PER_TRANSACTION verdicts). While issuing committed within the last half
 * second the thread works at most half its time, resting between transactions as long as it
 * worked: a till's rush hour keeps most of the CPU and the drain goes on at half speed or better.
 */
const ISSUING_FIRST: FilingPolicy = { maxDeferMs: 100, shareWhileIssuing: 0.5, issuingWindowMs: 500, maxRestMs: 250 };
const send = (message: FromFilingThread) => port.postMessage(message);

/** Log lines go to the engine's logger on the main thread: one log file, and tests' silent logger stays silent. */
const relay = (level: 'info' | 'warn' | 'error') => (message: string, extra?: Record<string, unknown>) => {
  try {
    send({ type: 'log', level, message, ...(extra ? { data: extra } : {}) });
  } catch {
    send({ type: 'log', level, message, data: { detail: String(extra) } });
  }
};
const logger: Logger = { info: relay('info'), warn: relay('warn'), error: relay('error') };

/**
 * Its own connection, opened at 'start' (the thread loads while the main thread migrates): reads
 * never wait for issuing (WAL); its write turns commit without an fsync inside the lock
 * (LazySyncTurns), and before each send to an authority or a webhook it fsyncs the WAL, which may
 * hold issuing commits still in their fsync and its own commits since the last fsync.
 */
let running: { db: Database; workers: FilingWorkers } | undefined;
let stopping = false;

/** Issuing first at the CPU too: the scheduler runs this thread after the tills' (thread-priority.ts). */
function yieldCpuToIssuing(): void {
  try {
    const lowered = lowerThisThreadsPriority(FILING_THREAD_NICENESS);
    if (lowered) logger.info('filing thread runs at a lower CPU priority', lowered);
  } catch (error) {
    logger.warn('could not lower the filing thread CPU priority', { error: String(error) });
  }
}

function start(guardedPorts: number[]): void {
  yieldCpuToIssuing();
  const db = new SqliteDatabase(data.file, { otherWriters: true });
  const turns = new LazySyncTurns(db, new WritePriority(data.writePriority).filingTurns(ISSUING_FIRST));
  const workers = buildFilingWorkers(db, systemClock, timeOrderedIds(systemClock), logger, data, turns);
  workers.webhookDeliveries.addresses.guardPorts(guardedPorts);
  running = { db, workers };
  if (data.submitAutomatically) workers.submissions.start();
  if (data.webhooks.deliverAutomatically) workers.webhookDeliveries.start();
}

/** Lets what is in flight settle (nothing left half-recorded), then closes the connection. */
async function stop(): Promise<void> {
  if (running) {
    await running.workers.submissions.stop();
    await running.workers.webhookDeliveries.stop();
    await running.db.close();
  }
  send({ type: 'stopped' });
}

port.on('message', (message: ToFilingThread) => {
  if (stopping) return;
  switch (message.type) {
    case 'start':
      if (!running) start(message.guardedPorts);
      send({ type: 'started' });
      break;
    case 'enqueued':
      for (const [queueKey, records] of message.queues) running?.workers.submissions.enqueued(queueKey, records);
      break;
    case 'wake':
      running?.workers.submissions.wake();
      break;
    case 'webhooks-changed':
      running?.workers.webhookDeliveries.wake();
      break;
    case 'stop':
      stopping = true;
      void stop();
      break;
  }
});
