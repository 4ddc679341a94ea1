import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Logger } from './logger';

/**
 * A pool of worker threads for pure CPU work (QR images, XAdES signatures): no database, no I/O.
 *
 * The worker's code is a module (`entry`) that calls `serveTasks` (worker-tasks.ts). Threads do not
 * inherit the host's TypeScript loader, so a plain-JS bootstrap registers tsx's ESM hooks in the
 * thread first when the entry is a `.ts` file (`npm start`, vitest, benches); the desktop bundle
 * passes its built `.js` entry (vite.config.ts) and needs no loader.
 *
 * Jobs go to a started worker at once (the one with the fewest), not one at a time: a worker
 * that had to wait for the main thread's next turn to get its next job would sit idle whenever
 * the event loop is busy, which is exactly when the work is needed. The worker runs urgent jobs
 * first (worker-tasks.ts). Workers all start with the first job (or on warm()), are unref'd while idle
 * (they never keep a process alive) and ref'd while they have jobs. A worker that dies after it started is replaced and its job rejected
 * with WorkerPoolError; a worker that cannot even load its entry makes the pool `unavailable`
 * (every job rejected, no respawn loop) so that callers can run the work in their own thread.
 */

export type TaskHandlers = Record<string, (input: never) => unknown>;

export class WorkerPoolError extends Error {
  constructor(
    message: string,
    /** `crashed`: the job's worker died; `closed`: the pool was shut down; `unavailable`: workers cannot start. */
    readonly reason: 'crashed' | 'closed' | 'unavailable',
  ) {
    super(message);
    this.name = 'WorkerPoolError';
  }
}

export interface WorkerPoolOptions {
  /** The worker module (file URL). */
  entry: URL;
  /** Threads; default: the cores the machine has minus the main thread, at least 1. */
  size?: number | undefined;
  /** Shown in errors and logs. */
  name: string;
  logger?: Logger | undefined;
}

/** Cores minus the one the main thread (event loop, SQLite) keeps busy, at least 1. */
export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism() - 1);
}

// Plain JS, evaluated as the thread's main script: it runs whatever loader the host has.
const BOOTSTRAP = String.raw`
const { workerData } = require('node:worker_threads');
(async () => {
  for (const url of workerData.preload) await import(url);
  if (workerData.tsLoader) (await import(workerData.tsLoader)).register();
  await import(workerData.entry);
})();
`;

/**
 * Starts a worker thread running the module `entry` (a `.ts` source under tsx, or a bundled `.js`),
 * with `data` as its `workerData.data`. Unref'd: it never keeps the process alive by itself.
 * `preload`: packages the entry imports, loaded before tsx's hooks are registered in the thread;
 * through the hooks a package of hundreds of modules (kysely) loads three times slower.
 */
export function startModuleWorker(entry: URL, data?: unknown, options: { preload?: readonly string[] } = {}): Worker {
  const href = entry.href;
  const ts = href.endsWith('.ts');
  const worker = new Worker(BOOTSTRAP, {
    eval: true,
    workerData: {
      entry: href,
      tsLoader: ts ? import.meta.resolve('tsx/esm/api') : null,
      preload: ts ? (options.preload ?? []).map((name) => import.meta.resolve(name)) : [],
      data,
    },
  });
  worker.unref();
  return worker;
}

interface Job {
  id: number;
  task: string;
  input: unknown;
  urgent: boolean;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Sent to this worker and not answered yet. */
  jobs: Map<number, Job>;
}

type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };
/** The worker's messages: ready once loaded, then answers, several at a time. */
type Reply = { ready: true } | Answer[];

export class WorkerPool<H extends TaskHandlers> {
  private readonly slots: Slot[] = [];
  /** Jobs waiting for a worker to start; those on a critical path (a chain's next signature waits for them) first. */
  private readonly urgent: Job[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private state: 'open' | 'closed' | 'unavailable' = 'open';
  private pumpScheduled = false;
  private unavailableReason = '';
  readonly size: number;

  constructor(private readonly options: WorkerPoolOptions) {
    this.size = Math.max(1, Math.floor(options.size ?? defaultPoolSize()));
  }

  /** False once workers proved unable to start (their entry does not load) or the pool is closed. */
  get available(): boolean {
    return this.state === 'open';
  }

  run<K extends keyof H & string>(task: K, input: Parameters<H[K]>[0], options: { urgent?: boolean } = {}): Promise<ReturnType<H[K]>> {
    if (this.state === 'closed') return Promise.reject(new WorkerPoolError(`${this.options.name} is closed`, 'closed'));
    if (this.state === 'unavailable') return Promise.reject(new WorkerPoolError(this.unavailableReason, 'unavailable'));
    return new Promise((resolve, reject) => {
      const urgent = options.urgent === true;
      const job: Job = { id: this.nextId++, task, input, urgent, resolve: resolve as (value: unknown) => void, reject };
      (urgent ? this.urgent : this.queue).push(job);
      this.schedulePump();
    });
  }

  /** Worker threads alive (starting or started). */
  get threads(): number {
    return this.slots.length;
  }

  /** Starts every worker now rather than on the first jobs (an engine's start: the first sale does not wait for one). */
  warm(): void {
    while (this.state === 'open' && this.slots.length < this.size) this.spawn();
  }

  /** Rejects what is queued or running and stops every worker. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    const closed = () => new WorkerPoolError(`${this.options.name} closed`, 'closed');
    for (const job of this.urgent.splice(0).concat(this.queue.splice(0))) job.reject(closed());
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        for (const job of slot.jobs.values()) job.reject(closed());
        slot.jobs.clear();
        return slot.worker.terminate();
      }),
    );
  }

  /**
   * Jobs asked for in the same turn of the event loop (the requests read in one poll phase, the
   * answers of one group commit) leave together, one message per worker: every message is a
   * cross-thread wake-up and a lock on the port, which cost the main thread more than the copying.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.state !== 'open') return;
    if (this.slots.length === 0) this.warm();
    const ready = this.slots.filter((s) => s.ready);
    const starting = ready.length < this.slots.length;
    const outbox = new Map<Slot, { id: number; task: string; input: unknown; urgent: boolean }[]>();
    while (ready.length > 0 && this.urgent.length + this.queue.length > 0) {
      let least = ready[0]!;
      for (const slot of ready) if (slot.jobs.size < least.jobs.size) least = slot;
      // Every started worker has work and another is about to start: it takes the next job.
      if (least.jobs.size > 0 && starting) break;
      const job = (this.urgent.shift() ?? this.queue.shift())!;
      if (least.jobs.size === 0) least.worker.ref();
      least.jobs.set(job.id, job);
      const batch = outbox.get(least) ?? [];
      batch.push({ id: job.id, task: job.task, input: job.input, urgent: job.urgent });
      outbox.set(least, batch);
    }
    for (const [slot, batch] of outbox) slot.worker.postMessage(batch);
  }

  private spawn(): void {
    const worker = startModuleWorker(this.options.entry);
    const slot: Slot = { worker, ready: false, jobs: new Map() };
    this.slots.push(slot);
    worker.on('message', (reply: Reply) => {
      if (!Array.isArray(reply)) {
        slot.ready = true;
        this.pump();
        return;
      }
      for (const answer of reply) {
        const job = slot.jobs.get(answer.id);
        if (!job) continue;
        slot.jobs.delete(answer.id);
        if (answer.ok) job.resolve(answer.value);
        else job.reject(new Error(answer.message));
      }
      if (slot.jobs.size === 0) worker.unref();
    });
    worker.on('error', (error) => this.lost(slot, error));
    worker.on('exit', (code) => this.lost(slot, new Error(`worker exited with code ${code}`)));
  }

  /** A worker died: its jobs are rejected; it is replaced, unless it never started (then the pool gives up). */
  private lost(slot: Slot, error: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    void slot.worker.terminate();
    if (this.state !== 'open') return;
    const jobs = [...slot.jobs.values()];
    slot.jobs.clear();
    if (!slot.ready) {
      this.state = 'unavailable';
      this.unavailableReason = `${this.options.name}: workers cannot start (${error.message})`;
      this.options.logger?.error('worker pool unavailable', { pool: this.options.name, error: error.message });
      const unavailable = () => new WorkerPoolError(this.unavailableReason, 'unavailable');
      for (const queued of this.urgent.splice(0).concat(this.queue.splice(0))) queued.reject(unavailable());
      for (const other of this.slots.splice(0)) {
        for (const job of other.jobs.values()) job.reject(unavailable());
        void other.worker.terminate();
      }
      return;
    }
    this.options.logger?.warn('worker replaced', { pool: this.options.name, error: error.message });
    for (const job of jobs) job.reject(new WorkerPoolError(`${this.options.name}: the worker running this job stopped (${error.message})`, 'crashed'));
    this.spawn();
    this.pump();
  }
}
