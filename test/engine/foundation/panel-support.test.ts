import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
const auth = { authorization: 'Bearer panel-test-token' };
beforeAll(async () => {
  t = await makeTestEngine();
  writeFileSync(path.join(t.dataDir, 'demo-keys.json'), JSON.stringify({ test: t.keys.test, live: t.keys.live }));
});
afterAll(async () => t.close());

describe('Panel support: a new API key shown once, the engine log', () => {
  it('POST /panel/v1/claves creates a working key of the till’s account, stored only as a hash', async () => {
    const res = await t.engine.apps.panel.inject({ method: 'POST', url: '/panel/v1/claves', headers: auth, payload: { entorno: 'live' } });
    expect(res.statusCode).toBe(201);
    const { clave } = res.json() as { clave: string };
    expect(clave).toMatch(/^sk_live_/);
    const cuenta = await t.billing('GET', '/v1/cuenta', { key: clave });
    expect(cuenta.json()).toMatchObject({ entorno: 'live', nifClientePrincipal: 'B12345674' });
    const stored = JSON.stringify(t.engine.context.db.statement('SELECT * FROM api_keys').all());
    expect(stored).not.toContain(clave);
  });
  it('bad body → 400 naming entorno; without the panel token → 401', async () => {
    const bad = await t.engine.apps.panel.inject({ method: 'POST', url: '/panel/v1/claves', headers: auth, payload: { entorno: 'prod' } });
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'entorno' });
    const anon = await t.engine.apps.panel.inject({ method: 'POST', url: '/panel/v1/claves', payload: { entorno: 'test' } });
    expect(anon.statusCode).toBe(401);
  });
  it('GET /panel/v1/registro downloads the log (404 before there is one)', async () => {
    expect((await t.engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/registro', headers: auth })).statusCode).toBe(404);
    mkdirSync(path.join(t.dataDir, 'logs'), { recursive: true });
    writeFileSync(path.join(t.dataDir, 'logs', 'engine.log'), 'line one\nline two\n');
    const res = await t.engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/registro', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toContain('engine.log');
    expect(res.body).toBe('line one\nline two\n');
  });
});
