import type BetterSqlite3 from 'better-sqlite3';
import type { CommitWatch } from './commit-watch';
import type { Database } from './database';

/**
 * Rows every request reads (its key, account, issuer) kept in memory, trusted only while the
 * `read_cache_generation` counter is unchanged: triggers bump it on every write to those tables,
 * from this process or another one (the admin CLI), so a revoked key or a deactivated issuer is
 * refused from the next request on. The counter itself is read again only after some connection
 * has committed (CommitWatch: one pread instead of a read transaction per request).
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, V>();
  private generation = -1;
  private readonly current: BetterSqlite3.Statement<[], { generation: number }>;
  private readonly commits: CommitWatch;

  constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {
    this.current = db.sqlite.prepare('SELECT generation FROM read_cache_generation WHERE id = 1');
    this.commits = db.watchCommits();
  }

  get(key: string, load: () => V): V {
    // Inside a transaction the rows read may never commit: read through, remember nothing.
    if (this.db.sqlite.inTransaction) return load();
    // The watch is looked at before the counter is read: a commit in between reads again next time.
    let generation = this.generation;
    if (this.commits.changed()) {
      try {
        generation = this.current.get()?.generation ?? -1;
      } catch (error) {
        this.commits.forget();
        throw error;
      }
    }
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    } else if (this.entries.has(key)) {
      return this.entries.get(key) as V;
    }
    const value = load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
