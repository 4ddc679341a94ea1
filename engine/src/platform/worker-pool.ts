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
 * Workers start on the first job, are unref'd while idle (they never keep a process alive) and
 * ref'd while a job runs. A worker that dies after it started is replaced and its job rejected
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
  if (workerData.tsLoader) (await import(workerData.tsLoader)).register();
  await import(workerData.entry);
})();
`;

interface Job {
  id: number;
  task: string;
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
}

type Reply = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export class WorkerPool<H extends TaskHandlers> {
  private readonly slots: Slot[] = [];
  /** Jobs on a critical path (a chain's next signature waits for them) go before the others. */
  private readonly urgent: Job[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private state: 'open' | 'closed' | 'unavailable' = 'open';
  private unavailableReason = '';
  readonly size: number;
  private readonly workerData: { entry: string; tsLoader: string | null };

  constructor(private readonly options: WorkerPoolOptions) {
    this.size = Math.max(1, Math.floor(options.size ?? defaultPoolSize()));
    const entry = options.entry.href;
    this.workerData = { entry, tsLoader: entry.endsWith('.ts') ? import.meta.resolve('tsx/esm/api') : null };
  }

  /** False once workers proved unable to start (their entry does not load) or the pool is closed. */
  get available(): boolean {
    return this.state === 'open';
  }

  run<K extends keyof H & string>(task: K, input: Parameters<H[K]>[0], options: { urgent?: boolean } = {}): Promise<ReturnType<H[K]>> {
    if (this.state === 'closed') return Promise.reject(new WorkerPoolError(`${this.options.name} is closed`, 'closed'));
    if (this.state === 'unavailable') return Promise.reject(new WorkerPoolError(this.unavailableReason, 'unavailable'));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, task, input, resolve: resolve as (value: unknown) => void, reject };
      (options.urgent === true ? this.urgent : this.queue).push(job);
      this.pump();
    });
  }

  /** Rejects what is queued or running and stops every worker. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    const closed = () => new WorkerPoolError(`${this.options.name} closed`, 'closed');
    for (const job of this.urgent.splice(0).concat(this.queue.splice(0))) job.reject(closed());
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        slot.job?.reject(closed());
        slot.job = null;
        return slot.worker.terminate();
      }),
    );
  }

  private pump(): void {
    if (this.state !== 'open') return;
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.urgent.shift() ?? this.queue.shift();
      if (!job) return;
      this.dispatch(slot, job);
    }
    // Start another worker only while jobs wait and none is still starting.
    if (this.urgent.length + this.queue.length > 0 && this.slots.length < this.size && this.slots.every((s) => s.ready)) this.spawn();
  }

  private dispatch(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref();
    slot.worker.postMessage({ id: job.id, task: job.task, input: job.input });
  }

  private spawn(): void {
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: this.workerData });
    worker.unref();
    const slot: Slot = { worker, ready: false, job: null };
    this.slots.push(slot);
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.pump();
        return;
      }
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      slot.job = null;
      worker.unref();
      if (reply.ok) job.resolve(reply.value);
      else job.reject(new Error(reply.message));
      this.pump();
    });
    worker.on('error', (error) => this.lost(slot, error));
    worker.on('exit', (code) => this.lost(slot, new Error(`worker exited with code ${code}`)));
  }

  /** A worker died: its job is rejected; it is replaced, unless it never started (then the pool gives up). */
  private lost(slot: Slot, error: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    void slot.worker.terminate();
    if (this.state !== 'open') return;
    const job = slot.job;
    slot.job = null;
    if (!slot.ready) {
      this.state = 'unavailable';
      this.unavailableReason = `${this.options.name}: workers cannot start (${error.message})`;
      this.options.logger?.error('worker pool unavailable', { pool: this.options.name, error: error.message });
      const unavailable = () => new WorkerPoolError(this.unavailableReason, 'unavailable');
      for (const queued of this.urgent.splice(0).concat(this.queue.splice(0))) queued.reject(unavailable());
      for (const other of this.slots.splice(0)) {
        other.job?.reject(unavailable());
        void other.worker.terminate();
      }
      return;
    }
    this.options.logger?.warn('worker replaced', { pool: this.options.name, error: error.message });
    job?.reject(new WorkerPoolError(`${this.options.name}: the worker running this job stopped (${error.message})`, 'crashed'));
    this.pump();
  }
}
