// Defects found by the attack run (issue 15): the router's and the HTTP parser's own errors use
// the API's error body, and a Host naming the right machine on the wrong port is refused. These
// need a real socket: `inject()` has no port and skips the router's URL decoding errors' path.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
let urls: { billing: string; manage: string; panel: string };
beforeAll(async () => {
  t = await makeTestEngine();
  urls = await t.engine.start();
});
afterAll(async () => {
  await t.engine.stop();
  await t.close();
});

interface Raw {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Bytes straight onto the socket, for requests node:http refuses to send. */
function rawExchange(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (out += c));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

const hostOf = (base: string) => new URL(base).host;

/** A keyed POST to the billing API in process, with the raw body and content type given. */
const postBilling = (url: string, payload: string, contentType = 'application/json') =>
  t.engine.apps.billing.inject({ method: 'POST', url, headers: { 'x-api-key': t.keys.test, 'content-type': contentType }, payload });

describe('Router errors (malformed URL, over-long path parameter) answer the API error body', () => {
  for (const app of ['billing', 'manage', 'panel'] as const) {
    it(`${app}: /v1/facturas/%C0%AF → 400 BAD_URL naming url, without echoing it`, async () => {
      const base = urls[app];
      const res = await get(base, '/v1/facturas/%C0%AF', { host: hostOf(base) });
      expect(res.status).toBe(400);
      const body = JSON.parse(res.body) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'BAD_URL', campo: 'url' });
      expect(res.body).not.toContain('FST_ERR');
      expect(res.body).not.toContain('%C0%AF');
    });
  }
  it('a path parameter over 512 characters → 414 URI_TOO_LONG naming url', async () => {
    const res = await get(urls.billing, `/v1/facturas/${'a'.repeat(600)}`, { host: hostOf(urls.billing) });
    expect(res.status).toBe(414);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'URI_TOO_LONG', campo: 'url' });
    expect(res.body).not.toContain('aaaa');
  });
  it('a malformed Content-Type (Fastify FST_ERR_CTP_INVALID_TYPE) → 4xx with our body', async () => {
    const res = await postBilling('/v1/verifactu/crear', '{}', '');
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json().code).not.toMatch(/^FST_/);
  });
  it('malformed HTTP (a header without a colon) → 400 with our body, not Fastify’s "Client Error"', async () => {
    const out = await rawExchange(urls.billing, `GET /v1/cuenta HTTP/1.1\r\nHost: ${hostOf(urls.billing)}\r\nbroken header\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 400/);
    const body = out.slice(out.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toEqual({ code: 'BAD_REQUEST', message: 'Petición no válida' });
  });
});

describe('DNS rebinding: only the engine’s own host:port', () => {
  for (const app of ['billing', 'manage', 'panel'] as const) {
    it(`${app}: 127.0.0.1 on the right port is accepted; on another port → 421 HOST_NOT_ALLOWED`, async () => {
      const base = urls[app];
      const port = new URL(base).port;
      const auth = { 'x-api-key': t.keys.test, authorization: 'Bearer panel-test-token' };
      const path = { billing: '/v1/cuenta', manage: '/openapi.json', panel: '/panel/v1/arranque' }[app];
      const ok = await get(base, path, { ...auth, host: `127.0.0.1:${port}` });
      expect(ok.status).toBe(200);
      for (const host of ['127.0.0.1:1', `localhost:${Number(port) + 1}`, '127.0.0.1', `127.0.0.1:${port}x`, `127.0.0.1:${port}:1`]) {
        const res = await get(base, '/v1/cuenta', { ...auth, host });
        expect(res.status, host).toBe(421);
        expect(JSON.parse(res.body)).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
      }
    });
  }
});

describe('Deeply nested JSON → 400 naming body, never a stack overflow (fuzzing found a 500 in the panel relay)', () => {
  const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  it('through the panel relay, and straight to the billing API', async () => {
    for (const [app, url, headers] of [
      ['panel', '/panel/v1/api/billing/v1/verifactu/crear', { authorization: 'Bearer panel-test-token' }],
      ['billing', '/v1/verifactu/crear', { 'x-api-key': t.keys.test }],
      ['panel', '/panel/v1/sync/pausa', { authorization: 'Bearer panel-test-token' }],
    ] as const) {
      const res = await t.engine.apps[app].inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: deep });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'body' });
    }
  });
  it('64 levels are still parsed; strings full of brackets do not count', async () => {
    const res = await postBilling('/v1/verifactu/crear', JSON.stringify({ version: '[[[['.repeat(100), x: JSON.parse('['.repeat(63) + ']'.repeat(63)) }));
    expect(res.statusCode).toBe(400);
    expect(res.json().campo).not.toBe('body');
  });
  it('prototype poisoning is still refused', async () => {
    const res = await postBilling('/v1/verifactu/crear', '{"__proto__":{"polluted":1}}');
    expect(res.statusCode).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('An unknown key with an empty name still names a field (fuzzing found campo "")', () => {
  it('?=x on a strict query → 400 naming querystring', async () => {
    const res = await t.engine.apps.panel.inject({
      method: 'POST',
      url: '/panel/v1/sync/verificar-cadenas?=B12345674',
      headers: { authorization: 'Bearer panel-test-token' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'querystring' });
  });
  it('{"": 1} in a strict body → 400 naming body', async () => {
    const res = await postBilling('/v1/ticketbai/anular', JSON.stringify({ '': 1 }));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContain('body: campo no admitido');
  });
});
