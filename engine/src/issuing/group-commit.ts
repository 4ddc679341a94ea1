import type { Database } from '../db/database';
import type { WritePriority } from '../db/write-priority';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A request of the batch wrote and then failed: the batch starts again, each request in a savepoint. */
class RetryWithSavepoints extends Error {}

/**
 * Group commit: issuing requests that arrive together share one SQLite transaction and so one
 * fsync (synchronous=FULL caps one-commit-per-request at a few thousand a second). Every promise
 * settles only once the shared COMMIT is on disk, so a 200 is never sent for work that is not.
 * The fsync runs off the event loop (Database.transactionDurableLater): while it runs, the next
 * requests are parsed, validated, chained and committed, and share the next fsync.
 *
 * One failing request never takes the others' work with it, nor leaves any of its own. Requests
 * run one after the other straight in the transaction: a request refused before it wrote (a
 * replay conflict, a 402, a routing refusal: all checked before any write) changed no row
 * (Database.totalChanges) and just gets its error. Only when a request fails after writing is the
 * transaction rolled back and the whole batch run again, each request in a savepoint of its own,
 * rolled back alone. Savepoints for every request cost the common case dearly: SQLite copies
 * every page a request touches that an earlier request of the batch already dirtied (the
 * right-hand edges of every table and index) into the savepoint's journal first (measured:
 * ≈ 30–50 µs of SQL per invoice). Running a request's work twice is sound: work reads and writes
 * only the database, the id and clock sources and commit hooks, and the first run's writes and
 * hooks are gone with its transaction.
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

  /**
   * `waitedFiling`: after one wait for the filing thread, SQLite's lock (busy_timeout) decides.
   * `waitedSync`: after one wait for an fsync to return, the batch commits whatever is under way.
   */
  private flush(waitedFiling = false, waitedSync = false): void {
    const filing = waitedFiling ? undefined : this.priority?.filingLeft();
    if (filing) {
      // Requests read meanwhile join this batch.
      void filing.then(() => this.flush(true, waitedSync));
      return;
    }
    // Both fsyncs are under way: a commit now would wait for one of them to return before its own
    // fsync could start, so the batch waits for that instead, and the requests read meanwhile join
    // it. Bigger batches share the COMMIT's pages (every table's and index's right-hand edge is
    // written once per commit, not once per request), the fsync, and the wake-up of the filing
    // thread (in process, CPU per invoice: ≈ 1,250–1,450 µs in batches of 2, ≈ 560–780 µs in
    // batches of 16). Its answers wait at most the batch's transaction longer: their fsync could
    // not have started before that return anyway.
    const slot = waitedSync ? undefined : this.db.fsyncSlotFreed();
    if (slot) {
      void slot.then(() => this.flush(waitedFiling, true));
      return;
    }
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    let outcomes: Outcome[] = [];
    let durable: Promise<void>;
    try {
      try {
        ({ durable } = this.db.transactionDurableLater(() => (outcomes = this.runEach(batch, false))));
      } catch (error) {
        if (!(error instanceof RetryWithSavepoints)) throw error;
        ({ durable } = this.db.transactionDurableLater(() => (outcomes = this.runEach(batch, true))));
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    } finally {
      // The batch's transaction is over (the lock is free): its requests no longer hold the filing thread back.
      this.priority?.issuingDone(batch.length);
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

  /** Each request's work in the open transaction; `savepoints`: each in its own (see the class comment). */
  private runEach(batch: readonly Pending[], savepoints: boolean): Outcome[] {
    const outcomes: Outcome[] = [];
    for (const item of batch) {
      const changesBefore = savepoints ? 0 : this.db.totalChanges();
      try {
        outcomes.push({ ok: true, value: savepoints ? this.db.transaction(item.work) : item.work() });
      } catch (error) {
        // SQLITE_FULL, IOERR, NOMEM…: SQLite may roll back the whole transaction, not just the
        // savepoint. Then nothing of the batch is stored: every request gets this error.
        if (!this.db.inTransaction) throw error;
        if (!savepoints && this.db.totalChanges() !== changesBefore) throw new RetryWithSavepoints();
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}
