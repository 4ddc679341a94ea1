import type { Worker } from 'node:worker_threads';
import { WritePriority } from '../db/write-priority';
import type { Logger } from '../platform/logger';
import { startModuleWorker } from '../platform/worker-pool';
import type { Filing, FilingSettings } from './workers';

/**
 * The thread's module: the TypeScript source when the engine runs from source (tsx, vitest); in
 * the desktop bundle (vite.config.ts) its own entry, engine-filing.js, beside engine-utility.js.
 */
const ENTRY = import.meta.url.endsWith('.ts') ? new URL('./filing-thread-worker.ts', import.meta.url) : new URL('./engine-filing.js', import.meta.url);

/** The thread's heavy packages, loaded natively before tsx when it runs from source (worker-pool.ts). */
const PRELOAD = ['kysely', 'better-sqlite3', 'fast-xml-parser', 'zod'];

/** What the filing thread is started with (`workerData.data`). */
export interface FilingThreadData extends FilingSettings {
  /** The engine's database file, migrated by the main thread before the thread starts. */
  file: string;
}

/** What the thread is spawned with: its settings and the write-lock priority it shares with issuing. */
export interface FilingThreadStart extends FilingThreadData {
  writePriority: SharedArrayBuffer;
}

/** Main thread → filing thread. */
export type ToFilingThread =
  | { type: 'start'; guardedPorts: number[] }
  | { type: 'enqueued'; queues: [queueKey: string, records: number][] }
  | { type: 'wake' }
  | { type: 'webhooks-changed' }
  | { type: 'stop' };

/** Filing thread → main thread. */
export type FromFilingThread =
  | { type: 'started' }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string; data?: Record<string, unknown> }
  | { type: 'stopped' };

/** A thread that ran at least this long before dying is restarted at once; one dying sooner waits longer each time. */
const HEALTHY_RUN_MS = 60_000;
const RESTART_DELAY_MS = { first: 250, max: 30_000 };

/**
 * The submission and webhook workers on a thread of their own (filing-thread-worker.ts), with
 * their own SQLite connection to the engine's file, so building submissions, applying verdicts
 * and delivering webhooks never take the event loop that answers issuing requests.
 *
 * The main thread only posts messages: records committed (coalesced per event-loop turn), wake
 * (the panel's retry and resume), webhooks changed, stop. A thread that dies is logged and
 * started again (nothing is lost: the work is in the tables and a fresh thread starts with a
 * full pass); while it is down issuing goes on as before.
 */
export class FilingThread implements Filing {
  /** Shared with the thread: issuing's group commit goes first at the write lock (GroupCommit). */
  readonly priority = new WritePriority();
  private worker: Worker | undefined;
  /** loaded: the thread is up (or loading) with its workers idle; running: told to start. */
  private state: 'idle' | 'loaded' | 'running' | 'stopping' | 'stopped' = 'idle';
  private pending = new Map<string, number>();
  private flushScheduled = false;
  private startedAt = 0;
  private quickDeaths = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopped: Promise<void> | undefined;
  /** The engine's and its emulators' ports, handed to the thread's webhook worker at each start. */
  private guardedPorts: number[] = [];

  constructor(
    private readonly data: FilingThreadData,
    private readonly logger: Logger,
    private readonly entry: URL = ENTRY,
  ) {}

  /** Starts the thread with its workers idle: it loads its code (no connection yet) until start(). */
  prepare(): void {
    if (this.state !== 'idle') return;
    this.state = 'loaded';
    this.spawn();
  }

  /** Resolves once the thread's workers run, or once a thread that died before that is being restarted. */
  start(guardedPorts: readonly number[] = []): Promise<void> {
    if (this.state !== 'idle' && this.state !== 'loaded') return Promise.resolve();
    this.guardedPorts = [...guardedPorts];
    if (this.state === 'idle') this.spawn();
    this.state = 'running';
    const worker = this.worker;
    // Died while loading: the restart under way starts the new one.
    if (!worker) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('exit', done);
        resolve();
      };
      const onMessage = (message: FromFilingThread) => {
        if (message.type === 'started') done();
      };
      worker.on('message', onMessage);
      worker.once('exit', done);
      worker.postMessage({ type: 'start', guardedPorts: this.guardedPorts } satisfies ToFilingThread);
    });
  }

  enqueued(queueKey: string): void {
    if (this.state !== 'running') return;
    this.pending.set(queueKey, (this.pending.get(queueKey) ?? 0) + 1);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // One message for every commit of this turn (a group commit enqueues hundreds at once).
    setImmediate(() => {
      this.flushScheduled = false;
      const queues = [...this.pending];
      this.pending.clear();
      this.post({ type: 'enqueued', queues });
    });
  }

  wakeSubmissions(): void {
    this.post({ type: 'wake' });
  }

  webhooksChanged(): void {
    this.post({ type: 'webhooks-changed' });
  }

  /** Asks the thread to finish what it has in flight and close its connection; resolves once it has exited. */
  stop(): Promise<void> {
    this.stopped ??= this.stopThread();
    return this.stopped;
  }

  private async stopThread(): Promise<void> {
    const worker = this.worker;
    this.state = worker ? 'stopping' : 'stopped';
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    if (!worker) return;
    worker.ref();
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.on('message', (message: FromFilingThread) => {
        // Its connection is closed and nothing is in flight: whatever keeps the thread's event
        // loop alive now (idle keep-alive sockets) holds nothing of ours.
        if (message.type === 'stopped') void worker.terminate();
      });
      worker.postMessage({ type: 'stop' } satisfies ToFilingThread);
    });
    this.worker = undefined;
    this.state = 'stopped';
  }

  private post(message: ToFilingThread): void {
    if (this.state === 'running') this.worker?.postMessage(message);
  }

  private spawn(): void {
    const start: FilingThreadStart = { ...this.data, writePriority: this.priority.buffer };
    const worker = startModuleWorker(this.entry, start, { preload: PRELOAD });
    this.worker = worker;
    this.startedAt = Date.now();
    worker.on('message', (message: FromFilingThread) => {
      if (message.type === 'log') this.logger[message.level](message.message, message.data);
    });
    worker.on('error', (error) => this.logger.error('filing thread failed', { error: error.stack ?? error.message }));
    worker.on('exit', (code) => {
      // It may have died inside a write transaction: issuing no longer waits for it.
      this.priority.filingReleased();
      if (this.worker !== worker || (this.state !== 'running' && this.state !== 'loaded')) return;
      this.worker = undefined;
      this.quickDeaths = Date.now() - this.startedAt >= HEALTHY_RUN_MS ? 0 : this.quickDeaths + 1;
      const delay = this.quickDeaths === 0 ? 0 : Math.min(RESTART_DELAY_MS.max, RESTART_DELAY_MS.first * 2 ** (this.quickDeaths - 1));
      this.logger.error('filing thread stopped unexpectedly; starting it again', { exitCode: code, restartInMs: delay });
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (this.state !== 'running' && this.state !== 'loaded') return;
        this.spawn();
        if (this.state === 'running') this.worker?.postMessage({ type: 'start', guardedPorts: this.guardedPorts } satisfies ToFilingThread);
      }, delay);
      this.restartTimer.unref();
    });
  }
}
