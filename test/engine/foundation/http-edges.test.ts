import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine();
});
afterAll(async () => t.close());

describe('DNS rebinding: a Host that is not the engine’s own address is refused', () => {
  for (const app of ['billing', 'manage', 'panel'] as const) {
    it(`${app}: Host evil.example → 421 HOST_NOT_ALLOWED`, async () => {
      const res = await t.engine.apps[app].inject({
        method: 'GET',
        url: '/v1/cuenta',
        headers: { host: 'evil.example', 'x-api-key': t.keys.test, authorization: 'Bearer panel-test-token' },
      });
      expect(res.statusCode).toBe(421);
      expect(res.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    });
  }
  it('localhost and 127.0.0.1 with a port are accepted', async () => {
    for (const host of ['localhost:8780', '127.0.0.1:8780']) {
      const res = await t.billing('GET', '/v1/cuenta', { headers: { host } });
      expect(res.statusCode).toBe(200);
    }
  });
});

describe('No CORS headers ever', () => {
  it('neither on a simple request with Origin nor on a preflight', async () => {
    const origin = { origin: 'https://evil.example' };
    const responses = [
      await t.billing('GET', '/v1/cuenta', { headers: origin }),
      await t.billing('OPTIONS', '/v1/cuenta', { headers: { ...origin, 'access-control-request-method': 'GET' } }),
      await t.manage('GET', '/v1/cumplimiento/declaracion-responsable', { headers: origin }),
      await t.billing('GET', '/v1/cuenta', { key: null, headers: origin }),
    ];
    for (const res of responses) {
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('x-request-id on every answer', () => {
  it('generated when absent, echoed when sane, present on errors', async () => {
    expect((await t.billing('GET', '/v1/cuenta')).headers['x-request-id']).toMatch(/^req_/);
    expect((await t.billing('GET', '/v1/cuenta', { headers: { 'x-request-id': 'pos-42' } })).headers['x-request-id']).toBe('pos-42');
    expect((await t.billing('GET', '/v1/cuenta', { key: null })).headers['x-request-id']).toBeTruthy();
  });
});

describe('Body too large → 413; not JSON → 415', () => {
  it('413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.engine.apps.billing.inject({
      method: 'POST',
      url: '/v1/cuenta',
      headers: { 'x-api-key': t.keys.test, 'content-type': 'application/json' },
      payload: JSON.stringify({ big: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('Panel API: per-launch token, never API keys', () => {
  it('without the token → 401; with an API key only → 401; with the token → 200', async () => {
    const panel = t.engine.apps.panel;
    expect((await panel.inject({ method: 'GET', url: '/panel/v1/arranque' })).statusCode).toBe(401);
    expect((await panel.inject({ method: 'GET', url: '/panel/v1/arranque', headers: { 'x-api-key': t.keys.test } })).statusCode).toBe(401);
    const ok = await panel.inject({ method: 'GET', url: '/panel/v1/arranque', headers: { authorization: 'Bearer panel-test-token' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ billingUrl: expect.stringContaining('http://127.0.0.1') });
  });
});
