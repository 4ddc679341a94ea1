// The engine's PostgreSQL connection dies (pg_terminate_backend from another connection, as a
// server restart or a network cut would): the request that meets it answers 503 STORAGE_UNAVAILABLE
// with Retry-After, never 500, the next one reconnects, and every invoice answered 200 is stored
// once. Runs on the run's PostgreSQL cluster in every project (test/support/postgres-cluster.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';
import { postgresBinary } from '../../support/postgres-cluster';

let t: TestEngine | undefined;
let killer: ChildProcess | undefined;
afterEach(async () => {
  killer?.kill('SIGKILL');
  killer = undefined;
  await t?.close();
  t = undefined;
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
    for (let n = 1; n <= 40; n++) {
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

    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(acknowledged.size).toBe(40);
    // Every acknowledged invoice is there once, under the id it was answered with.
    const stored = storedInvoices(url);
    expect(stored).toHaveLength(40);
    for (const invoice of stored) expect(acknowledged.get(invoice.numero)).toBe(invoice.id);
    // The kills did land (else this test proves nothing).
    expect(unavailable).toBeGreaterThan(0);
  });
});
