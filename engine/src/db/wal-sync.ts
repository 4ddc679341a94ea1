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

/** One fsync under way on its own descriptor. `waiters`: null once a later fsync answered them. */
interface InFlight {
  slot: number;
  waiters: Waiters | null;
  returned: Promise<void>;
}

/**
 * Durability off the event loop. A commit written with `synchronous=NORMAL` in WAL mode is
 * complete in the WAL file but not yet fsynced; SQLite with `synchronous=FULL` would fsync that
 * file inside COMMIT, blocking the only thread that serves requests. Here the same fsync runs on
 * libuv's thread pool while the main thread goes on with the next requests, and whoever waits
 * for `flush()` learns only once it returned. fsync covers the whole file, so one fsync makes every
 * commit written before it started durable.
 *
 * Up to `maxInFlight` fsyncs run at once (default 2): a commit written while one runs starts its
 * own at once instead of waiting for the running one to return and the event loop to notice, which
 * put up to two fsyncs and an event-loop turn under every acknowledgement (measured: p99 of the
 * wait 35–62 → 11–15 ms at 250 commits/s on the build machine's disk). Past that, flushes share
 * the next one. Each concurrent fsync has a descriptor of its own: Linux reports a write-back
 * error once per open file description, so two fsyncs on one descriptor could see one succeed
 * while the other took the error of pages both needed. An fsync that returns answers every flush
 * of the fsyncs started before it too (their commits were written before it started).
 *
 * A failed fsync is final (the kernel may have dropped the unwritten pages; a later fsync could
 * succeed without them on disk): every later flush fails too, until the engine restarts and
 * SQLite recovers from what is actually on disk.
 */
export class WalSync {
  private readonly fds: (number | undefined)[] = [];
  /** In start order. */
  private readonly inFlight: InFlight[] = [];
  private queued: Waiters | null = null;
  private failure: WalSyncError | null = null;

  constructor(
    private readonly walFile: string,
    private readonly maxInFlight = 2,
  ) {}

  /** Resolves once every commit written before this call is on disk. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.inFlight.length < this.maxInFlight) return this.start(waiters()).promise;
    // Every running fsync may have started before the caller's commit: the next one covers it.
    this.queued ??= waiters();
    return this.queued.promise;
  }

  /** Resolves once every commit flushed so far is on disk (nothing to wait for when idle). */
  whenDurable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return (this.queued ?? this.inFlight[this.inFlight.length - 1]?.waiters)?.promise ?? Promise.resolve();
  }

  /**
   * Undefined while an fsync could start at once; else (every slot busy) resolves when one of
   * those under way returns. A flush asked for now would only wait for that moment: a caller that
   * can gather more commits meanwhile (issuing's group commit) writes them all before it.
   */
  slotFreed(): Promise<void> | undefined {
    if (this.failure || this.inFlight.length < this.maxInFlight) return undefined;
    return Promise.race(this.inFlight.map((f) => f.returned));
  }

  /** Opens the WAL's descriptors now rather than at the first flush (it must exist). */
  open(): void {
    for (let slot = 0; slot < this.maxInFlight; slot++) this.fds[slot] ??= openSync(this.walFile, 'r+');
  }

  get failed(): WalSyncError | null {
    return this.failure;
  }

  private start(into: Waiters): Waiters {
    let slot = 0;
    while (this.inFlight.some((f) => f.slot === slot)) slot++;
    let fd: number;
    try {
      fd = this.fds[slot] ??= openSync(this.walFile, 'r+');
    } catch (error) {
      this.fail(error as Error, into);
      return into;
    }
    let returned!: () => void;
    const entry: InFlight = { slot, waiters: into, returned: new Promise<void>((resolve) => (returned = resolve)) };
    this.inFlight.push(entry);
    fsync(fd, (error) => {
      this.settle(entry, error);
      returned();
    });
    return into;
  }

  private settle(entry: InFlight, error: Error | null): void {
    const at = this.inFlight.indexOf(entry);
    const earlier = this.inFlight.slice(0, at);
    this.inFlight.splice(at, 1);
    if (error || this.failure) {
      this.fail(error ?? this.failure!, entry.waiters);
      return;
    }
    for (const answered of [...earlier, entry]) {
      answered.waiters?.resolve();
      answered.waiters = null;
    }
    const next = this.queued;
    this.queued = null;
    if (next) this.start(next);
  }

  /** Final: `also`, every flush waiting on an fsync under way and the queued ones are rejected. */
  private fail(error: Error, also: Waiters | null): void {
    this.failure ??= error instanceof WalSyncError ? error : new WalSyncError(error);
    also?.reject(this.failure);
    for (const other of this.inFlight) {
      other.waiters?.reject(this.failure);
      other.waiters = null;
    }
    this.queued?.reject(this.failure);
    this.queued = null;
  }

  /** Waits for the fsyncs under way, then releases the file. */
  async close(): Promise<void> {
    await this.whenDurable().catch(() => {});
    // An fsync answered early by a later one may still run on its descriptor.
    await Promise.all(this.inFlight.map((f) => f.returned));
    for (const fd of this.fds) if (fd !== undefined) closeSync(fd);
    this.fds.length = 0;
  }
}
