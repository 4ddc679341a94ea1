/**
 * Bench-only timeline of the engine process (server-process.ts with BENCH_TRACE=<file>): where a
 * VeriFactu `crear` spends its time, per request, for `npm run bench tail` (tail.ts). Nothing of
 * this is in the product: it wraps the prototypes of the issuing path from outside, in the bench's
 * own engine process only, and writes what it saw to the file when the process is told to stop.
 *
 * Every time is in ms of the monotonic clock (process.hrtime), which the load generator's process
 * reads too, so its due and send times line up with the engine's.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { openSync, readSync, writeFileSync } from 'node:fs';
import { SqliteDatabase as Database } from '../../engine/src/db/database';
import { WalSync } from '../../engine/src/db/wal-sync';
import { WritePriority } from '../../engine/src/db/write-priority';
import { GroupCommit } from '../../engine/src/issuing/group-commit';
import { PureWork } from '../../engine/src/pure-work/pure-work';
import { VerifactuIssuing } from '../../engine/src/regimes/verifactu/service';

export const SEQ_HEADER = 'x-bench-seq';

export const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

/** One request's moments, by its sequence number (the invoice's `numero`). */
export interface RequestMoments {
  arrival?: number;
  crear?: number;
  qrStart?: number;
  qrDone?: number;
  /** QR jobs already at the pool's workers or waiting for one when this request's was asked for. */
  qrAhead?: number;
  workStart?: number;
  workEnd?: number;
  /** The group commit settled its promise (after the batch's fsync). */
  committed?: number;
  answered?: number;
  finish?: number;
  batch?: number;
}

export interface Batch {
  size: number;
  /** setImmediate fired / the transaction began and ended / its fsync returned. */
  txStart: number;
  txEnd: number;
  durable?: number;
}

export interface ServerTrace {
  requests: Record<string, RequestMoments>;
  batches: Batch[];
  fsyncs: { start: number; end: number }[];
  gc: { start: number; ms: number; kind: number }[];
  /** Gaps of the event loop longer than STALL_MS between two ticks of a 1 ms timer. */
  stalls: { start: number; ms: number }[];
  /** A group commit's flush that found the filing thread in a write transaction and waited for it. */
  filingWaits: { start: number; end?: number }[];
  /** Background checkpoints as the WAL-index shows them: copying began (nBackfillAttempted rose) / ended (nBackfill rose). */
  checkpoints: { start: number; end?: number; frames: number }[];
  eventLoopDelayMs: { p50: number; p99: number; max: number; mean: number };
}

const STALL_MS = 4;

type Method = (...args: unknown[]) => unknown;
function wrap(proto: object, name: string, make: (original: Method) => Method): void {
  const target = proto as Record<string, Method>;
  const original = target[name];
  if (typeof original !== 'function') throw new Error(`bench trace: no method ${name} to wrap`);
  target[name] = make(original);
}

/** https://sqlite.org/walformat.html: the checkpoint info after the two header copies, native byte order. */
const N_BACKFILL = 96;
const N_BACKFILL_ATTEMPTED = 128;

interface PoolHolder {
  pool: { slots: { jobs: Map<number, unknown> }[]; queue: unknown[]; urgent: unknown[] } | null;
}
const qrJobsOut = (work: PoolHolder) =>
  work.pool ? work.pool.queue.length + work.pool.urgent.length + work.pool.slots.reduce((sum, slot) => sum + slot.jobs.size, 0) : 0;

export function installTrace(file: string, databaseFile: string): void {
  const trace: ServerTrace = { requests: {}, batches: [], fsyncs: [], gc: [], stalls: [], checkpoints: [], filingWaits: [], eventLoopDelayMs: { p50: 0, p99: 0, max: 0, mean: 0 } };
  const moments = (seq: string): RequestMoments => (trace.requests[seq] ??= {});
  const seqOf = (request: IncomingMessage): string | undefined => {
    const value = request.headers[SEQ_HEADER];
    return typeof value === 'string' ? value : undefined;
  };

  diagnostics.subscribe('http.server.request.start', (message) => {
    const seq = seqOf((message as { request: IncomingMessage }).request);
    if (seq !== undefined) moments(seq).arrival = monotonicMs();
  });
  diagnostics.subscribe('http.server.response.finish', (message) => {
    const seq = seqOf((message as { request: IncomingMessage }).request);
    if (seq !== undefined) moments(seq).finish = monotonicMs();
  });

  // The request whose synchronous part of crear runs now (crear reaches the group commit and the
  // QR pool before its first await).
  let current: RequestMoments | undefined;
  wrap(VerifactuIssuing.prototype, 'crear', (original) =>
    function (this: unknown, ...args: unknown[]) {
      const factura = args[1] as { cabecera: { numero: string } };
      const m = moments(factura.cabecera.numero);
      m.crear = monotonicMs();
      current = m;
      try {
        const answer = original.apply(this, args) as Promise<unknown>;
        void answer.then(() => (m.answered = monotonicMs()), () => (m.answered = monotonicMs()));
        return answer;
      } finally {
        current = undefined;
      }
    },
  );
  wrap(PureWork.prototype, 'qrPngBase64', (original) =>
    function (this: unknown, ...args: unknown[]) {
      const m = current;
      if (m) {
        m.qrStart = monotonicMs();
        m.qrAhead = qrJobsOut(this as PoolHolder);
      }
      const png = original.apply(this, args) as Promise<unknown>;
      if (m) void png.then(() => (m.qrDone = monotonicMs()), () => undefined);
      return png;
    },
  );
  wrap(GroupCommit.prototype, 'run', (original) =>
    function (this: unknown, ...args: unknown[]) {
      const m = current;
      const work = args[0] as () => unknown;
      if (!m) return original.apply(this, args);
      const timed = () => {
        m.workStart = monotonicMs();
        m.batch = trace.batches.length;
        try {
          return work();
        } finally {
          m.workEnd = monotonicMs();
        }
      };
      const done = original.call(this, timed) as Promise<unknown>;
      void done.then(() => (m.committed = monotonicMs()), () => (m.committed = monotonicMs()));
      return done;
    },
  );
  // A group commit's batch: its transaction (Database.transactionDurableLater, which only the
  // group commit calls) and, inside it, runEach(batch), which gives the batch's size.
  let openBatch: Batch | undefined;
  wrap(GroupCommit.prototype, 'runEach', (original) =>
    function (this: unknown, ...args: unknown[]) {
      if (openBatch) openBatch.size = (args[0] as readonly unknown[]).length;
      return original.apply(this, args);
    },
  );
  wrap(Database.prototype, 'transactionDurableLater', (original) =>
    function (this: unknown, ...args: unknown[]) {
      const batch: Batch = { size: 0, txStart: monotonicMs(), txEnd: 0 };
      openBatch = batch;
      try {
        const outcome = original.apply(this, args) as { durable: Promise<void> };
        void outcome.durable.then(() => (batch.durable = monotonicMs()), () => undefined);
        return outcome;
      } finally {
        openBatch = undefined;
        batch.txEnd = monotonicMs();
        trace.batches.push(batch);
      }
    },
  );
  wrap(WritePriority.prototype, 'filingLeft', (original) =>
    function (this: unknown, ...args: unknown[]) {
      const left = original.apply(this, args) as Promise<void> | undefined;
      if (left) {
        const wait: { start: number; end?: number } = { start: monotonicMs() };
        trace.filingWaits.push(wait);
        void left.then(() => (wait.end = monotonicMs()));
      }
      return left;
    },
  );
  // settle(entry, error): the entry start() pushed last onto inFlight.
  const fsyncStarts = new WeakMap<object, number>();
  wrap(WalSync.prototype, 'start', (original) =>
    function (this: { inFlight: object[] }, ...args: unknown[]) {
      const at = monotonicMs();
      const into = original.apply(this, args);
      const entry = this.inFlight[this.inFlight.length - 1];
      if (entry) fsyncStarts.set(entry, at);
      return into;
    },
  );
  wrap(WalSync.prototype, 'settle', (original) =>
    function (this: unknown, ...args: unknown[]) {
      const start = fsyncStarts.get(args[0] as object);
      if (start !== undefined) trace.fsyncs.push({ start, end: monotonicMs() });
      return original.apply(this, args);
    },
  );

  // performance.now() counts from timeOrigin: this offset turns its times into monotonic ms.
  const offset = monotonicMs() - performance.now();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = ((entry as { detail?: { kind?: number } }).detail)?.kind ?? 0;
      trace.gc.push({ start: entry.startTime + offset, ms: entry.duration, kind });
    }
  }).observe({ entryTypes: ['gc'] });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let last = monotonicMs();
  const shm = Buffer.alloc(N_BACKFILL_ATTEMPTED + 4);
  let shmFd: number | undefined;
  let backfill = { attempted: 0, done: 0 };
  const watchCheckpoints = (now: number) => {
    try {
      shmFd ??= openSync(`${databaseFile}-shm`, 'r');
      if (readSync(shmFd, shm, 0, shm.length, 0) !== shm.length) return;
    } catch {
      return;
    }
    const attempted = shm.readUInt32LE(N_BACKFILL_ATTEMPTED);
    const done = shm.readUInt32LE(N_BACKFILL);
    if (attempted > backfill.attempted) trace.checkpoints.push({ start: now, frames: attempted - backfill.done });
    const open = trace.checkpoints[trace.checkpoints.length - 1];
    if (done > backfill.done && open && open.end === undefined) open.end = now;
    backfill = { attempted, done };
  };
  setInterval(() => {
    const now = monotonicMs();
    if (now - last > STALL_MS) trace.stalls.push({ start: last, ms: now - last });
    last = now;
    watchCheckpoints(now);
  }, 1).unref();

  process.prependListener('SIGTERM', () => {
    delay.disable();
    trace.eventLoopDelayMs = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, mean: delay.mean / 1e6 };
    writeFileSync(file, JSON.stringify(trace));
  });
}
