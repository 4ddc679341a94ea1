// Issue 27: two engine nodes on one PostgreSQL serve the same key. The per-second limit and the
// monthly quota are counted for the key across both (engine/src/account/admission.pg.ts), and a
// revoked key or an account whose billing is stopped is refused by the other node from its next
// request (the read caches read the committed generation on every request on PostgreSQL).
import { afterEach, describe, expect, it } from 'vitest';
import type { LimitsConfig } from '../../../engine/src/account/plans';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import { createEngine, type Engine } from '../../../engine/src/index';
import { ManualClock } from '../../../engine/src/platform/clock';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { migratedDataDir, NO_LIMITS, testEngineConfig } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';
import { aFacturaF2 } from '../../fixtures/verifactu';

let engines: Engine[] = [];
afterEach(async () => {
  for (const e of engines) await e.stop();
  engines = [];
});

/** Two nodes on one fresh database, one clock; the first seeds the demo account. */
async function twoNodes(limits: LimitsConfig) {
  const url = freshPostgresUrl();
  const clock = new ManualClock('2026-11-20T10:00:00.000Z');
  const start = () => createEngine(testEngineConfig(migratedDataDir(), { databaseUrl: url, clock, limits }));
  const a = await start();
  const b = await start();
  engines.push(a, b);
  const keys = seedDemoAccount(a.context)!;
  const get = (node: Engine, url_: string) => node.apps.billing.inject({ method: 'GET', url: url_, headers: { 'x-api-key': keys.test } });
  return { url, clock, a, b, keys, get };
}

describe('limits counted for the key across nodes', () => {
  it('the per-second bucket is one: 10 requests on each node spend the burst of 20, the 21st is refused on either', async () => {
    const { clock, a, b, get } = await twoNodes({ ...NO_LIMITS, test: { rps: 10, burst: 20, monthlyQuota: 1000 } });
    for (let i = 0; i < 10; i++) {
      expect((await get(a, '/v1/cuenta')).statusCode).toBe(200);
      expect((await get(b, '/v1/cuenta')).statusCode).toBe(200);
    }
    for (const node of [a, b]) {
      const res = await get(node, '/v1/cuenta');
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(res.headers['retry-after'])).toBe(1);
    }
    // The bucket refills by the time since the last request, whichever node served it.
    clock.advance(300);
    for (let i = 0; i < 3; i++) expect((await get(b, '/v1/cuenta')).statusCode).toBe(200);
    expect((await get(a, '/v1/cuenta')).json()).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('the month’s quota is one: 15 on each node spend 30, the 31st is refused on either; the count is kept durable at its highest', async () => {
    const { url, clock, a, b, get } = await twoNodes({ ...NO_LIMITS, test: { rps: 1000, burst: 1000, monthlyQuota: 30 } });
    for (let i = 0; i < 15; i++) {
      expect((await get(a, '/v1/cuenta')).statusCode).toBe(200);
      expect((await get(b, '/v1/cuenta')).statusCode).toBe(200);
    }
    for (const node of [a, b]) {
      const res = await get(node, '/v1/cuenta');
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    }
    // B saw 30; A last saw 29. Whatever order they flush in, the durable count stays 30.
    b.context.usage.flush();
    a.context.usage.flush();
    const db = new PostgresDatabase(url);
    try {
      const rows = db.statement('SELECT usadas FROM quota_usage').all() as { usadas: number }[];
      expect(rows).toEqual([{ usadas: 30 }]);
      // The live counters lost (a server crash empties the unlogged table): the month resumes from the durable count.
      db.statement('DELETE FROM key_admission').run();
    } finally {
      await db.close();
    }
    expect((await get(a, '/v1/cuenta')).json()).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    // The next month starts from zero on both.
    clock.set('2026-11-30T23:00:01Z');
    expect((await get(b, '/v1/cuenta')).statusCode).toBe(200);
    expect((await get(a, '/v1/cuenta')).statusCode).toBe(200);
  });

  it('a key revoked on one node is refused by the other from its next request; so is a new registration once billing stops', async () => {
    const { a, b, keys, get } = await twoNodes(NO_LIMITS);
    const crear = (node: Engine, numero: string) =>
      node.apps.billing.inject({ method: 'POST', url: '/v1/verifactu/crear', headers: { 'x-api-key': keys.test }, payload: aFacturaF2({ cabecera: { numero, fechaExpedicion: '20-11-2026' } }) as object });
    // B has the key and the account in its read cache.
    expect((await get(b, '/v1/cuenta')).statusCode).toBe(200);
    expect((await crear(b, '1')).statusCode).toBe(200);
    const account = a.context.accounts.listAccounts()[0]!;
    a.context.db.transaction(() => a.context.accounts.updateAccount(account.id, { estadoCuenta: 'suspendida', facturacionActiva: 0 }));
    const refused = await crear(b, '2');
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'PAYMENT_REQUIRED' });
    expect((await get(b, '/v1/cuenta')).json()).toMatchObject({ estadoCuenta: 'suspendida', facturacionActiva: false });
    const key = a.context.accounts.listKeys(account.id).find((k) => k.entorno === 'test')!;
    a.context.db.transaction(() => a.context.accounts.revokeKey(key.id));
    const gone = await get(b, '/v1/cuenta');
    expect(gone.statusCode).toBe(403);
    expect(gone.json()).toEqual({ message: 'Forbidden' });
  });
});
