import { createRequire } from 'node:module';
import type Client from 'pg-native';
import pgTypes from 'pg-types';
import {
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type Compilable,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type MigrationResultSet,
  type QueryResult,
} from 'kysely';
import type { CommitSignal, Database, PreparedQuery } from './database';
import { migrations } from './migrations';
import { sqliteDdlToPostgres } from './postgres-ddl';
import type { Tables } from './schema';

type Param = string | number | bigint | Buffer | Uint8Array | boolean | null | undefined;

/**
 * The key of the one advisory lock every write transaction takes first: writers serialize across
 * every node as they do on SQLite's single write lock, so each transaction sees every commit that
 * came before it and the engine's invariants (one chain head, a series claimed once, jobs taken
 * into one submission) carry over unchanged. Readers never wait for it.
 */
export const WRITE_LOCK_KEY = 0x7e_11_ed;

const SLOT = '\u0000slot:';
/** libpq's PQtransactionStatus: idle, and unknown (the connection is bad). */
const PQ_TRANS_IDLE = 0;
const PQ_TRANS_UNKNOWN = 4;

/**
 * Names as the engine spells them (camelCase, as SQLite keeps them) by their PostgreSQL spelling:
 * PostgreSQL folds unquoted identifiers to lower case, and the tables are created from the same
 * DDL as SQLite's, unquoted — so every identifier is stored in lower case, kysely's compiler
 * quotes them in lower case, and result columns are given their engine names back from here.
 * Filled from every identifier kysely compiles and every name in raw SQL the stores prepare.
 */
const engineNames = new Map<string, string>();

function learnNames(sql: string): void {
  for (const name of sql.match(/\b[a-z_][a-z0-9_]*[A-Z][A-Za-z0-9_]*\b/g) ?? []) rememberName(name);
}

function rememberName(name: string): void {
  const lower = name.toLowerCase();
  if (lower === name) return;
  const known = engineNames.get(lower);
  if (known !== undefined && known !== name) throw new Error(`two engine names fold to one PostgreSQL name: ${known}, ${name}`);
  engineNames.set(lower, name);
}

/**
 * Every identifier the migrations create, learnt by compiling them against a connection that runs
 * nothing: a node joining an already migrated database applies no migration, yet its `selectAll()`
 * rows must come back under their engine names (a key's `revocadoEn` read as `revocadoen` made every
 * key look revoked on a second node).
 */
let schemaNamesLearnt: Promise<void> | undefined;

function learnSchemaNames(): Promise<void> {
  schemaNamesLearnt ??= (async () => {
    const connection: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        learnNames(query.sql);
        return { rows: [] };
      },
      streamQuery: async function* () {
        throw new Error('streaming is not used on PostgreSQL');
      },
    };
    const driver: Driver = {
      init: async () => {},
      acquireConnection: async () => connection,
      beginTransaction: async () => {},
      commitTransaction: async () => {},
      rollbackTransaction: async () => {},
      releaseConnection: async () => {},
      destroy: async () => {},
    };
    const dryRun = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => driver,
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new FoldingCompiler(),
      },
    });
    for (const name of Object.keys(migrations).sort()) await migrations[name]!.up(dryRun);
  })();
  return schemaNamesLearnt;
}

/** kysely's PostgreSQL compiler, with identifiers quoted in the lower case PostgreSQL stored them in. */
class FoldingCompiler extends PostgresQueryCompiler {
  protected override sanitizeIdentifier(identifier: string): string {
    rememberName(identifier);
    return super.sanitizeIdentifier(identifier.toLowerCase());
  }
}

/** int8 (counts, sequence numbers, integer columns) as a JS number, as better-sqlite3 returns them; the rest as pg-types parses. */
const types = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === 20) return (value: string) => Number(value);
    return pgTypes.getTypeParser(oid, format as 'text');
  },
};

/** A database error with PostgreSQL's SQLSTATE (`code`); see db/errors.ts. */
export class PostgresError extends Error {
  override readonly name = 'PostgresError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function toParam(value: Param): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  return String(value);
}

/** SQLite's spellings the stores' raw SQL uses, in PostgreSQL's (docs/architecture.md, "Beyond one machine"). */
export function sqliteSqlToPostgres(sql: string): string {
  let n = 0;
  let out = '';
  let quoted = false;
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    out += ch === '?' && !quoted ? `$${++n}` : ch;
  }
  out = out.replace(/json_each\((\$\d+)\)/g, 'json_array_elements_text($1::json)').replace(/\bIS NOT (\$\d+)/g, 'IS DISTINCT FROM $1');
  if (/^\s*INSERT OR IGNORE\b/i.test(out)) out = `${out.replace(/INSERT OR IGNORE/i, 'INSERT')} ON CONFLICT DO NOTHING`;
  return out;
}

/**
 * libpq's binding, loaded at the first PostgreSQL connection and never by a process on SQLite (a
 * till): loading libpq slowed every HTTP request of the process by 4–6 % (a bare node:http echo,
 * 3 alternating pairs), an engine on SQLite included, where it was imported for nothing.
 */
let nativeClient: typeof Client | undefined;
function libpqClient(): typeof Client {
  nativeClient ??= createRequire(import.meta.url)('pg-native') as typeof Client;
  return nativeClient;
}

/**
 * The engine's database on PostgreSQL (POS_DATABASE_URL): the same synchronous unit-of-work API as
 * SQLite's, through libpq's synchronous calls (pg-native), so every store and transaction of the
 * engine runs unchanged on several nodes sharing one database. A call blocks this thread for one
 * round trip to the server; nothing else ever waits inside a transaction.
 *
 * Durability: `synchronous_commit = on`, so a COMMIT has returned only once the server's WAL is
 * flushed — an invoice answered 200 is committed on the server. Writers take WRITE_LOCK_KEY first.
 * A lost connection (a server restart) is opened again at the next call outside a transaction;
 * the statement that found it lost fails, and its transaction with it.
 */
export class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  readonly kysely: Kysely<Tables>;
  private client: Client;
  private readonly prepared = new Map<string, string>();
  private nextStatement = 0;
  private serial = 0;
  private changes = 0;
  private depth = 0;
  private savepoint = 0;
  private commitHooks: (() => void)[] | null = null;
  private open = true;
  /** The generation read for the current request, with the transaction and write counts it was read at (generationProbe). */
  private stretchGeneration: { stamp: string; row: { generation: number; schema: number } | undefined } | undefined;

  constructor(readonly file: string) {
    this.client = this.connect();
    this.kysely = new Kysely<Tables>({ dialect: this.dialect_((sql) => sql) });
  }

  private connect(): Client {
    const client = new (libpqClient())({ types });
    client.connectSync(this.file);
    // An acknowledged invoice must be committed on the server's disk; a writer waits at most 5 s
    // for the write lock (SQLite's busy_timeout), then the request answers 503 STORAGE_BUSY.
    client.querySync("SET synchronous_commit = on; SET lock_timeout = '5s'; SET client_min_messages = warning");
    return client;
  }

  /** A kysely dialect running on this connection; `rewrite` adapts the SQL (migrations: SQLite's DDL). */
  private dialect_(rewrite: (sql: string) => string): Dialect {
    const connection: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const rows = this.exec(rewrite(query.sql), query.parameters as Param[], false) as R[];
        const affected = Number(this.client.pq.cmdTuples() || 0);
        return { rows, numAffectedRows: BigInt(affected) };
      },
      streamQuery: async function* () {
        throw new Error('streaming is not used on PostgreSQL');
      },
    };
    const driver: Driver = {
      init: async () => {},
      acquireConnection: async () => connection,
      beginTransaction: async () => {
        this.exec('BEGIN', [], false);
      },
      commitTransaction: async () => {
        this.exec('COMMIT', [], false);
      },
      rollbackTransaction: async () => {
        this.exec('ROLLBACK', [], false);
      },
      releaseConnection: async () => {},
      destroy: async () => {},
    };
    return {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new FoldingCompiler(),
    };
  }

  /**
   * Applies the migrations (the same ones as SQLite's, their DDL in PostgreSQL's spelling:
   * postgres-ddl.ts). kysely's migrator holds PostgreSQL's migration lock (an advisory lock) in
   * its transaction, so nodes starting together apply each migration once.
   */
  async migrate(): Promise<MigrationResultSet> {
    await learnSchemaNames();
    const migrating = new Kysely<Tables>({ dialect: this.dialect_(sqliteDdlToPostgres) });
    const migrator = new Migrator({ db: migrating, provider: { getMigrations: async () => migrations } });
    const result = await migrator.migrateToLatest();
    if (result.error) throw result.error;
    return result;
  }

  get inTransaction(): boolean {
    const status = this.client.pq.transactionStatus();
    return this.open && status !== PQ_TRANS_IDLE && status !== PQ_TRANS_UNKNOWN;
  }

  private get broken(): boolean {
    return this.client.pq.transactionStatus() === PQ_TRANS_UNKNOWN;
  }

  get isOpen(): boolean {
    return this.open;
  }

  get transactionSerial(): number {
    return this.serial;
  }

  /** Runs one statement; prepared (server-side, once per connection) when `prepare`. */
  private exec(sql: string, params: readonly Param[], prepare: boolean): Record<string, unknown>[] {
    if (!this.open) throw new PostgresError('the database is closed', '08003');
    if (this.broken && this.depth === 0) this.reconnect();
    const values = params.map(toParam);
    let rows: Record<string, unknown>[];
    try {
      if (prepare) {
        let name = this.prepared.get(sql);
        if (name === undefined) {
          learnNames(sql);
          name = `s${++this.nextStatement}`;
          this.client.prepareSync(name, sql, values.length);
          this.prepared.set(sql, name);
        }
        rows = this.client.executeSync(name, values);
      } else {
        learnNames(sql);
        rows = values.length > 0 ? this.client.querySync(sql, values) : this.client.querySync(sql);
      }
    } catch (error) {
      // A failed statement aborts PostgreSQL's transaction: the group commit must run its batch
      // again, each request in a savepoint (GroupCommit reads totalChanges()).
      this.changes++;
      throw this.translate(error);
    }
    return rows.length > 0 && rows[0] !== undefined ? rows.map(engineRow) : rows;
  }

  private translate(error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    if (this.broken) {
      this.prepared.clear();
      return new PostgresError(message, '08006');
    }
    const code = this.client.pq.resultErrorFields()?.sqlState ?? 'XX000';
    return new PostgresError(message, code);
  }

  private reconnect(): void {
    try {
      endClient(this.client);
    } catch {
      // already gone
    }
    this.prepared.clear();
    try {
      this.client = this.connect();
    } catch (error) {
      throw new PostgresError(error instanceof Error ? error.message : String(error), '08001');
    }
  }

  private write(sql: string, params: readonly Param[], prepare: boolean): number {
    const rows = this.exec(sql, params, prepare);
    const affected = Number(this.client.pq.cmdTuples() || 0);
    this.changes += affected;
    void rows;
    return affected;
  }

  prepare<R, V extends string>(build: (slot: (name: V) => string) => Compilable<R>): PreparedQuery<R, V> {
    const compiled = build((name) => `${SLOT}${name}`).compile();
    const sql = compiled.sql;
    const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(SLOT) ? (p.slice(SLOT.length) as V) : null));
    const constants = compiled.parameters as Param[];
    const bind = (values: Record<V, Param>): Param[] => slots.map((slot, i) => (slot === null ? constants[i] : values[slot]));
    return {
      run: (values) => this.write(sql, bind(values), true),
      all: (values) => this.exec(sql, bind(values), true) as R[],
      first: (values) => this.exec(sql, bind(values), true)[0] as R | undefined,
    };
  }

  run(query: Compilable): number {
    const compiled = query.compile();
    return this.write(compiled.sql, compiled.parameters as Param[], true);
  }

  all<R>(query: Compilable<R>): R[] {
    const compiled = query.compile();
    return this.exec(compiled.sql, compiled.parameters as Param[], true) as R[];
  }

  first<R>(query: Compilable<R>): R | undefined {
    return this.all(query)[0];
  }

  /** Raw SQL in SQLite's spelling (`?` parameters, json_each…), run as PostgreSQL's (sqliteSqlToPostgres). */
  statement<R = Record<string, unknown>>(sqliteSql: string): {
    run(...params: Param[]): number;
    all(...params: Param[]): R[];
    get(...params: Param[]): R | undefined;
  } {
    learnNames(sqliteSql);
    const sql = sqliteSqlToPostgres(sqliteSql);
    return {
      run: (...params) => this.write(sql, params, true),
      all: (...params) => this.exec(sql, params, true) as R[],
      get: (...params) => this.exec(sql, params, true)[0] as R | undefined,
    };
  }

  totalChanges(): number {
    return this.changes;
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return this.inSavepoint(fn);
    this.serial++;
    this.commitHooks = [];
    let committed = false;
    try {
      const result = this.outermost(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`, fn);
      committed = true;
      return result;
    } finally {
      // The hooks registered inside run only once the COMMIT has returned.
      const hooks = committed ? this.commitHooks : null;
      this.commitHooks = null;
      for (const hook of hooks ?? []) hook();
    }
  }

  /**
   * Runs `fn` between `begin` and COMMIT, rolled back when either fails. A `begin` that fails (the
   * write lock not had within lock_timeout, 55P03) is rolled back too: its transaction, aborted,
   * must not stay open on this connection (every later statement would fail).
   */
  private outermost<T>(begin: string, fn: () => T): T {
    try {
      this.exec(begin, [], false);
    } catch (error) {
      this.rollbackQuietly();
      throw error;
    }
    this.depth = 1;
    try {
      const result = fn();
      this.exec('COMMIT', [], false);
      return result;
    } catch (error) {
      this.rollbackQuietly();
      throw error;
    } finally {
      this.depth = 0;
    }
  }

  private inSavepoint<T>(fn: () => T): T {
    const name = `sp${++this.savepoint}`;
    this.exec(`SAVEPOINT ${name}`, [], false);
    this.depth++;
    try {
      const result = fn();
      this.exec(`RELEASE SAVEPOINT ${name}`, [], false);
      return result;
    } catch (error) {
      if (!this.broken) this.exec(`ROLLBACK TO SAVEPOINT ${name}`, [], false);
      throw error;
    } finally {
      this.depth--;
    }
  }

  /**
   * Runs `fn` in one REPEATABLE READ READ ONLY transaction without the write lock: every query in
   * it reads the same snapshot while other connections keep writing (the chain verifier's read).
   */
  readOnlySnapshot<T>(fn: () => T): T {
    if (this.depth > 0) throw new Error('readOnlySnapshot inside a transaction');
    return this.outermost('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn);
  }


  /** Inside a transaction: the rows of `query` through a cursor, `batch` at a time, so a whole table never sits in memory. */
  *cursor<R>(query: Compilable<R>, batch = 500): Generator<R> {
    if (this.depth === 0) throw new Error('a cursor lives in a transaction');
    const compiled = query.compile();
    const name = `c${++this.nextStatement}`;
    this.exec(`DECLARE ${name} NO SCROLL CURSOR FOR ${compiled.sql}`, compiled.parameters as Param[], false);
    try {
      for (;;) {
        const rows = this.exec(`FETCH ${batch} FROM ${name}`, [], false) as R[];
        yield* rows;
        if (rows.length < batch) return;
      }
    } finally {
      if (!this.broken) this.exec(`CLOSE ${name}`, [], false);
    }
  }

  private rollbackQuietly(): void {
    if (this.broken) return;
    try {
      this.client.querySync('ROLLBACK');
    } catch {
      // The connection is gone; its transaction with it.
    }
  }

  /** On PostgreSQL a COMMIT returns once it is durable (synchronous_commit): nothing is left to wait for. */
  transactionDurableLater<T>(fn: () => T): { result: T; durable: Promise<void> } {
    return { result: this.transaction(fn), durable: Promise.resolve() };
  }

  fsyncSlotFreed(): Promise<void> | undefined {
    return undefined;
  }

  whenDurable(): Promise<void> {
    return Promise.resolve();
  }

  onCommit(fn: () => void): void {
    if (this.commitHooks) this.commitHooks.push(fn);
    else fn();
  }

  /** Another node's commit shows in no file here: every look reads the generation (one round trip). */
  watchCommits(): CommitSignal {
    return { changed: () => true, forget: () => {} };
  }

  /**
   * The committed generation, read at most once per request while nothing was written through
   * this connection: a request's key, till, issuer and device-routing looks share one round trip.
   * Every request's arrival forgets it (requestArrived, the APIs' first hook), so each request
   * reads a generation committed after it arrived — every commit made before it was sent, from
   * any node, is seen; a write here (a trigger may bump it) or a look inside a transaction reads
   * it again; work outside requests (the workers) trusts it until the event loop's next turn.
   */
  generationProbe(): () => { generation: number; schema: number } | undefined {
    const read = () =>
      this.exec(
        'SELECT generation, (SELECT count(*) FROM kysely_migration) AS schema FROM read_cache_generation WHERE id = 1',
        [],
        true,
      )[0] as { generation: number; schema: number } | undefined;
    return () => {
      if (this.inTransaction) return read();
      const stamp = `${this.serial}/${this.changes}`;
      if (this.stretchGeneration === undefined || this.stretchGeneration.stamp !== stamp) {
        const row = read();
        if (this.stretchGeneration === undefined) setImmediate(() => (this.stretchGeneration = undefined));
        this.stretchGeneration = { stamp: `${this.serial}/${this.changes}`, row };
      }
      return this.stretchGeneration.row;
    };
  }

  requestArrived(): void {
    this.stretchGeneration = undefined;
  }

  /** PostgreSQL checkpoints itself. */
  startBackgroundCheckpoints(): void {}

  /** Every commit on PostgreSQL is durable (synchronous_commit = on). */
  setSynchronous(): void {}

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    endClient(this.client);
  }
}

/**
 * Clients just ended, kept reachable until libuv has closed their socket's poll handle: the
 * binding's handle lives inside the client's native object, and a garbage collection between
 * `end()` and libuv's close phase would free it under libuv (an assertion that kills the process).
 */
const ending = new Set<Client>();

function endClient(client: Client): void {
  client.end();
  ending.add(client);
  setTimeout(() => ending.delete(client), 1_000).unref();
}

/**
 * A row under its engine names. `rowid` is left out: SQLite's is implicit and never in `SELECT *`,
 * while PostgreSQL's is a real column (postgres-ddl.ts); a query that wants it names it with an alias.
 */
function engineRow(row: Record<string, unknown>): Record<string, unknown> {
  let renamed: Record<string, unknown> | undefined;
  for (const key in row) {
    if (key === 'rowid') {
      renamed ??= { ...row };
      delete renamed.rowid;
      continue;
    }
    const name = engineNames.get(key);
    if (name !== undefined) {
      renamed ??= { ...row };
      renamed[name] = renamed[key];
      delete renamed[key];
    }
  }
  return renamed ?? row;
}
