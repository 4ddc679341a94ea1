/**
 * The till UI as the panel serves it (headless `npm start` and the desktop window alike): the built
 * files beside the panel API, and the same-origin relay to the billing and management APIs.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../engine/src/demo/account';
import { createEngine, type Engine } from '../../engine/src/index';
import { silentLogger } from '../../engine/src/platform/logger';

const TOKEN = 'panel-ui-token';
let engine: Engine;
let dataDir: string;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'ui-server-'));
  const uiDir = path.join(dataDir, 'ui');
  mkdirSync(path.join(uiDir, 'assets'), { recursive: true });
  writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(path.join(uiDir, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(path.join(uiDir, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(path.join(uiDir, 'assets', 'secret.env'), 'KEY=1');
  engine = await createEngine({ dataDir, logger: silentLogger, panelToken: TOKEN, uiDir, submitAutomatically: false, billingPort: 0, managePort: 0, panelPort: 0 });
  const keys = seedDemoAccount(engine.context)!;
  writeFileSync(path.join(dataDir, 'demo-keys.json'), JSON.stringify(keys));
});
afterAll(async () => engine.stop());

const panel = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  engine.apps.panel.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('The built UI is served beside the panel API', () => {
  it('/ is index.html, with a strict CSP, nosniff, no referrer, no framing — and needs no token', async () => {
    const res = await panel('GET', '/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'self'; script-src 'self'; style-src 'self'/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).toContain('<div id="root">');
  });

  it('assets with their content type, cached for good (hashed names)', async () => {
    const js = await panel('GET', '/assets/index-abc.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
    expect((await panel('GET', '/assets/index-abc.css')).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('only listed files of known types: other extensions, traversal and unknown files are 404', async () => {
    for (const url of ['/assets/secret.env', '/../demo-keys.json', '/%2e%2e/demo-keys.json', '/assets/nope.js', '/demo-keys.json']) {
      expect((await panel('GET', url)).statusCode, url).toBe(404);
    }
    // A malformed escape is refused by the router itself.
    expect((await panel('GET', '/%E0%A4%A')).statusCode).toBe(400);
  });

  it('client-side routes fall back to index.html', async () => {
    const res = await panel('GET', '/facturas');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<div id="root">');
  });

  it('/panel/v1/* still needs the token (401), and an unknown panel route with it is 404', async () => {
    expect((await panel('GET', '/panel/v1/arranque')).statusCode).toBe(401);
    expect((await panel('GET', '/panel/v1/nada')).statusCode).toBe(401);
    expect((await panel('GET', '/panel/v1/nada', auth)).statusCode).toBe(404);
    const arranque = await panel('GET', '/panel/v1/arranque', auth);
    expect(arranque.json()).toMatchObject({ nifEmisor: 'B12345674', carpetaDatos: dataDir });
  });
});

describe('Same-origin relay to the billing and management APIs', () => {
  it('without the panel token → 401, whatever else is sent', async () => {
    const res = await panel('GET', '/panel/v1/api/billing/v1/cuenta', { 'x-api-key': 'sk_test_anything' });
    expect(res.statusCode).toBe(401);
  });

  it('with the token: the till’s TEST key is added and the billing API answers as it would POS software', async () => {
    const res = await panel('GET', '/panel/v1/api/billing/v1/cuenta', auth);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ entorno: 'test', nifClientePrincipal: 'B12345674' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('x-till-entorno: live uses the LIVE key; anything else is a 400 naming the header', async () => {
    expect((await panel('GET', '/panel/v1/api/billing/v1/cuenta', { ...auth, 'x-till-entorno': 'live' })).json()).toMatchObject({ entorno: 'live' });
    const bad = await panel('GET', '/panel/v1/api/billing/v1/cuenta', { ...auth, 'x-till-entorno': 'prod' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'x-till-entorno' });
  });

  it('bodies, status codes and error bodies pass through unchanged (validation 400 with campo)', async () => {
    const res = await panel('POST', '/panel/v1/api/billing/v1/verifactu/crear', { ...auth, 'content-type': 'application/json' }, { version: '1.0' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: expect.any(String) });
  });

  it('the management API is relayed the same way', async () => {
    const res = await panel('GET', '/panel/v1/api/manage/v1/clientes/B12345674', auth);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ cliente: { nif: 'B12345674', hacienda: 'verifactu' } });
  });

  it('only /v1/ paths are relayed (not the OpenAPI document, not tricks)', async () => {
    for (const url of ['/panel/v1/api/billing/openapi.json', '/panel/v1/api/billing/v1/../openapi.json', '/panel/v1/api/other/v1/cuenta']) {
      expect((await panel('GET', url, auth)).statusCode, url).toBe(404);
    }
  });

  it('the request id travels through', async () => {
    const res = await panel('GET', '/panel/v1/api/billing/v1/cuenta', { ...auth, 'x-request-id': 'till-abc-1' });
    expect(res.headers['x-request-id']).toBe('till-abc-1');
  });
});
