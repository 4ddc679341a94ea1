import type { Database } from '../db/database';

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
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Database,
    private readonly maxBatch = 512,
  ) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the current I/O phase: requests parsed in the same turn join this batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    let durable: Promise<void>;
    try {
      ({ durable } = this.db.transactionDurableLater(() => {
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
}
