/**
 * Issuing first at SQLite's write lock. Issuing (the main thread's group commit) and the filing
 * thread are two writers on one file; SQLite lets a waiting writer poll the lock with sleeps
 * (busy_timeout), so a filing thread that commits back to back can keep an issuing commit waiting
 * across many of its transactions, with the main thread's event loop stopped meanwhile.
 *
 * Both sides share two counters (a SharedArrayBuffer, so the filing thread sees them at once):
 *  - ISSUING: issuing work queued for, or inside, a write transaction. The filing thread starts
 *    no write transaction while it is above zero, for up to `maxDeferMs` per transaction: the
 *    floor that keeps a drain going while issuing never pauses.
 *  - FILING: 1 while the filing thread is inside a write transaction. An issuing commit that finds
 *    it set waits for it (without blocking the event loop) instead of in SQLite's busy handler.
 * Each side raises its own counter before reading the other's (sequentially consistent atomics),
 * so they never both go ahead unseen: at worst both see each other and the filing thread steps
 * back. SQLite's lock stays what guarantees exclusion; this only orders who asks first, and every
 * wait ends after a bounded time, so a thread that dies mid-transaction cannot hold issuing up.
 */
const ISSUING = 0;
const FILING = 1;

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
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)) {
    this.cells = new Int32Array(buffer);
  }

  // Issuing's side (main thread).

  /** `n` issuing requests now wait for a write transaction. */
  issuingQueued(n = 1): void {
    Atomics.add(this.cells, ISSUING, n);
  }

  /** `n` issuing requests left their write transaction (committed or not). */
  issuingDone(n = 1): void {
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

  /** The filing thread's turns: each write transaction after issuing's, deferred at most `maxDeferMs`. */
  filingTurns(maxDeferMs: number): WriteTurns {
    return { take: (transaction) => this.filingWrite(transaction, maxDeferMs) };
  }

  /**
   * Runs `write` (one write transaction) once no issuing work waits for the lock, or once
   * `maxDeferMs` have passed since the call, whichever comes first.
   */
  private async filingWrite<T>(write: () => T, maxDeferMs: number): Promise<T> {
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
