import type { Database } from '../db/database';
import type { WriteTurns } from '../db/write-priority';

/**
 * The filing thread's write transactions with their fsync outside SQLite's write lock.
 *
 * With synchronous=FULL a COMMIT fsyncs the WAL while it still holds the lock, so every issuing
 * commit queued behind it waits for that fsync too. Here each turn commits with
 * synchronous=NORMAL (complete in the WAL, not yet on disk), releases the lock, and only then
 * fsyncs the WAL (`db.whenDurable()`, off the thread's event loop); the turn resolves once that
 * fsync has returned. So the filing workers go on from a commit, exactly as before, only once it
 * is on disk: nothing is sent to an authority or to a webhook receiver, and no later turn is
 * built, on the strength of a commit a power cut could still take back. What other connections
 * may see meanwhile is a commit in its fsync, as they already may see issuing's
 * (Database.transactionDurableLater); a power cut then loses a suffix of the WAL, never a commit
 * the thread had acted upon. Writes outside a turn keep the connection's synchronous=FULL.
 *
 * `db` must be opened with `otherWriters` (the filing thread's connection): its whenDurable()
 * fsyncs the WAL itself.
 */
export class DurableTurns implements WriteTurns {
  constructor(
    private readonly db: Database,
    private readonly turns: WriteTurns,
  ) {}

  async take<T>(transaction: () => T): Promise<T> {
    const result = await this.turns.take(() => {
      // Not a statement prepared once: SQLite applies `PRAGMA synchronous = …` while compiling it,
      // so a prepared one's first run changes nothing (measured). A few µs per turn.
      this.db.sqlite.pragma('synchronous = NORMAL');
      try {
        return transaction();
      } finally {
        this.db.sqlite.pragma('synchronous = FULL');
      }
    });
    await this.db.whenDurable();
    return result;
  }
}
