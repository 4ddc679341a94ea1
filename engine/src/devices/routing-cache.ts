import type { Database } from '../db/database';
import { onePerDatabase } from '../db/per-database';
import { generationAndSchemaProbe } from '../db/read-cache';

/**
 * The device rows issuing reads on every request (the issuer's phase, the device, the series
 * owner), kept in memory and trusted only while the read-cache generation is the one they were
 * read at. Unlike db/read-cache.ts it serves reads inside a transaction, since routing runs inside
 * the issuing transaction. That is sound because:
 * - a transaction here is BEGIN IMMEDIATE and holds the write lock, so no other connection commits
 *   during it: the generation read once in it is the committed one at its start;
 * - every write of this connection to those tables goes through DeviceStore, which tells the cache
 *   (noteWrite) before writing: for the rest of that transaction every read goes to the database,
 *   and the cache starts afresh in a later one, so a write that rolls back never leaves a row here;
 * - every committed write, from any connection or process, bumps the generation (triggers of
 *   migration 20261125T2300Z), so a device deactivated or a phase changed elsewhere is read again
 *   by the next transaction; a schema change (a table renamed or dropped) moves SQLite's
 *   schema_version, which counts as a new generation too: a table that cannot be read is read,
 *   and fails, as before (503 SHARDING_UNAVAILABLE), never answered from memory.
 * One cache per Database: every DeviceStore on a connection shares it (and its writes' notes).
 */
export class RoutingRowCache {
  static readonly of = onePerDatabase((db) => new RoutingRowCache(db));

  private readonly entries = new Map<string, unknown>();
  /** The committed generation (and schema version) the entries were read at; '': none. */
  private generation = '';
  /** The transaction whose generation was read last (Database.transactionSerial); -1: none. */
  private checkedIn = -1;
  /** The transaction this connection wrote device rows in last; -1: none. */
  private wroteIn = -1;
  private readonly current: () => { generation: number; schema: number } | undefined;

  private constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {
    this.current = generationAndSchemaProbe(db);
  }

  /** The cached value of `key`, or `load()`'s (remembered when the rows it read are committed ones). */
  get<V>(key: string, load: () => V): V {
    const inTransaction = this.db.inTransaction;
    const serial = this.db.transactionSerial;
    // This transaction wrote device rows: they may never commit. Read through, remember nothing.
    if (inTransaction && this.wroteIn === serial) return load();
    // Outside a transaction every read sees the latest commit: check the generation each time.
    if (!inTransaction || this.checkedIn !== serial) {
      const row = this.current();
      const generation = row ? `${row.generation}/${row.schema}` : '';
      if (generation === '' || generation !== this.generation) {
        this.entries.clear();
        this.generation = generation;
      }
      this.checkedIn = inTransaction ? serial : -1;
    }
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const value = load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  /** Called before every write to issuer_phases, devices or device_series on this connection. */
  noteWrite(): void {
    this.entries.clear();
    this.generation = '';
    this.checkedIn = -1;
    if (this.db.inTransaction) this.wroteIn = this.db.transactionSerial;
  }
}
