import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine();
});
afterAll(async () => t.close());

describe('Every route appears in its API’s OpenAPI 3.1 document', () => {
  for (const app of ['billing', 'manage'] as const) {
    it(`${app}: /openapi.json without a key lists every route`, async () => {
      const res = await t.engine.apps[app].inject({ method: 'GET', url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
      expect(doc.openapi).toBe('3.1.0');
      const documented = new Set(
        Object.entries(doc.paths).flatMap(([p, m]) => Object.keys(m).map((method) => `${method.toUpperCase()} ${p}`)),
      );
      expect(t.engine.apps[app].routeTable.length).toBeGreaterThan(1);
      for (const route of t.engine.apps[app].routeTable) {
        if (route.url === '/openapi.json' || route.method === 'HEAD') continue;
        expect(documented, `${route.method} ${route.url}`).toContain(`${route.method} ${route.url}`);
      }
    });
  }
});

