import type { Database } from '../db/database';
import type { WritePriority } from '../db/write-priority';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: issuing requests that arrive together share one SQLite transaction and so one
 * fsync (synchronous=FULL caps one-commit-per-request at a few thousand a second). Each request
 * runs in its own savepoint, so one failing request rolls back alone; every promise settles only
 * once the shared COMMIT is on disk, so a 200 is never sent for work that is not. The fsync runs
 * off the event loop (Database.transactionDurableLater): while it runs, the next requests are
 * parsed, validated, chained and committed, and share the next fsync.
 *
 * With a filing thread (`priority`), issuing goes first at the write lock: queued requests keep
 * the filing thread from starting a write transaction, and a flush that finds one running waits
 * for it without stopping the event loop, instead of in SQLite's busy handler.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Database,
    private readonly maxBatch = 512,
    private readonly priority?: WritePriority,
  ) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.priority?.issuingQueued();
      if (!this.scheduled) {
        this.scheduled = true;
        // After the current I/O phase: requests parsed in the same turn join this batch.
        setImmediate(() => this.flush());
      }
    });
  }

  /** `waited`: after one wait for the filing thread, SQLite's lock (busy_timeout) decides. */
  private flush(waited = false): void {
    const filing = waited ? undefined : this.priority?.filingLeft();
    if (filing) {
      // Requests read meanwhile join this batch.
      void filing.then(() => this.flush(true));
      return;
    }
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    let durable: Promise<void>;
    try {
      ({ durable } = this.durableLater(batch.length, () => {
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: this.db.transaction(item.work) });
          } catch (error) {
            // SQLITE_FULL, IOERR, NOMEM…: SQLite may roll back the whole transaction, not just the
            // savepoint. Then nothing of the batch is stored: every request gets this error.
            if (!this.db.sqlite.inTransaction) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      }));
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    const settle = () =>
      batch.forEach((item, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) item.resolve(outcome.value);
        else item.reject(outcome?.error);
      });
    // Every answer waits for the fsync, refusals and replays too: a 409 or a repeated answer may
    // rest on an earlier batch's commit that is still being fsynced.
    durable.then(settle, (error: unknown) => batch.forEach((item) => item.reject(error)));
  }

  /** The batch's transaction; once it is over (the lock is free) its requests no longer hold the filing thread back. */
  private durableLater(requests: number, fn: () => void): { durable: Promise<void> } {
    try {
      return this.db.transactionDurableLater(fn);
    } finally {
      this.priority?.issuingDone(requests);
    }
  }
}
