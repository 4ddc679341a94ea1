import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES, FailureThrottle, panelGate } from '../../engine/src/http/panel-auth';
import type { Logger } from '../../engine/src/platform/logger';
import { safeEqual } from '../../engine/src/platform/secrets';
import { makeTestEngine, type TestEngine } from '../support/engine';

const ADMIN = 'panel-test-token';

function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (message: string, data?: Record<string, unknown>) => void lines.push(`${level} ${message} ${JSON.stringify(data ?? {})}`);
  return { lines, info: write('info'), warn: write('warn'), error: write('error') };
}

/** A bare Fastify app behind the panel's gate, answering errors as `{code}` with their status. */
function gatedApp(gate: (request: FastifyRequest, open: boolean) => void) {
  const app = Fastify();
  app.decorateRequest('panelCaller', null);
  app.addHook('onRequest', async (request: FastifyRequest) => gate(request, false));
  app.setErrorHandler((error: Error & { httpStatus?: number; code?: string; headers?: Record<string, string> }, _req, reply) =>
    reply.code(error.httpStatus ?? 500).headers(error.headers ?? {}).send({ code: error.code }),
  );
  return app;
}

describe('The panel is not a master key: no raw key leaves the engine', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await makeTestEngine();
    writeFileSync(path.join(t.dataDir, 'demo-keys.json'), JSON.stringify({ test: t.keys.test, live: t.keys.live, nifEmisor: t.nifEmisor }));
  });
  afterAll(async () => t.close());

  it('GET /panel/v1/arranque names each key by its ending only, and who holds the token', async () => {
    const res = await t.engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/arranque', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(t.keys.test);
    expect(res.body).not.toContain(t.keys.live);
    expect(res.body).not.toMatch(/sk_(test|live)_/);
    expect(res.json()).toMatchObject({ clavesFinal: { test: `…${t.keys.test.slice(-4)}`, live: `…${t.keys.live.slice(-4)}` }, rol: 'administrador' });
    expect(res.json()).not.toHaveProperty('claves');
  });

  it('the relay still adds the key server-side: the UI reaches the APIs without ever holding it', async () => {
    const res = await t.engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/api/billing/v1/cuenta', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ nifClientePrincipal: 'B12345674' });
  });

  it('no panel route answers a raw key (every GET of the panel, with the admin token)', async () => {
    for (const route of t.engine.apps.panel.routeTable.filter((r) => r.method === 'GET' && !r.url.includes('{') && !r.url.includes('*'))) {
      const res = await t.engine.apps.panel.inject({ method: 'GET', url: route.url, headers: { authorization: `Bearer ${ADMIN}` } });
      expect(res.body, route.url).not.toMatch(/sk_(test|live)_[A-Za-z0-9_-]{20}/);
    }
  });
});

describe('The launch token is the administrator’s on the server’s own computer only', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await makeTestEngine();
  });
  afterAll(async () => t.close());

  it('bound beyond loopback, the launch token from another computer is refused (401), from this one accepted', async () => {
    // The test engine listens on loopback; the gate is built as for a LAN bind.
    const app = gatedApp(panelGate({ adminToken: ADMIN, host: '0.0.0.0', logger: memoryLogger() }));
    app.get('/panel/v1/arranque', async (request) => request.panelCaller);
    const remote = await app.inject({ method: 'GET', url: '/panel/v1/arranque', remoteAddress: '192.168.1.20', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(remote.statusCode).toBe(401);
    expect(remote.json()).toEqual({ code: 'PANEL_TOKEN_REQUIRED' });
    const local = await app.inject({ method: 'GET', url: '/panel/v1/arranque', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(local.statusCode).toBe(200);
    expect(local.json()).toEqual({ rol: 'administrador' });
    await app.close();
  });

  it('a till’s token is refused on every administrator route with 403 ADMIN_REQUIRED, and accepted elsewhere', async () => {
    const app = gatedApp(panelGate({
      adminToken: ADMIN,
      host: '0.0.0.0',
      logger: memoryLogger(),
      tillToken: (token) => (safeEqual(token, 'till-token-of-caja-2') ? { idMaquina: 'TPV-CAJA2', idCuenta: 'acc_1', nifEmisor: 'B12345674' } : undefined),
    }));
    for (const entry of ADMIN_ROUTES) {
      const [method, url] = entry.split(' ') as [string, string];
      app.route({ method: method as 'GET', url, handler: async () => ({ ok: true }) });
    }
    app.get('/panel/v1/sync', async (request) => request.panelCaller);
    for (const entry of ADMIN_ROUTES) {
      const [method, url] = entry.split(' ') as [string, string];
      const concrete = url.replace(':idCuenta', 'acc_1').replace(':nif', 'B12345674').replace(':idMaquina', 'TPV-X');
      const res = await app.inject({ method: method as 'GET', url: concrete, remoteAddress: '192.168.1.21', headers: { authorization: 'Bearer till-token-of-caja-2' } });
      expect(res.statusCode, entry).toBe(403);
      expect(res.json(), entry).toEqual({ code: 'ADMIN_REQUIRED' });
    }
    const sync = await app.inject({ method: 'GET', url: '/panel/v1/sync', remoteAddress: '192.168.1.21', headers: { authorization: 'Bearer till-token-of-caja-2' } });
    expect(sync.json()).toEqual({ rol: 'caja', idMaquina: 'TPV-CAJA2', idCuenta: 'acc_1', nifEmisor: 'B12345674' });
    await app.close();
  });

  it('the admin routes named in ADMIN_ROUTES exist on the panel (a renamed route cannot silently lose its guard)', () => {
    const table = new Set(t.engine.apps.panel.routeTable.map((r) => `${r.method} ${r.url.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1')}`));
    const missing = [...ADMIN_ROUTES].filter((r) => !table.has(r));
    expect(missing).toEqual([]);
  });

  it('minting a key, changing a phase, deleting an issuer, switching faults, pausing LIVE filing and the log: fine for the administrator', async () => {
    const auth = { authorization: `Bearer ${ADMIN}` };
    const pausa = await t.engine.apps.panel.inject({ method: 'POST', url: '/panel/v1/sync/pausa', headers: auth, payload: { entorno: 'live', pausado: true } });
    expect(pausa.statusCode).toBe(200);
    const fase = await t.engine.apps.panel.inject({ method: 'PUT', url: `/panel/v1/cuentas/${t.nifEmisor}/clientes/${t.nifEmisor}/fase`, headers: auth, payload: { faseAltaCapacidad: 'preparacion' } });
    expect(fase.statusCode).toBe(200);
  });
});

describe('Token comparison and guessing', () => {
  it('safeEqual is true only for equal strings, whatever the lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', 'a')).toBe(false);
    expect(safeEqual('x'.repeat(1000), 'x'.repeat(999) + 'y')).toBe(false);
  });

  it('throttles an address past its failures in a window, then lets it try again', () => {
    let now = 0;
    const throttle = new FailureThrottle({ maxFailures: 3, windowMs: 10_000, now: () => now });
    expect(throttle.retryAfter('10.0.0.1')).toBe(0);
    for (let i = 0; i < 3; i++) throttle.fail('10.0.0.1');
    expect(throttle.retryAfter('10.0.0.1')).toBe(10);
    expect(throttle.retryAfter('10.0.0.2')).toBe(0);
    now = 10_000;
    expect(throttle.retryAfter('10.0.0.1')).toBe(0);
  });
});
