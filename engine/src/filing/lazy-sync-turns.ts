import type { Database } from '../db/database';
import type { WriteTurns } from '../db/write-priority';

/**
 * The filing thread's write transactions, committed without an fsync inside SQLite's write lock.
 *
 * With synchronous=FULL a COMMIT fsyncs the WAL while it still holds the lock, so every issuing
 * commit queued behind it waits for that fsync too, and the disk takes one more fsync per
 * transaction (≈ 12 per 1,000 records filed). Here each turn commits with synchronous=NORMAL:
 * complete in the WAL, on disk with the next fsync of the WAL, whoever runs it.
 *
 * Why that is safe (DESIGN.md §4): nothing the filing thread commits is told to anyone outside
 * before an fsync of the WAL. Before every send to an authority its connection fsyncs the WAL
 * (SubmissionWorker.transmit → `db.whenDurable()`, `otherWriters`), and before every round of
 * webhook deliveries too (WebhookDeliveryWorker.deliverDue); an issuing request is answered only
 * after its own fsync of the same file. One fsync makes the whole WAL written before it durable,
 * and a power cut loses at most a suffix of the WAL (SQLite drops every frame after the first one
 * that is missing), so it can take back only filing commits nothing outside has heard of since:
 * answers applied (the open submission is resent byte for byte and its duplicates reconciled, as
 * after any crash between an answer and its recording), submissions built but not sent (their
 * records are still waiting), fan-out and delivery bookkeeping (deliveries are at least once,
 * with the same idEntrega). Reads on the main thread may show such a commit before it is durable,
 * as they may show issuing's in its fsync; with nothing else running, the background checkpoint
 * (every 500 ms) fsyncs the WAL first. SIGKILL loses nothing either way: the WAL is written.
 * Writes outside a turn keep the connection's synchronous=FULL.
 */
export class LazySyncTurns implements WriteTurns {
  constructor(
    private readonly db: Database,
    private readonly turns: WriteTurns,
  ) {}

  take<T>(transaction: () => T): Promise<T> {
    return this.turns.take(() => {
      this.db.setSynchronous('NORMAL');
      try {
        return transaction();
      } finally {
        this.db.setSynchronous('FULL');
      }
    });
  }

  issuingBusy(): boolean {
    return this.turns.issuingBusy?.() ?? true;
  }
}
