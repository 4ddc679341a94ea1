// PostgreSQL's failures answered as SQLite's (http/server.ts, db/errors.ts). The engine's connection
// dies (pg_terminate_backend from another connection, as a server restart or a network cut would):
// the request that meets it answers 503 STORAGE_UNAVAILABLE with Retry-After, never 500, the next
// one reconnects, and every invoice answered 200 is stored once. Another connection holds the write
// lock past lock_timeout: 503 STORAGE_BUSY, nothing stored.
// Runs on the run's PostgreSQL cluster in every project (test/support/postgres-cluster.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { storageFailureOf } from '../../../engine/src/db/errors';
import { PostgresDatabase, PostgresError, WRITE_LOCK_KEY } from '../../../engine/src/db/postgres';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';
import { postgresBinary } from '../../support/postgres-cluster';

let t: TestEngine | undefined;
let killer: ChildProcess | undefined;
afterEach(async () => {
  killer?.kill('SIGKILL');
  killer = undefined;
  const engine = t;
  t = undefined;
  await engine?.close();
});

const databaseOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
/** Ends every connection to the database but the caller's (and other psql runs'). */
const TERMINATE = (database: string) =>
  `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid() AND application_name <> 'psql'`;

function terminateEngineConnections(url: string): number {
  const admin = new PostgresDatabase(url.replace(/\/[^/]*$/, '/postgres'));
  try {
    return (admin.statement(TERMINATE(databaseOf(url))).get() as { count: number }).count;
  } finally {
    void admin.close();
  }
}

const crear = (numero: string) =>
  t!.billing('POST', '/v1/verifactu/crear', {
    body: aFacturaF2({ cabecera: { serie: 'PGX', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
  });

function storedInvoices(url: string): { id: string; numero: string }[] {
  const reader = new PostgresDatabase(url);
  try {
    return reader.statement("SELECT id, numero FROM invoices WHERE serie = 'PGX' ORDER BY rowid").all() as { id: string; numero: string }[];
  } finally {
    void reader.close();
  }
}

describe('PostgreSQL connection lost: 503 with Retry-After, then the engine reconnects; nothing acknowledged is lost', () => {
  it('the request after the backend was terminated answers 503 STORAGE_UNAVAILABLE (or succeeds); the next one succeeds', async () => {
    const url = freshPostgresUrl();
    t = await makeTestEngine({ databaseUrl: url });
    expect((await crear('1')).statusCode).toBe(200);

    expect(terminateEngineConnections(url)).toBeGreaterThan(0);
    const met = await crear('2');
    if (met.statusCode !== 200) {
      expect(met.statusCode).toBe(503);
      expect(met.json()).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      expect(Number(met.headers['retry-after'])).toBeGreaterThan(0);
    }
    const again = await crear('2');
    expect(again.statusCode, again.body).toBe(200);
    if (met.statusCode === 200) expect(again.json().idFactura).toBe(met.json().idFactura);
    expect(storedInvoices(url).map((i) => i.numero)).toEqual(['1', '2']);
    // The management API and the panel read through the same reopened connection.
    expect((await t.manage('GET', '/v1/clientes')).statusCode).toBe(200);
  });

  it('connections killed again and again while invoices are issued: never a 500, every 200 stored exactly once', async () => {
    const url = freshPostgresUrl();
    t = await makeTestEngine({ databaseUrl: url });
    // Another process ends the engine's connection every ~20 ms, so some kills land inside a
    // transaction (the engine's calls block this thread: a timer here could only fire between them).
    const psql = postgresBinary('psql');
    const loop = `while true; do "${psql}" -qAt -d "${url.replace(/\/[^/]*$/, '/postgres')}" -c "${TERMINATE(databaseOf(url))}" >/dev/null 2>&1; sleep 0.02; done`;
    killer = spawn('bash', ['-c', loop], { stdio: 'ignore', env: { ...process.env, PGAPPNAME: 'psql' } });

    const acknowledged = new Map<string, string>();
    const statuses = new Set<number>();
    let unavailable = 0;
    // At least 40 invoices, and on until a kill has landed (a loaded machine starts psql slowly).
    let issued = 0;
    for (let n = 1; n <= 40 || (unavailable === 0 && n <= 2_000); n++) {
      issued = n;
      for (let attempt = 0; attempt < 50; attempt++) {
        const res = await crear(String(n));
        statuses.add(res.statusCode);
        if (res.statusCode === 200) {
          acknowledged.set(String(n), res.json().idFactura);
          break;
        }
        expect(res.statusCode, res.body).toBe(503);
        expect(res.headers['retry-after']).toBeDefined();
        unavailable++;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    killer.kill('SIGKILL');
    killer = undefined;
    // A psql the loop had started may still end the connection: the engine reconnects at its next request.
    await new Promise((r) => setTimeout(r, 200));
    for (let attempt = 0; attempt < 5 && (await t.billing('GET', '/v1/cuenta')).statusCode !== 200; attempt++);

    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(acknowledged.size).toBe(issued);
    // Every acknowledged invoice is there once, under the id it was answered with.
    const stored = storedInvoices(url);
    expect(stored).toHaveLength(issued);
    for (const invoice of stored) expect(acknowledged.get(invoice.numero)).toBe(invoice.id);
    // The kills did land (else this test proves nothing).
    expect(unavailable).toBeGreaterThan(0);
  });
});

describe('Another connection holds the write lock past lock_timeout', () => {
  it('the request answers 503 STORAGE_BUSY with Retry-After and stores nothing; once the lock is free it succeeds', async () => {
    const url = freshPostgresUrl();
    t = await makeTestEngine({ databaseUrl: url });
    const holder = new PostgresDatabase(url);
    try {
      // What another node's long write transaction looks like to this one.
      holder.statement('BEGIN').run();
      holder.statement(`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`).get();
      const busy = await crear('1');
      expect(busy.statusCode, busy.body).toBe(503);
      expect(busy.json()).toMatchObject({ code: 'STORAGE_BUSY' });
      expect(busy.headers['retry-after']).toBe('1');
      holder.statement('ROLLBACK').run();
    } finally {
      await holder.close();
    }
    expect(storedInvoices(url)).toEqual([]);
    expect((await crear('1')).statusCode).toBe(200);
    expect(storedInvoices(url).map((i) => i.numero)).toEqual(['1']);
  });
});

describe('Which database errors are storage failures', () => {
  it.each([
    ['53100', 'full'],
    ['55P03', 'busy'],
    ['40P01', 'busy'],
    ['40001', 'busy'],
    ['08006', 'unavailable'],
    ['08001', 'unavailable'],
    ['57P01', 'unavailable'],
    ['57P03', 'unavailable'],
    ['23505', undefined],
    ['42601', undefined],
  ] as const)('PostgreSQL %s → %s', (code, failure) => {
    expect(storageFailureOf(new PostgresError('x', code))).toBe(failure);
  });

  it("SQLite's codes as before; an error that is no database's is none", () => {
    expect(storageFailureOf({ name: 'SqliteError', code: 'SQLITE_FULL' })).toBe('full');
    expect(storageFailureOf({ name: 'SqliteError', code: 'SQLITE_BUSY_SNAPSHOT' })).toBe('busy');
    expect(storageFailureOf({ name: 'SqliteError', code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBeUndefined();
    expect(storageFailureOf({ name: 'Error', code: '08006' })).toBeUndefined();
  });
});
