import type { CommitSignal, Database } from './database';
import { onePerDatabase } from './per-database';

/**
 * The committed `read_cache_generation` of one database, read again only after some connection
 * has committed (CommitWatch: one pread instead of a read transaction per look). One per Database,
 * shared by its ReadCaches: a request looks up its key and then its issuer, and under load every
 * look sees a new commit (the previous batch's), so per-cache watches read the counter once per
 * cache and request; shared, the second look finds no commit since the first and reads nothing.
 */
export class CacheGeneration {
  static readonly of = onePerDatabase((db) => new CacheGeneration(db));

  private value = -1;
  private readonly probe: () => { generation: number } | undefined;
  private readonly commits: CommitSignal;

  private constructor(db: Database) {
    this.probe = db.generationProbe();
    this.commits = db.watchCommits();
  }

  /** The counter as last committed (-1: no row). */
  current(): number {
    // The watch is looked at before the counter is read: a commit in between reads again next time.
    if (this.commits.changed()) {
      try {
        this.value = this.probe()?.generation ?? -1;
      } catch (error) {
        this.commits.forget();
        throw error;
      }
    }
    return this.value;
  }
}

/**
 * Reads the committed generation and the schema version in one statement, prepared once: for a
 * cache that checks them itself on every read (devices/routing-cache.ts).
 */
export function generationAndSchemaProbe(db: Database): () => { generation: number; schema: number } | undefined {
  return db.generationProbe();
}

/**
 * Rows every request reads (its key, account, issuer) kept in memory, trusted only while the
 * `read_cache_generation` counter is unchanged: triggers bump it on every write to those tables,
 * from this process or another one (the admin CLI), so a revoked key or a deactivated issuer is
 * refused from the next request on (CacheGeneration reads the counter after any commit).
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, V>();
  private generation = -1;
  private readonly committed: CacheGeneration;

  constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {
    this.committed = CacheGeneration.of(db);
  }

  get(key: string, load: () => V): V {
    // Inside a transaction the rows read may never commit: read through, remember nothing.
    if (this.db.inTransaction) return load();
    const generation = this.committed.current();
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
