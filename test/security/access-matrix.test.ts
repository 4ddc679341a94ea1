// Access matrix (issue 15): every keyed route of the billing and management APIs with no key, a
// malformed key, a revoked key, the other environment's key and another account's key, aimed at
// account A's real resources; Host and Origin attacks and CORS preflights on every route of the
// three APIs; the panel without its token; attempts to get past the rate limits. The routes come
// from the Fastify apps: a new route without a row in REQUESTS fails the first test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { makeTestEngine, type TestEngine } from '../support/engine';
import { aTicketDemo } from '../fixtures/verifactu';

const VF = 'B12345674';
const CLIENTE = 'B48123459';
/** Ids and names that exist in no account: what a foreign caller's answer must look like. */
const NADIE = { nif: 'B00000034', idFactura: 'fac_no_existe', idRegistro: 'reg_no_existe', idWebhook: 'wh_no_existe', idCuenta: 'acc_no_existe', idLote: 'lot_no_existe' };

interface Ids {
  nif: string;
  cliente: string;
  idFactura: string;
  idRegistro: string;
  idWebhook: string;
}
interface Req {
  url: string;
  body?: unknown;
}
type Builder = (ids: Ids) => Req;

const facturaVf = (nif: string) => aTicketDemo(nif, 'AM', '1');

const facturaTbai = (nif: string) => ({
  provincia: 'gipuzkoa',
  emisor: { nif, nombre: 'X' },
  serie: 'AM',
  numero: '1',
  fechaExpedicion: '20-11-2026',
  tipoFactura: 'F2',
  importeTotal: '12.10',
  desglose: [{ baseImponible: '10.00', tipoImpositivo: '21.00', cuota: '2.10', calificacionOperacion: 'S1' }],
});

/**
 * One request per route aimed at A's resources. `emisor`: the route names an issuer (query,
 * path or body): another account's caller gets 403 FORBIDDEN there, whatever the issuer.
 */
const REQUESTS: Record<string, { build: Builder; emisor: boolean }> = {
  'billing GET /v1/cuenta': { build: () => ({ url: '/v1/cuenta' }), emisor: false },
  'billing POST /v1/verifactu/crear': { build: (i) => ({ url: '/v1/verifactu/crear', body: facturaVf(i.nif) }), emisor: true },
  'billing PUT /v1/verifactu/subsanar': { build: (i) => ({ url: '/v1/verifactu/subsanar', body: { ...facturaVf(i.nif), subsanacion: true } }), emisor: true },
  'billing POST /v1/verifactu/anular': {
    build: (i) => ({ url: '/v1/verifactu/anular', body: { version: '1.0', facturaAnulada: { nifEmisor: i.nif, serie: 'AM', numero: '1', fechaExpedicion: '20-11-2026' } } }),
    emisor: true,
  },
  'billing POST /v1/ticketbai/crear': { build: (i) => ({ url: '/v1/ticketbai/crear', body: facturaTbai(i.nif) }), emisor: true },
  'billing PUT /v1/ticketbai/subsanar': { build: (i) => ({ url: '/v1/ticketbai/subsanar', body: { ...facturaTbai(i.nif), subsanacion: true } }), emisor: true },
  'billing POST /v1/ticketbai/anular': {
    build: (i) => ({ url: '/v1/ticketbai/anular', body: { nifEmisor: i.nif, serie: 'AM', numero: '1', fechaExpedicion: '20-11-2026', provincia: 'gipuzkoa' } }),
    emisor: true,
  },
  'billing GET /v1/facturas': { build: (i) => ({ url: `/v1/facturas?nifEmisor=${i.nif}` }), emisor: true },
  'billing GET /v1/facturas/buscar': { build: (i) => ({ url: `/v1/facturas/buscar?nifEmisor=${i.nif}&serie=AM&numero=1&fechaExpedicion=20-11-2026` }), emisor: true },
  'billing GET /v1/facturas/{idFactura}': { build: (i) => ({ url: `/v1/facturas/${i.idFactura}?nifEmisor=${i.nif}` }), emisor: true },
  'billing GET /v1/facturas/{idFactura}/estado': { build: (i) => ({ url: `/v1/facturas/${i.idFactura}/estado?nifEmisor=${i.nif}` }), emisor: true },
  'billing GET /v1/facturas/{idFactura}/qr': { build: (i) => ({ url: `/v1/facturas/${i.idFactura}/qr?nifEmisor=${i.nif}` }), emisor: true },
  'billing GET /v1/facturas/{idFactura}/xml': { build: (i) => ({ url: `/v1/facturas/${i.idFactura}/xml?nifEmisor=${i.nif}` }), emisor: true },
  'billing GET /v1/registros': { build: (i) => ({ url: `/v1/registros?nifEmisor=${i.nif}` }), emisor: true },
  'billing GET /v1/registros/{idRegistro}': { build: (i) => ({ url: `/v1/registros/${i.idRegistro}?nifEmisor=${i.nif}&idFactura=${i.idFactura}` }), emisor: true },
  'billing GET /v1/registros/{idRegistro}/xml': { build: (i) => ({ url: `/v1/registros/${i.idRegistro}/xml?nifEmisor=${i.nif}&idFactura=${i.idFactura}` }), emisor: true },
  'manage GET /v1/cumplimiento/declaracion-responsable': { build: () => ({ url: '/v1/cumplimiento/declaracion-responsable' }), emisor: false },
  'manage GET /v1/webhooks': { build: () => ({ url: '/v1/webhooks' }), emisor: false },
  'manage POST /v1/webhooks': { build: () => ({ url: '/v1/webhooks', body: { nombre: 'x', url: 'https://example.com/h', secreto: 'secreto-de-la-matriz-01' } }), emisor: false },
  'manage GET /v1/webhooks/{idWebhook}': { build: (i) => ({ url: `/v1/webhooks/${i.idWebhook}` }), emisor: false },
  'manage PATCH /v1/webhooks/{idWebhook}': { build: (i) => ({ url: `/v1/webhooks/${i.idWebhook}`, body: { nombre: 'robado' } }), emisor: false },
  'manage DELETE /v1/webhooks/{idWebhook}': { build: (i) => ({ url: `/v1/webhooks/${i.idWebhook}` }), emisor: false },
  'manage GET /v1/webhooks/{idWebhook}/clientes': { build: (i) => ({ url: `/v1/webhooks/${i.idWebhook}/clientes` }), emisor: false },
  'manage POST /v1/webhooks/{idWebhook}/clientes': { build: (i) => ({ url: `/v1/webhooks/${i.idWebhook}/clientes`, body: { clientes: [i.cliente] } }), emisor: false },
  'manage DELETE /v1/webhooks/{idWebhook}/clientes/{nif}': { build: (i) => ({ url: `/v1/webhooks/${i.idWebhook}/clientes/${i.cliente}` }), emisor: false },
  'manage POST /v1/nif/validar': { build: (i) => ({ url: '/v1/nif/validar', body: { nif: i.cliente, nombre: 'X' } }), emisor: false },
  'manage GET /v1/clientes': { build: () => ({ url: '/v1/clientes' }), emisor: false },
  // Creating a client names no existing issuer: another account may create its own (same answer as for a NIF nobody has).
  'manage POST /v1/clientes/crear': { build: (i) => ({ url: '/v1/clientes/crear', body: { nif: i.cliente, nombre: 'X', tipoUsuario: 'empresa', hacienda: 'verifactu' } }), emisor: false },
  // Client and device routes: 403 FORBIDDEN for another account's issuer (interface-spec, Devices);
  // a NIF no account holds is a 404 there (spec errors table), so they are not compared with it.
  'manage GET /v1/clientes/{nif}': { build: (i) => ({ url: `/v1/clientes/${i.cliente}` }), emisor: true },
  'manage PATCH /v1/clientes/{nif}': { build: (i) => ({ url: `/v1/clientes/${i.cliente}`, body: { nombre: 'ROBADO SL' } }), emisor: true },
  'manage PATCH /v1/clientes/{nif}/estado': { build: (i) => ({ url: `/v1/clientes/${i.cliente}/estado`, body: { estado: 'inactivo' } }), emisor: true },
  'manage GET /v1/clientes/{nif}/representacion/generar': { build: (i) => ({ url: `/v1/clientes/${i.cliente}/representacion/generar` }), emisor: true },
  'manage POST /v1/clientes/{nif}/representacion/firmar': { build: (i) => ({ url: `/v1/clientes/${i.cliente}/representacion/firmar`, body: {} }), emisor: true },
  'manage POST /v1/clientes/{nif}/representacion/verificar': { build: (i) => ({ url: `/v1/clientes/${i.cliente}/representacion/verificar`, body: {} }), emisor: true },
  'manage POST /v1/clientes/{nif}/representacion/certificado-prueba': { build: (i) => ({ url: `/v1/clientes/${i.cliente}/representacion/certificado-prueba`, body: {} }), emisor: true },
  'manage GET /v1/clientes/{nif}/representacion/estado': { build: (i) => ({ url: `/v1/clientes/${i.cliente}/representacion/estado` }), emisor: true },
  'manage DELETE /v1/clientes/{nif}/representacion/firma-en-curso': { build: (i) => ({ url: `/v1/clientes/${i.cliente}/representacion/firma-en-curso` }), emisor: true },
  'manage GET /v1/clientes/{nif}/dispositivos': { build: (i) => ({ url: `/v1/clientes/${i.nif}/dispositivos` }), emisor: true },
  'manage GET /v1/clientes/{nif}/eventos': { build: (i) => ({ url: `/v1/clientes/${i.nif}/eventos` }), emisor: true },
  'manage POST /v1/clientes/{nif}/dispositivos': { build: (i) => ({ url: `/v1/clientes/${i.nif}/dispositivos`, body: { idMaquina: 'caja-ajena' } }), emisor: true },
  'manage DELETE /v1/clientes/{nif}/dispositivos/{idMaquina}': { build: (i) => ({ url: `/v1/clientes/${i.nif}/dispositivos/caja-1` }), emisor: true },
  'manage POST /v1/clientes/{nif}/dispositivos/promover': { build: (i) => ({ url: `/v1/clientes/${i.nif}/dispositivos/promover`, body: {} }), emisor: true },
  'manage POST /v1/clientes/{nif}/dispositivos/solicitar-activacion': { build: (i) => ({ url: `/v1/clientes/${i.nif}/dispositivos/solicitar-activacion`, body: {} }), emisor: true },
  'manage POST /v1/clientes/{nif}/dispositivos/series-centralizadas': { build: (i) => ({ url: `/v1/clientes/${i.nif}/dispositivos/series-centralizadas`, body: { series: ['Z'] } }), emisor: true },
  'manage DELETE /v1/clientes/{nif}/dispositivos/series-centralizadas/{serie}': { build: (i) => ({ url: `/v1/clientes/${i.nif}/dispositivos/series-centralizadas/Z` }), emisor: true },
};
const PUBLIC = new Set(['billing GET /openapi.json', 'manage GET /openapi.json', 'manage GET /public/cumplimiento/{archivo}']);

let t: TestEngine;
let ids: Ids;
let otra: { test: string; live: string };
let revocada: string;

beforeAll(async () => {
  t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
  const ctx = t.engine.context;
  const a = ctx.accounts.listAccounts()[0]!;
  ctx.issuers.create({ accountId: a.id, entorno: 'test', nif: CLIENTE, nombre: 'TALLERES BILBAO ZAHARRA SL', hacienda: 'verifactu' });
  const factura = await t.billing('POST', '/v1/verifactu/crear', { body: facturaVf(VF) });
  expect(factura.statusCode, factura.body).toBe(200);
  const registros = (await t.billing('GET', `/v1/registros?nifEmisor=${VF}`)).json() as { registros: { idRegistro: string }[] };
  const webhook = await t.manage('POST', '/v1/webhooks', { body: { nombre: 'de A', url: 'https://example.com/a', secreto: 'secreto-de-la-cuenta-a-01' } });
  expect(webhook.statusCode, webhook.body).toBe(201);
  ids = {
    nif: VF,
    cliente: CLIENTE,
    idFactura: factura.json().idFactura,
    idRegistro: registros.registros[0]!.idRegistro,
    idWebhook: webhook.json().webhook.idWebhook,
  };
  // Account B: its own keys and issuer.
  const b = ctx.accounts.createAccount({ nif: 'A58818501', nombre: 'OTRA CUENTA SA', plan: 'empresa', limiteClientesTest: null, limiteClientesLive: null });
  ctx.issuers.create({ accountId: b.id, entorno: 'test', nif: 'A58818501', nombre: 'OTRA CUENTA SA', hacienda: 'verifactu' });
  otra = { test: ctx.accounts.createKey(b.id, 'test').rawKey, live: ctx.accounts.createKey(b.id, 'live').rawKey };
  const r = ctx.accounts.createKey(a.id, 'test');
  ctx.accounts.revokeKey(r.id);
  revocada = r.rawKey;
});
afterAll(async () => t.close());

function keyedRoutes(): { app: 'billing' | 'manage'; method: string; url: string; name: string }[] {
  return (['billing', 'manage'] as const).flatMap((app) =>
    t.engine.apps[app].routeTable
      .filter((r) => r.method !== 'HEAD')
      .map((r) => ({ app, method: r.method, url: r.url, name: `${app} ${r.method} ${r.url}` }))
      .filter((r) => !PUBLIC.has(r.name)),
  );
}

async function send(app: 'billing' | 'manage' | 'panel', method: string, req: Req, headers: Record<string, string | string[]>, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return t.engine.apps[app].inject({
    method: method as 'GET',
    ...(remoteAddress ? { remoteAddress } : {}),
    url: req.url,
    headers: { ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(req.body !== undefined ? { payload: JSON.stringify(req.body) } : {}),
  });
}

/** Nothing of A's in an answer to somebody else. */
function expectNoDataOfA(res: LightMyRequestResponse, label: string) {
  for (const secret of [ids.idFactura, ids.idRegistro, ids.idWebhook, 'TALLERES BILBAO', 'COMERCIAL DEMO', 'secreto-de-la-cuenta-a']) {
    expect(res.body.includes(secret), `${label} leaks ${secret}: ${res.body.slice(0, 300)}`).toBe(false);
  }
}

const shape = (res: LightMyRequestResponse) => {
  let code: unknown;
  try {
    code = (res.json() as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  return `${res.statusCode} ${String(code)}`;
};

describe('Every keyed route has a row in the matrix', () => {
  it('routes found from the apps, each with a request aimed at A’s resources', () => {
    const missing = keyedRoutes().filter((r) => REQUESTS[r.name] === undefined).map((r) => r.name);
    expect(missing).toEqual([]);
  });
});

describe('No key, malformed keys, a revoked key → 403 {"message":"Forbidden"}, never data', () => {
  it('every keyed route', async () => {
    const variants: Record<string, Record<string, string | string[]>> = {
      none: {},
      empty: { 'x-api-key': '' },
      revoked: { 'x-api-key': revocada },
      'prefix only': { 'x-api-key': 'sk_test_' },
      'upper-cased key': { 'x-api-key': t.keys.test.toUpperCase() },
      'key with a space inside': { 'x-api-key': `${t.keys.test.slice(0, 10)} ${t.keys.test.slice(10)}` },
      'key twice in one header': { 'x-api-key': `${t.keys.test},${t.keys.test}` },
      'two x-api-key headers': { 'x-api-key': [t.keys.test, t.keys.test] },
      'as a bearer token': { authorization: `Bearer ${t.keys.test}` },
      'NUL appended': { 'x-api-key': `${t.keys.test}\u0000` },
    };
    for (const route of keyedRoutes()) {
      const req = REQUESTS[route.name]!.build(ids);
      for (const [label, headers] of Object.entries(variants)) {
        const res = await send(route.app, route.method, req, headers);
        expect(res.statusCode, `${route.name} ${label}`).toBe(403);
        expect(res.json()).toEqual({ message: 'Forbidden' });
      }
    }
  });
  it('the key in the query string or a cookie is not a key', async () => {
    const res = await send('billing', 'GET', { url: `/v1/cuenta?x-api-key=${t.keys.test}&api_key=${t.keys.test}` }, { cookie: `x-api-key=${t.keys.test}` });
    expect(res.statusCode).toBe(403);
  });
});

describe('Another account’s key and the other environment’s key on A’s resources: 403 FORBIDDEN or the same answer as for what does not exist — never data', () => {
  for (const [label, key] of [['another account (test)', () => otra.test], ['another account (live)', () => otra.live], ['A’s own live key on test data', () => t.keys.live]] as const) {
    it(label, async () => {
      for (const route of keyedRoutes()) {
        const row = REQUESTS[route.name]!;
        // A's live key may issue and list for A's own live issuer: only its reads of test resources by id count here.
        if (label.startsWith('A’s') && !route.url.includes('{')) continue;
        const aimed = await send(route.app, route.method, row.build(ids), { 'x-api-key': key() });
        expectNoDataOfA(aimed, `${route.name} (${label})`);
        expect(aimed.statusCode, `${route.name} (${label}): ${aimed.body}`).toBeLessThan(500);
        // Existence does not show: A's resources answer exactly as resources nobody has.
        // (A's live key keeps A's issuer, which exists in live too: only the resource ids change.)
        const otros = label.startsWith('A’s')
          ? { ...ids, idFactura: NADIE.idFactura, idRegistro: NADIE.idRegistro, idWebhook: NADIE.idWebhook }
          : { ...ids, ...NADIE, nif: NADIE.nif, cliente: NADIE.nif };
        const nadie = await send(route.app, route.method, row.build(otros), { 'x-api-key': key() });
        if (row.emisor && label.startsWith('another account')) {
          // 403 FORBIDDEN — unless the body is refused first (says nothing of A), or, with B's live
          // key, A's resource does not exist in LIVE at all: then exactly what a NIF nobody holds gets.
          const ok = shape(aimed) === '403 FORBIDDEN' || (shape(aimed) === shape(nadie) && (aimed.statusCode === 400 || label.endsWith('(live)')));
          expect(ok, `${route.name} (${label}): ${shape(aimed)} (nobody's: ${shape(nadie)})`).toBe(true);
        } else if (aimed.statusCode >= 400 || nadie.statusCode >= 400) {
          expect(shape(aimed), `${route.name} (${label}) vs a resource nobody has`).toBe(shape(nadie));
        }
      }
    });
  }
  it('A still reads its own resources (the requests above are aimed right)', async () => {
    for (const name of ['billing GET /v1/facturas/{idFactura}', 'billing GET /v1/registros/{idRegistro}', 'manage GET /v1/webhooks/{idWebhook}', 'manage GET /v1/clientes/{nif}']) {
      const [app, method] = name.split(' ') as ['billing' | 'manage', string];
      const res = await send(app, method, REQUESTS[name]!.build(ids), { 'x-api-key': t.keys.test });
      expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
    }
  });
});

function allRoutes(): { app: 'billing' | 'manage' | 'panel'; method: string; url: string }[] {
  return (['billing', 'manage', 'panel'] as const).flatMap((app) =>
    t.engine.apps[app].routeTable.filter((r) => r.method !== 'HEAD').map((r) => ({ app, method: r.method, url: r.url.replace(/\{[^}]+\}/g, 'X1').replace('*', 'v1/cuenta') })),
  );
}
const credentials = () => ({ 'x-api-key': t.keys.test, authorization: 'Bearer panel-test-token' });

describe('Host (DNS rebinding), Origin and CORS preflights on every route of the three APIs', () => {
  it('a foreign Host → 421 HOST_NOT_ALLOWED before anything else, even with valid credentials', async () => {
    for (const r of allRoutes()) {
      for (const host of ['evil.example', 'evil.example:8780', '127.0.0.1.evil.example', 'localhost.', '[::2]', '127.0.0.1@evil.example', 'LOCALHOST.evil']) {
        const res = await send(r.app, r.method, { url: r.url }, { ...credentials(), host });
        expect(res.statusCode, `${r.app} ${r.method} ${r.url} Host ${host}`).toBe(421);
        expect(res.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
      }
    }
  });
  it('an Origin never gets CORS headers; preflights get none either', async () => {
    for (const r of allRoutes()) {
      const simple = await send(r.app, r.method, { url: r.url }, { ...credentials(), origin: 'https://evil.example' });
      const preflight = await send(r.app, 'OPTIONS', { url: r.url }, {
        origin: 'https://evil.example',
        'access-control-request-method': r.method,
        'access-control-request-headers': 'x-api-key, content-type, authorization',
      });
      for (const res of [simple, preflight]) {
        expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-')), `${r.app} ${r.method} ${r.url}`).toEqual([]);
        expect(res.statusCode).toBeLessThan(500);
      }
      expect(preflight.statusCode, `${r.app} OPTIONS ${r.url}`).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('The panel without its token → 401 on every panel route, API keys are not tokens', () => {
  it('no token, a wrong token, the token in the query, an API key, Basic auth', async () => {
    const panelRoutes = allRoutes().filter((r) => r.app === 'panel' && r.url !== '/openapi.json');
    expect(panelRoutes.length).toBeGreaterThan(10);
    // Each attempt from its own address: past 10 failures an address is throttled (429; tokens.test.ts).
    let attempt = 0;
    for (const r of panelRoutes) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'bearer panel-test-token' }, { authorization: 'Bearer panel-test-token ' + 'x' }, { 'x-api-key': t.keys.test }, { authorization: `Basic ${Buffer.from('panel:panel-test-token').toString('base64')}` }] as Record<string, string>[]) {
        attempt++;
        const res = await send('panel', r.method, { url: `${r.url}${r.url.includes('?') ? '&' : '?'}token=panel-test-token` }, headers, `10.9.${attempt >> 8}.${attempt & 255}`);
        expect(res.statusCode, `${r.method} ${r.url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json()).toMatchObject({ code: 'PANEL_TOKEN_REQUIRED' });
      }
    }
  });
});

describe('The rate limit cannot be sidestepped', () => {
  let limited: TestEngine;
  beforeAll(async () => {
    limited = await makeTestEngine({ limits: { test: { rps: 1, burst: 3, monthlyQuota: 1e9 }, live: { rps: 1, burst: 3, monthlyQuota: 1e9 } } });
  });
  afterAll(async () => limited.close());
  it('header casing, whitespace around the key, X-Forwarded-For, X-Real-IP, a relay header: one bucket per key', async () => {
    const k = limited.keys.test;
    const variants: Record<string, string>[] = [
      { 'x-api-key': k },
      { 'X-API-KEY': k },
      { 'X-Api-Key': k },
      { 'x-api-key': k, 'x-forwarded-for': '203.0.113.7' },
      { 'x-api-key': k, 'x-real-ip': '198.51.100.1', forwarded: 'for=192.0.2.60' },
      { 'x-api-key': k, 'x-panel-relay': 'guess' },
      { 'x-api-key': k, 'x-till-entorno': 'test' },
      { 'X-Api-Key': ` ${k} ` },
      { 'x-api-key': `\t${k}` },
    ];
    const statuses: number[] = [];
    for (const headers of variants) {
      const res = await limited.engine.apps.billing.inject({ method: 'GET', url: '/v1/cuenta', headers });
      statuses.push(res.statusCode);
    }
    // The clock does not move: the burst of 3 is all any spelling of the key gets. (A key with
    // whitespace around it is not the key in-process — 403 — and Node trims it on a socket.)
    expect(statuses.slice(0, 7)).toEqual([200, 200, 200, 429, 429, 429, 429]);
    expect(statuses.slice(7).every((s) => s === 429 || s === 403)).toBe(true);
  });
  it('both keyed APIs share the bucket', async () => {
    const res = await limited.engine.apps.manage.inject({ method: 'GET', url: '/v1/webhooks', headers: { 'x-api-key': limited.keys.test } });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });
});
