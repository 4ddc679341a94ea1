import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine();
});
afterAll(async () => t.close());

/** Every keyed route of an API, read from its own OpenAPI document. */
async function keyedRoutes(app: 'billing' | 'manage'): Promise<{ method: string; url: string }[]> {
  const doc = (await t.engine.apps[app].inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const out: { method: string; url: string }[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    if (p.startsWith('/public/')) continue;
    for (const method of Object.keys(methods)) {
      out.push({ method: method.toUpperCase(), url: p.replace(/\{[^}]+\}/g, 'X1') });
    }
  }
  return out;
}

describe('Missing, unknown or revoked key → 403 {"message":"Forbidden"} on every route of both APIs', () => {
  for (const app of ['billing', 'manage'] as const) {
    it(`${app}: every documented route and an unknown one`, async () => {
      const routes = [...(await keyedRoutes(app)), { method: 'GET', url: '/v1/no-existe' }];
      expect(routes.length).toBeGreaterThan(1);
      const revoked = t.engine.context.accounts.createKey(t.engine.context.accounts.listAccounts()[0]!.id, 'test');
      t.engine.context.accounts.revokeKey(revoked.id);
      for (const route of routes) {
        for (const key of [null, 'sk_test_unknown', revoked.rawKey]) {
          const res = await t.engine.apps[app].inject({
            method: route.method as 'GET',
            url: route.url,
            headers: key ? { 'x-api-key': key } : {},
          });
          expect(res.statusCode, `${route.method} ${route.url} key=${key}`).toBe(403);
          expect(res.json()).toEqual({ message: 'Forbidden' });
        }
      }
    });
  }
});

describe('API keys are stored only as hashes', () => {
  it('no raw key appears in the database', () => {
    const rows = t.engine.context.db.statement('SELECT * FROM api_keys').all() as Record<string, unknown>[];
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(t.keys.test);
    expect(dump).not.toContain(t.keys.live);
  });
});

describe('Unknown route with a valid key → 404 NOT_FOUND', () => {
  it('answers the flat error body with x-request-id', async () => {
    const res = await t.billing('GET', '/v1/nada');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});
