import { closeSync, fsync, openSync } from 'node:fs';

interface Waiters {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function waiters(): Waiters {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A flush nobody awaits (e.g. a batch whose requests all failed) must not become an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** A failed fsync: what was committed since the last good one may not be on disk. */
export class WalSyncError extends Error {
  constructor(override readonly cause: Error) {
    super(`fsync of the write-ahead log failed: ${cause.message}`);
    this.name = 'WalSyncError';
  }
}

/**
 * Durability off the event loop. A commit written with `synchronous=NORMAL` in WAL mode is
 * complete in the WAL file but not yet fsynced; SQLite with `synchronous=FULL` would fsync that
 * file inside COMMIT, blocking the only thread that serves requests. Here the same fsync runs on
 * libuv's thread pool while the main thread goes on with the next requests, and whoever waits
 * for `flush()` learns only once it returned. fsync covers the whole file, so one fsync makes every
 * commit written before it started durable: commits arriving while one runs share the next.
 *
 * A failed fsync is final (the kernel may have dropped the unwritten pages; a later fsync could
 * succeed without them on disk): every later flush fails too, until the engine restarts and
 * SQLite recovers from what is actually on disk.
 */
export class WalSync {
  private fd: number | undefined;
  private running: Waiters | null = null;
  private queued: Waiters | null = null;
  private failure: WalSyncError | null = null;

  constructor(private readonly walFile: string) {}

  /** Resolves once every commit written before this call is on disk. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.running) return this.start().promise;
    // The running fsync may have started before the caller's commit: the next one covers it.
    this.queued ??= waiters();
    return this.queued.promise;
  }

  /** Resolves once every commit flushed so far is on disk (nothing to wait for when idle). */
  whenDurable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return (this.queued ?? this.running)?.promise ?? Promise.resolve();
  }

  /** Opens the WAL's descriptor now rather than at the first flush (it must exist). */
  open(): void {
    this.fd ??= openSync(this.walFile, 'r+');
  }

  get failed(): WalSyncError | null {
    return this.failure;
  }

  private start(into: Waiters = waiters()): Waiters {
    this.running = into;
    let fd: number;
    try {
      fd = this.fd ??= openSync(this.walFile, 'r+');
    } catch (error) {
      this.settle(error as Error);
      return into;
    }
    fsync(fd, (error) => this.settle(error));
    return into;
  }

  private settle(error: Error | null): void {
    const done = this.running;
    this.running = null;
    if (error) this.failure ??= new WalSyncError(error);
    if (this.failure) {
      done?.reject(this.failure);
      this.queued?.reject(this.failure);
      this.queued = null;
      return;
    }
    done?.resolve();
    const next = this.queued;
    this.queued = null;
    if (next) this.start(next);
  }

  /** Waits for the fsyncs under way, then releases the file. */
  async close(): Promise<void> {
    await this.whenDurable().catch(() => {});
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
