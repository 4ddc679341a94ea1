import { performance } from 'node:perf_hooks';

/**
 * Issuing first at SQLite's write lock. Issuing (the main thread's group commit) and the filing
 * thread are two writers on one file; SQLite lets a waiting writer poll the lock with sleeps
 * (busy_timeout), so a filing thread that commits back to back can keep an issuing commit waiting
 * across many of its transactions, with the main thread's event loop stopped meanwhile.
 *
 * Both sides share three counters (a SharedArrayBuffer, so the filing thread sees them at once):
 *  - ISSUING: issuing work queued for, or inside, a write transaction. The filing thread starts
 *    no write transaction while it is above zero, for up to `maxDeferMs` per transaction: the
 *    floor that keeps a drain going while issuing never pauses.
 *  - FILING: 1 while the filing thread is inside a write transaction. An issuing commit that finds
 *    it set waits for it (without blocking the event loop) instead of in SQLite's busy handler.
 *  - ISSUED: issuing requests through their write transaction so far, and ISSUED_AT: when the
 *    last one left it. While issuing moves, the filing thread also leaves issuing most of the CPU
 *    (FilingTurns).
 * Each side raises its own counter before reading the other's (sequentially consistent atomics),
 * so they never both go ahead unseen: at worst both see each other and the filing thread steps
 * back. SQLite's lock stays what guarantees exclusion; this only orders who asks first, and every
 * wait ends after a bounded time, so a thread that dies mid-transaction cannot hold issuing up.
 */
const ISSUING = 0;
const FILING = 1;
const ISSUED = 2;
const ISSUED_AT = 3;
const CELLS = 4;

/**
 * Milliseconds on a clock both threads share (each thread's performance.now() counts from its own
 * start), wrapped to an Int32 cell: differences are exact up to 24 days apart.
 */
const sharedNowMs = () => Math.trunc(performance.timeOrigin + performance.now()) | 0;

/** Longest an issuing commit waits on the filing thread's flag before asking SQLite anyway. */
const ISSUING_WAIT_CAP_MS = 1_000;

/** Atomics.waitAsync (ES2024, in Node 20), typed here because the project's lib is ES2023. */
type WaitAsync = (
  cells: Int32Array,
  index: number,
  value: number,
  timeoutMs?: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** Resolves once cells[index] is no longer `value`, or after `timeoutMs`. */
async function changeFrom(cells: Int32Array, index: number, value: number, timeoutMs: number): Promise<void> {
  const wait = waitAsync(cells, index, value, Math.max(0, timeoutMs));
  if (wait.async) await wait.value;
}

/** How a background writer takes SQLite's write lock: one write transaction per turn. */
export interface WriteTurns {
  take<T>(transaction: () => T): Promise<T>;
  /**
   * Whether issuing committed lately, so that the lock must be held only briefly. False only when
   * it is known to be idle: long work may then go in fewer, larger transactions. Absent: busy.
   */
  issuingBusy?(): boolean;
}

/**
 * Turns of workers on the main thread (no filing thread): what the event loop already has due
 * (a group commit's flush, requests read meanwhile) runs before each transaction.
 */
export const afterPendingEvents: WriteTurns = {
  take: (transaction) => new Promise((resolve, reject) => setImmediate(() => {
    try {
      resolve(transaction());
    } catch (error) {
      reject(error);
    }
  })),
};

export class WritePriority {
  private readonly cells: Int32Array;

  /** `buffer`: the main thread's, handed to the filing thread in its workerData. */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT)) {
    this.cells = new Int32Array(buffer);
  }

  // Issuing's side (main thread).

  /** `n` issuing requests now wait for a write transaction. */
  issuingQueued(n = 1): void {
    Atomics.add(this.cells, ISSUING, n);
  }

  /** `n` issuing requests left their write transaction (committed or not). */
  issuingDone(n = 1): void {
    Atomics.store(this.cells, ISSUED_AT, sharedNowMs());
    Atomics.add(this.cells, ISSUED, n);
    if (Atomics.sub(this.cells, ISSUING, n) === n) Atomics.notify(this.cells, ISSUING);
  }

  /** Undefined when the filing thread holds no write transaction; else resolves once it leaves it. */
  filingLeft(): Promise<void> | undefined {
    if (Atomics.load(this.cells, FILING) === 0) return undefined;
    return changeFrom(this.cells, FILING, 1, ISSUING_WAIT_CAP_MS);
  }

  /** The filing thread left its write transaction, or is gone (it may have died inside one). */
  filingReleased(): void {
    Atomics.store(this.cells, FILING, 0);
    Atomics.notify(this.cells, FILING);
  }

  // The filing thread's side.

  /** The filing thread's turns (see FilingPolicy). */
  filingTurns(policy: FilingPolicy): WriteTurns & { issuingBusy(): boolean } {
    return new FilingTurns(this, policy);
  }

  /** Issuing requests through their write transaction so far (a counter that wraps: compare for change only). */
  issued(): number {
    return Atomics.load(this.cells, ISSUED);
  }

  /** How long ago (ms, this thread's performance.now() scale) the last issuing request left its write transaction. */
  msSinceIssued(): number {
    return Math.max(0, (sharedNowMs() - Atomics.load(this.cells, ISSUED_AT)) | 0);
  }

  /**
   * The filing thread's side: runs `write` (one write transaction) once no issuing work waits for
   * the lock, or once `maxDeferMs` have passed since the call, whichever comes first.
   */
  async filingWrite<T>(write: () => T, maxDeferMs: number): Promise<T> {
    const deadline = performance.now() + maxDeferMs;
    for (;;) {
      for (let queued = Atomics.load(this.cells, ISSUING); queued > 0; queued = Atomics.load(this.cells, ISSUING)) {
        const left = deadline - performance.now();
        if (left <= 0) break;
        await changeFrom(this.cells, ISSUING, queued, left);
      }
      Atomics.store(this.cells, FILING, 1);
      // Issuing may have queued between the check and the flag: it goes first, unless our time is up.
      if (Atomics.load(this.cells, ISSUING) === 0 || performance.now() >= deadline) break;
      this.filingReleased();
    }
    try {
      return write();
    } finally {
      this.filingReleased();
    }
  }
}

/** How the filing thread leaves issuing the lock and the CPU. */
export interface FilingPolicy {
  /** The longest one write transaction waits while issuing keeps queuing commits (the lock's floor). */
  maxDeferMs: number;
  /**
   * The share of its time the filing thread works while issuing is busy: before each write
   * transaction it rests so long that its work since the previous one is at most this share.
   * 1: no rest.
   */
  shareWhileIssuing: number;
  /** Issuing counts as busy for this long after its last commit. */
  issuingWindowMs: number;
  /** The longest single rest. */
  maxRestMs: number;
}

/**
 * The filing thread's turns: before each write transaction, a rest while issuing is busy (its
 * work measured as the time its event loop was busy since the previous turn: reading rows,
 * parsing answers, building requests, the transactions themselves), then the transaction itself
 * once no issuing commit waits (WritePriority.filingWrite).
 */
class FilingTurns implements WriteTurns {
  private issuedSeen: number;
  private issuingSeenAt = Number.NEGATIVE_INFINITY;
  private busySince = performance.eventLoopUtilization();

  constructor(
    private readonly priority: WritePriority,
    private readonly policy: FilingPolicy,
  ) {
    this.issuedSeen = priority.issued();
  }

  async take<T>(transaction: () => T): Promise<T> {
    await this.rest();
    return this.priority.filingWrite(transaction, this.policy.maxDeferMs);
  }

  issuingBusy(): boolean {
    return this.sinceIssuing(performance.now()) <= this.policy.issuingWindowMs;
  }

  /** Milliseconds since issuing last committed (as of `now`), noticing new commits. */
  private sinceIssuing(now: number): number {
    const issued = this.priority.issued();
    if (issued !== this.issuedSeen) {
      this.issuedSeen = issued;
      // When issuing last committed, not when this thread noticed: after a pause (a backlog issued
      // while filing was paused or idle) the drain starts at full speed, not resting as if a till
      // had just committed.
      this.issuingSeenAt = now - this.priority.msSinceIssued();
    }
    return now - this.issuingSeenAt;
  }

  private async rest(): Promise<void> {
    const now = performance.now();
    const since = this.sinceIssuing(now);
    const worked = performance.eventLoopUtilization(this.busySince).active;
    this.busySince = performance.eventLoopUtilization();
    const { shareWhileIssuing: share, issuingWindowMs, maxRestMs } = this.policy;
    if (share >= 1 || since > issuingWindowMs) return;
    const restMs = Math.min(maxRestMs, (worked * (1 - share)) / share);
    if (restMs >= 1) await new Promise((resolve) => setTimeout(resolve, restMs));
  }
}
