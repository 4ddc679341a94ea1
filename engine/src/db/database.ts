import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  SqliteDialect,
  type Compilable,
  type CompiledQuery,
  type MigrationResultSet,
} from 'kysely';
import { BackgroundCheckpointer } from './checkpointer';
import { CommitWatch } from './commit-watch';
import { migrations } from './migrations';
import type { Tables } from './schema';
import { WalSync } from './wal-sync';

type Param = string | number | bigint | Buffer | Uint8Array | null;

const SLOT = '\u0000slot:';
/** The engine connection's page cache (KiB) and memory-mapped span of the database file (bytes). */
export const PAGE_CACHE_KIB = 32 * 1024;
export const MMAP_BYTES = 256 * 1024 * 1024;

/**
 * A query built once with kysely and then run many times with new values: the hot paths
 * (authentication, issuing) skip rebuilding and recompiling the same SQL on every request.
 * `slot(name)` stands for a value in the builder; `run`/`all`/`first` take the values by name.
 */
export interface PreparedQuery<R, V extends string> {
  run(values: Record<V, Param | boolean>): number;
  all(values: Record<V, Param | boolean>): R[];
  first(values: Record<V, Param | boolean>): R | undefined;
}

type RawParam = string | number | bigint | Buffer | null | undefined;

/**
 * A statement written as SQL text in SQLite's spelling (`?` parameters, `json_each(?)` for a list of
 * ids given as one JSON array, `IS NOT ?`), prepared once: what the stores on the hot paths use
 * where building with kysely on every call would show in the profile. PostgreSQL runs the same
 * text in its own spelling (postgres.ts, sqliteSqlToPostgres).
 */
export interface RawStatement<R = unknown> {
  /** Runs it; the number of rows changed. */
  run(...params: RawParam[]): number;
  all(...params: RawParam[]): R[];
  get(...params: RawParam[]): R | undefined;
}

/** What the read caches look at before trusting their rows (SQLite: CommitWatch). */
export interface CommitSignal {
  /** True when some connection may have committed since the last call that answered true. */
  changed(): boolean;
  /** The next look answers "changed". */
  forget(): void;
}

/**
 * The engine's database seam: one synchronous unit-of-work API that every store runs on, with two
 * implementations — SQLite (this file: the till's embedded file) and PostgreSQL (postgres.ts:
 * several nodes on one database, POS_DATABASE_URL). Queries are built with kysely and compiled
 * for the implementation's dialect (`kysely`); execution is synchronous on both, so a transaction
 * is one uninterrupted run of store calls (docs/architecture.md, "Transactions across stores").
 */
export interface Database {
  readonly dialect: 'sqlite' | 'postgres';
  /** The SQLite file, or the PostgreSQL connection string. */
  readonly file: string;
  readonly kysely: Kysely<Tables>;
  /** Inside a transaction on this connection (an aborted PostgreSQL one included). */
  readonly inTransaction: boolean;
  readonly isOpen: boolean;
  readonly transactionSerial: number;
  /** A raw statement in SQLite's spelling (RawStatement), prepared once per text. */
  statement<R = unknown>(sql: string): RawStatement<R>;
  migrate(): Promise<MigrationResultSet>;
  prepare<R, V extends string>(build: (slot: (name: V) => string) => Compilable<R>): PreparedQuery<R, V>;
  run(query: Compilable): number;
  all<R>(query: Compilable<R>): R[];
  first<R>(query: Compilable<R>): R | undefined;
  /** Changes made through this connection (PostgreSQL: and statements that failed, which poison its transaction). */
  totalChanges(): number;
  transaction<T>(fn: () => T): T;
  transactionDurableLater<T>(fn: () => T): { result: T; durable: Promise<void> };
  fsyncSlotFreed(): Promise<void> | undefined;
  whenDurable(): Promise<void>;
  onCommit(fn: () => void): void;
  watchCommits(): CommitSignal;
  /** Reads the committed read-cache generation and the schema version in one statement. */
  generationProbe(): () => { generation: number; schema: number } | undefined;
  /**
   * An HTTP request has arrived (every API's first hook): what the read caches look at next must
   * be committed before it (PostgreSQL reads the generation again; SQLite's look at the WAL-index
   * is per call already).
   */
  requestArrived(): void;
  startBackgroundCheckpoints(intervalMs?: number): void;
  setSynchronous(level: 'NORMAL' | 'FULL'): void;
  close(): Promise<void>;
}

/**
 * One wrapper around better-sqlite3 + kysely. Kysely builds typed SQL; execution is synchronous
 * through cached prepared statements, so a whole issuing request (or a group of them) runs as one
 * synchronous SQLite transaction that no other request can interleave with.
 */
export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  readonly sqlite: BetterSqlite3.Database;
  readonly kysely: Kysely<Tables>;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private commitHooks: (() => void)[] | null = null;
  private readonly checkpointer = new BackgroundCheckpointer();
  /** Absent for an in-memory database, which has no file to make durable. */
  private readonly walSync: WalSync | undefined;
  private readonly syncNormal: BetterSqlite3.Statement;
  private readonly syncFull: BetterSqlite3.Statement;
  private readonly totalChangesQuery: BetterSqlite3.Statement<[], number>;
  private readonly commitWatches: CommitWatch[] = [];
  /** See the constructor's `otherWriters`. */
  private readonly otherWriters: boolean;
  private serial = 0;
  /**
   * Runs its argument in a transaction (`.immediate`) or, inside one, a savepoint. Built once:
   * better-sqlite3's `transaction(fn)` builds four wrapper functions on every call (≈ 10 µs
   * measured), and issuing runs one savepoint per request.
   */
  private readonly runInTransaction: BetterSqlite3.Transaction<(fn: () => unknown) => unknown>;

  /**
   * `otherWriters`: a second connection (the filing thread's) to a file another connection
   * writes with transactionDurableLater. A row it reads may be committed but not yet fsynced, so
   * its `whenDurable()` fsyncs the WAL itself; the WAL's descriptor is opened here, so an fsync
   * error that hits the file later is reported to this connection too.
   */
  constructor(readonly file: string, options: { otherWriters?: boolean } = {}) {
    if (file !== ':memory:') {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Invoices, customers' tax IDs, key hashes: readable by the engine's user only. SQLite gives
      // the -wal and -shm files the database file's mode.
      closeSync(openSync(file, 'a', 0o600));
      chmodSync(file, 0o600);
    }
    this.sqlite = new BetterSqlite3(file);
    // An acknowledged invoice must be on disk: WAL with a full fsync on every commit (issuing's
    // group commit fsyncs too, off the event loop: transactionDurableLater).
    this.sqlite.pragma('journal_mode = WAL');
    this.sqlite.pragma('synchronous = FULL');
    this.sqlite.pragma('foreign_keys = ON');
    this.sqlite.pragma('busy_timeout = 5000');
    // Measured on issuing at saturation (per-statement timing, A/B in one run): the default 2 MiB
    // page cache is evicted by the drain's and the panel's reads between two issuing batches, so
    // the inserts re-read the right-hand edges of their B-trees; 32 MiB keeps them, and mmap
    // serves database-file pages without a read() copy. Both cost at most their size in memory
    // (the mapping is the OS page cache, reclaimable); temporary B-trees stay in memory too.
    this.sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    if (file !== ':memory:') this.sqlite.pragma(`mmap_size = ${MMAP_BYTES}`);
    this.sqlite.pragma('temp_store = MEMORY');
    // Checkpoints run on a background thread (startBackgroundCheckpoints), not inside a COMMIT.
    if (file !== ':memory:') this.sqlite.pragma('wal_autocheckpoint = 0');
    this.kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database: this.sqlite }) });
    this.runInTransaction = this.sqlite.transaction((fn: () => unknown) => fn());
    this.syncNormal = this.sqlite.prepare('PRAGMA synchronous = NORMAL');
    this.syncFull = this.sqlite.prepare('PRAGMA synchronous = FULL');
    this.totalChangesQuery = this.sqlite.prepare<[], number>('SELECT total_changes()').pluck();
    this.walSync = file === ':memory:' ? undefined : new WalSync(`${file}-wal`);
    this.otherWriters = options.otherWriters === true && this.walSync !== undefined;
    if (this.otherWriters) this.walSync?.open();
  }

  static open(dataDir: string): SqliteDatabase {
    return new SqliteDatabase(path.join(dataDir, 'engine.sqlite'));
  }

  statement<R = unknown>(sql: string): RawStatement<R> {
    const stmt = this.sqlite.prepare(sql);
    return {
      run: (...params) => stmt.run(...params).changes,
      all: (...params) => stmt.all(...params) as R[],
      get: (...params) => stmt.get(...params) as R | undefined,
    };
  }

  generationProbe(): () => { generation: number; schema: number } | undefined {
    const statement = this.sqlite.prepare<[], { generation: number; schema: number }>(
      'SELECT generation, (SELECT schema_version FROM pragma_schema_version) AS schema FROM read_cache_generation WHERE id = 1',
    );
    return () => statement.get();
  }

  async migrate(): Promise<MigrationResultSet> {
    const migrator = new Migrator({
      db: this.kysely,
      provider: { getMigrations: async () => migrations },
    });
    const result = await migrator.migrateToLatest();
    if (result.error) throw result.error;
    return result;
  }

  private preparedStatement(query: CompiledQuery): BetterSqlite3.Statement {
    let stmt = this.statements.get(query.sql);
    if (!stmt) {
      stmt = this.sqlite.prepare(query.sql);
      this.statements.set(query.sql, stmt);
    }
    return stmt;
  }

  private static params(query: CompiledQuery): Param[] {
    return query.parameters.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : (p as Param)));
  }

  prepare<R, V extends string>(build: (slot: (name: V) => string) => Compilable<R>): PreparedQuery<R, V> {
    const compiled = build((name) => `${SLOT}${name}`).compile();
    const stmt = this.preparedStatement(compiled);
    // Each parameter is either a named slot or a constant fixed at build time; one loop over
    // arrays made once, and the values handed over as one array (better-sqlite3 binds an array's
    // items positionally): issuing runs seven of these per request.
    const count = compiled.parameters.length;
    const slots: (V | null)[] = [];
    const constants: Param[] = [];
    for (const p of compiled.parameters) {
      const isSlot = typeof p === 'string' && p.startsWith(SLOT);
      slots.push(isSlot ? (p.slice(SLOT.length) as V) : null);
      constants.push(isSlot ? null : typeof p === 'boolean' ? (p ? 1 : 0) : (p as Param));
    }
    const bind = (values: Record<V, Param | boolean>): Param[] => {
      const out = new Array<Param>(count);
      for (let i = 0; i < count; i++) {
        const slot = slots[i];
        if (slot === null || slot === undefined) out[i] = constants[i] ?? null;
        else {
          const value = values[slot];
          out[i] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
        }
      }
      return out;
    };
    return {
      run: (values) => stmt.run(bind(values)).changes,
      all: (values) => stmt.all(bind(values)) as R[],
      first: (values) => stmt.get(bind(values)) as R | undefined,
    };
  }

  /**
   * PRAGMA synchronous for this connection's next commits (the filing thread's lazy-sync turns).
   * Not a statement prepared once: SQLite applies it while compiling, so a prepared one's first
   * run changes nothing (measured). A few µs.
   */
  setSynchronous(level: 'NORMAL' | 'FULL'): void {
    this.sqlite.pragma(`synchronous = ${level}`);
  }

  /** Runs an INSERT/UPDATE/DELETE; returns the number of rows changed. */
  run(query: Compilable): number {
    const compiled = query.compile();
    return this.preparedStatement(compiled).run(...SqliteDatabase.params(compiled)).changes;
  }

  all<R>(query: Compilable<R>): R[] {
    const compiled = query.compile();
    return this.preparedStatement(compiled).all(...SqliteDatabase.params(compiled)) as R[];
  }

  first<R>(query: Compilable<R>): R | undefined {
    const compiled = query.compile();
    return this.preparedStatement(compiled).get(...SqliteDatabase.params(compiled)) as R | undefined;
  }

  /**
   * Rows inserted, updated or deleted through this connection since it opened, triggers' included
   * (SQLite's total_changes()); a statement that failed and was rolled back counts none. Equal
   * before and after some work: that work changed nothing in the database.
   */
  totalChanges(): number {
    return this.totalChangesQuery.get() as number;
  }

  /**
   * Which outermost transaction this connection is in, or was last in: a new number at every
   * BEGIN of `transaction` and `transactionDurableLater` (the only ways this wrapper begins one).
   * Caches that serve reads inside a transaction tell transactions apart with it.
   */
  get transactionSerial(): number {
    return this.serial;
  }

  /**
   * Whether this connection is inside a transaction now: false too when an error (SQLITE_FULL,
   * IOERR…) made the database roll back the whole transaction under a savepoint.
   */
  get inTransaction(): boolean {
    return this.sqlite.inTransaction;
  }

  /** False once `close` has closed the connection. */
  get isOpen(): boolean {
    return this.sqlite.open;
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction (nested calls become savepoints). Hooks registered
   * with `onCommit` inside it run only after the outermost commit succeeds.
   */
  transaction<T>(fn: () => T): T {
    if (this.sqlite.inTransaction) return this.runInTransaction(fn) as T;
    this.serial++;
    this.commitHooks = [];
    let hooks: (() => void)[] = [];
    try {
      const result = this.runInTransaction.immediate(fn) as T;
      hooks = this.commitHooks;
      return result;
    } finally {
      this.commitHooks = null;
      for (const hook of hooks) hook();
    }
  }

  /**
   * `transaction` whose commit is made durable off the event loop: COMMIT writes the WAL without
   * fsync (synchronous=NORMAL for this one transaction) and `durable` resolves once WalSync's fsync
   * of the WAL has returned; the onCommit hooks run only then. Until `durable` resolves nothing
   * may be acknowledged or sent to an authority on the strength of this commit. Every other
   * transaction keeps synchronous=FULL.
   */
  transactionDurableLater<T>(fn: () => T): { result: T; durable: Promise<void> } {
    if (!this.walSync || this.sqlite.inTransaction) return { result: this.transaction(fn), durable: Promise.resolve() };
    this.serial++;
    this.commitHooks = [];
    let hooks: (() => void)[];
    let result: T;
    this.syncNormal.run();
    try {
      result = this.runInTransaction.immediate(fn) as T;
      hooks = this.commitHooks;
    } finally {
      this.commitHooks = null;
      this.syncFull.run();
    }
    const durable = this.walSync.flush();
    durable.then(() => {
      for (const hook of hooks) hook();
    }, () => {});
    return { result, durable };
  }

  /**
   * Undefined when a commit of transactionDurableLater would start its fsync at once; else
   * resolves when an fsync under way returns (WalSync.slotFreed).
   */
  fsyncSlotFreed(): Promise<void> | undefined {
    return this.walSync?.slotFreed();
  }

  /** Resolves once every commit so far is on disk (see transactionDurableLater; with `otherWriters`, theirs too). */
  whenDurable(): Promise<void> {
    if (this.otherWriters) return this.walSync?.flush() ?? Promise.resolve();
    return this.walSync?.whenDurable() ?? Promise.resolve();
  }

  /** Work that must happen only once the current transaction is durable (waking workers). */
  onCommit(fn: () => void): void {
    if (this.commitHooks) this.commitHooks.push(fn);
    else fn();
  }

  /** A watch of commits to this database by any connection (see CommitWatch); closed with it. */
  watchCommits(): CommitWatch {
    const watch = new CommitWatch(this.file);
    this.commitWatches.push(watch);
    return watch;
  }

  /** Every look at the read cache checks the WAL-index (CommitWatch): nothing to forget. */
  requestArrived(): void {}

  /** For a long-running engine: without it the WAL only shrinks at close. */
  startBackgroundCheckpoints(intervalMs = 500): void {
    this.checkpointer.start(this.file, intervalMs);
  }

  async close(): Promise<void> {
    await this.checkpointer.stop();
    await this.walSync?.close();
    this.statements.clear();
    if (this.sqlite.open) this.sqlite.close();
    // After the connection: closing any descriptor of the -shm file drops every POSIX lock this
    // process holds on it, SQLite's included. So the process's other connections to the file are
    // closed first: the checkpointer's above, the filing thread's by engine.stop() before this.
    // (The filing thread's own connection watches nothing, so its close never runs this loop.)
    for (const watch of this.commitWatches) watch.close();
  }
}
