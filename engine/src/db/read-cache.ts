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
 * The committed generation and schema version as one key ('': no row), for the caches that also
 * serve reads inside a write transaction (TransactionReadCache). Read once per transaction — a
 * write transaction holds the write lock (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock),
 * so nothing commits during it and the value read at its first look is the committed one at its
 * start, the transaction looking before it writes a row whose triggers bump the counter (issuing
 * looks at its routing rows first) — and at every look outside one (PostgreSQL's probe reads once
 * per request). One per Database, shared by those caches: the issuing transaction's routing and
 * «NO VERI*FACTU» mode looks read it once.
 */
export class TransactionGeneration {
  static readonly of = onePerDatabase((db) => new TransactionGeneration(db));

  private readonly probe: () => { generation: number; schema: number } | undefined;
  /** The transaction `value` was read in (Database.transactionSerial); -1: none. */
  private readIn = -1;
  private value = '';

  private constructor(private readonly db: Database) {
    this.probe = db.generationProbe();
  }

  current(): string {
    const inTransaction = this.db.inTransaction;
    const serial = this.db.transactionSerial;
    if (inTransaction && this.readIn === serial) return this.value;
    // A probe that fails leaves nothing trusted: the next look reads again.
    this.readIn = -1;
    const row = this.probe();
    this.value = row ? `${row.generation}/${row.schema}` : '';
    this.readIn = inTransaction ? serial : -1;
    return this.value;
  }
}

/**
 * Rows read on every request inside the issuing transaction too (device routing, the «NO
 * VERI*FACTU» mode), kept in memory and trusted only while the read-cache generation is the one
 * they were read at. Unlike ReadCache it serves reads inside a transaction. That is sound because:
 * - a transaction here holds the write lock, so no other connection commits during it: the
 *   generation read once in it (TransactionGeneration) is the committed one at its start;
 * - every write of this connection to the cached tables goes through the store that owns them,
 *   which tells the cache (noteWrite) before writing: for the rest of that transaction every read
 *   goes to the database, and the cache starts afresh in a later one, so a write that rolls back
 *   never leaves a row here;
 * - every committed write, from any connection, process or node, bumps the generation (triggers on
 *   the cached tables), so a change made elsewhere is read again by the next transaction and the
 *   next request; a schema change (a table renamed or dropped) moves the schema version, which
 *   counts as a new generation too: a table that cannot be read is read, and fails, as before.
 */
export class TransactionReadCache {
  private readonly entries = new Map<string, unknown>();
  /** The committed generation (and schema version) the entries were read at; '': none. */
  private generation = '';
  /** The transaction this connection wrote cached rows in last; -1: none. */
  private wroteIn = -1;
  private readonly committed: TransactionGeneration;

  protected constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {
    this.committed = TransactionGeneration.of(db);
  }

  /** The cached value of `key`, or `load()`'s (remembered when the rows it read are committed ones). */
  get<V>(key: string, load: () => V): V {
    // This transaction wrote cached rows: they may never commit. Read through, remember nothing.
    if (this.db.inTransaction && this.wroteIn === this.db.transactionSerial) return load();
    const generation = this.committed.current();
    if (generation === '' || generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const value = load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  /** Called before every write to the cached tables on this connection. */
  noteWrite(): void {
    this.entries.clear();
    this.generation = '';
    if (this.db.inTransaction) this.wroteIn = this.db.transactionSerial;
  }
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
