// The fuzzing campaign of issue 15: hostile body, query and path for every route of the billing,
// management and panel APIs, enumerated from the Fastify apps (so a new route is fuzzed without
// touching this file). One property, two lengths: the vitest file under test/fuzz/ (short, in
// `npm test`) and `npm run test:fuzz -- --runs N` (scripts/fuzz.ts, long) run the same code.
//
// Invariants for every request:
//   - never a 5xx, never a crash (an exception out of inject());
//   - every 4xx is a JSON body with a string `code`, and a field error names the field (`campo`);
//   - a request answered 4xx stores nothing: a digest of every table is unchanged.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { aTicketTbai } from '../fixtures/ticketbai';
import { makeTestEngine, type TestEngine } from '../support/engine';
import { sqliteOf } from '../support/sqlite-of';

export type AppName = 'billing' | 'manage' | 'panel';

export interface Route {
  app: AppName;
  method: string;
  /** OpenAPI syntax: `/v1/facturas/{idFactura}`; `*` for the panel relay's wildcard. */
  url: string;
}

export interface FuzzRequest {
  route: Route;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | undefined;
}

export interface Outcome {
  request: FuzzRequest;
  status: number;
  body: string;
  violation?: string | undefined;
}

export interface CampaignStats {
  requests: number;
  byStatus: Record<string, number>;
  fiveXx: number;
  crashes: number;
  violations: Outcome[];
}

const TBAI_NIF = 'A58818501';
const VF_NIF = 'B12345674';

// ---------------------------------------------------------------- hostile values

const HUGE = 'x'.repeat(300_000);
/** The list, as strings. */
const HOSTILE_STRINGS = [
  '', ' ', '  padded  ', '\u0000', 'a\u0000b', '\u202Eevil\u202C', '\u200F\u05D0\u05D1', '😀', '👨‍👩‍👧‍👦', '\uD800', '\uDC00x',
  '\u0001\u0002\u001F', '\u007F', '\u0085', '\u2028', '\t', '\r\n', '\uFFFE', '\uFFFF',
  '&amp;', '&#38;', '&#x26;', '&lt;script&gt;', '<script>alert(1)</script>', '<![CDATA[x]]>', ']]>', '<?xml version="1.0"?>',
  '"quoted"', "'; DROP TABLE invoices; --", '%00', '%2e%2e%2f', '../../../../etc/passwd', '..\\..\\windows', '/etc/passwd',
  '1e3', '1E-7', '-0', '0', '-0.00', '+1', '1234567890123', '123456789012.99', '0.001', '1,50', '.5', '5.', 'NaN', 'Infinity',
  '31-02-2026', '29-02-2025', '00-01-2026', '2026-11-20', '20/11/2026', '20-11-9999', '20-11-1899', '32-13-2026',
  'true', 'null', '[]', '{}', 'B12345674', 'A58818501', 'X0000000T', 'b12345674', 'test', 'live', 'S1', 'F2', '01',
  HUGE,
];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^-?\d{1,15}(\.\d{1,4})?$/) },
);

/** Any JSON value, with numbers where amounts go (JSON numbers, -0, huge, fractional). */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.constantFrom(0, -0, 1, -1, 12.1, 1e21, 1e-7, 1234567890123, Number.MAX_SAFE_INTEGER, 0.1 + 0.2),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom('nif', 'serie', 'numero', 'importeTotal', '__proto__', 'constructor')), tie('value'), { maxKeys: 3 }),
  ),
})).value;

// ---------------------------------------------------------------- valid bodies to mutate

/** A valid body per route where one exists, so mutations reach the deep rules, not just the top. */
function validBodies(): Record<string, unknown> {
  const vf = {
    version: '1.0',
    emisor: { nif: VF_NIF, nombre: 'COMERCIAL DEMO SL' },
    cabecera: { serie: 'FZ', numero: '1', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
    detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
    totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
  };
  const tbai = aTicketTbai('gipuzkoa', { nif: TBAI_NIF, nombre: 'EMISOR GIPUZKOA SL' }, 'FZ', '1');
  return {
    'POST /v1/verifactu/crear': vf,
    'PUT /v1/verifactu/subsanar': { ...vf, subsanacion: true },
    'POST /v1/verifactu/anular': { version: '1.0', facturaAnulada: { nifEmisor: VF_NIF, serie: 'FZ', numero: '1', fechaExpedicion: '20-11-2026' } },
    'POST /v1/ticketbai/crear': tbai,
    'PUT /v1/ticketbai/subsanar': { ...tbai, subsanacion: true },
    'POST /v1/ticketbai/anular': { nifEmisor: TBAI_NIF, serie: 'FZ', numero: '1', fechaExpedicion: '20-11-2026', provincia: 'gipuzkoa' },
    'POST /v1/webhooks': { url: 'https://example.com/hook', eventos: ['factura.aceptada'] },
    'POST /v1/nif/validar': { nif: VF_NIF, nombre: 'COMERCIAL DEMO SL' },
    'POST /v1/clientes/crear': { nif: 'B11111119', nombre: 'CLIENTE SL', hacienda: 'verifactu' },
    'POST /panel/v1/sync/pausa': { entorno: 'test', pausado: false },
    'POST /panel/v1/sync/reintentar': { entorno: 'test' },
  };
}

type Path = (string | number)[];

/** Every path to a value inside a JSON document. */
function paths(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

type Mutation = { kind: 'set'; value: unknown } | { kind: 'delete' } | { kind: 'wrap' } | { kind: 'number' };

function mutate(doc: unknown, at: Path, m: Mutation): unknown {
  if (at.length === 0) {
    if (m.kind === 'set') return m.value;
    if (m.kind === 'wrap') return [doc];
    if (m.kind === 'number') return typeof doc === 'string' && doc !== '' && !Number.isNaN(Number(doc)) ? Number(doc) : 0;
    return undefined;
  }
  const [head, ...rest] = at as [string | number, ...Path];
  if (Array.isArray(doc)) {
    const copy = [...doc];
    if (rest.length === 0 && m.kind === 'delete') copy.splice(Number(head), 1);
    else copy[Number(head)] = mutate(copy[Number(head)], rest, m);
    return copy;
  }
  const copy = { ...(doc as Record<string, unknown>) };
  if (rest.length === 0 && m.kind === 'delete') delete copy[head];
  else copy[head] = mutate(copy[head], rest, m);
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: hostileJson.map((value) => ({ kind: 'set' as const, value })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wrap' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'number' as const }) },
);

// ---------------------------------------------------------------- raw bodies and headers

const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);
const DEEP_OBJECT = '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000);
const rawBody = fc.constantFrom('{', '{"a":}', '[1,]', '{"a":1}{"b":2}', "{'a':1}", 'null', '"text"', '123', '[]', '\u0000', '\uFEFF{}', DEEP, DEEP_OBJECT, '{"__proto__":{"polluted":1}}');
const contentType = fc.constantFrom(
  'application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16',
  'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'APPLICATION/JSON', '', 'application/json, text/plain',
);

/** encodeURIComponent that also writes lone surrogates (as the invalid UTF-8 %ED%A0%80). */
function pct(raw: string): string {
  try {
    return encodeURIComponent(raw);
  } catch {
    return raw.replace(/[\uD800-\uDFFF]/g, '\uFFFD').split('\uFFFD').map(encodeURIComponent).join('%ED%A0%80');
  }
}

function encodeSegment(raw: string, how: 'encoded' | 'raw'): string {
  if (how === 'encoded') return pct(raw);
  // Raw: what a client that does not encode sends; keep it a valid request line.
  return raw.replace(/[\s?#%\u0000-\u001F\u007F\uD800-\uDFFF]/g, (c) => pct(c));
}

export function routesOf(apps: Record<AppName, FastifyInstance>): Route[] {
  const out: Route[] = [];
  for (const app of ['billing', 'manage', 'panel'] as const) {
    for (const r of apps[app].routeTable) {
      if (r.method === 'HEAD' || r.method === 'OPTIONS') continue;
      out.push({ app, method: r.method, url: r.url });
    }
  }
  return out;
}

/** The request arbitrary for one route. */
function requestFor(route: Route, bodies: Record<string, unknown>, auth: Record<AppName, Record<string, string>>): fc.Arbitrary<FuzzRequest> {
  const params = route.url.match(/\{[^}]+\}|\*/g) ?? [];
  const valid = bodies[`${route.method} ${route.url}`];
  const validPaths = valid === undefined ? [] : paths(valid);
  const body: fc.Arbitrary<string | undefined> = fc.oneof(
    { weight: valid === undefined ? 0 : 6, arbitrary: fc.tuple(fc.constantFrom(...(validPaths.length ? validPaths : [[]])), mutation).map(([at, m]) => JSON.stringify(mutate(valid, at, m)) ?? '') },
    { weight: 3, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: rawBody },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const segment = fc.tuple(hostileString, fc.constantFrom('encoded' as const, 'raw' as const)).map(([s, how]) => encodeSegment(s, how));
  const wildcard = fc.oneof(
    fc.constantFrom('v1/cuenta', 'v1/facturas', 'v1/../openapi.json', 'v1/./cuenta', '../panel/v1/arranque', 'openapi.json', 'v1/facturas/%2e%2e%2f'),
    fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')),
  );
  const query = fc.dictionary(
    fc.oneof(fc.constantFrom('nifEmisor', 'nif', 'entorno', 'limite', 'cursor', 'desde', 'hasta', 'q', 'estado', 'serie', 'numero', 'idLote'), hostileString.filter((s) => s.length < 50)),
    fc.oneof(hostileString.filter((s) => s.length < 1000), fc.constantFrom(VF_NIF, TBAI_NIF, '10', '-1', '0', '1e3', 'test')),
    { maxKeys: 3 },
  );
  return fc
    .record({
      params: fc.tuple(...params.map((p) => (p === '*' ? wildcard : segment))),
      query,
      body,
      contentType,
      extraSlash: fc.boolean(),
    })
    .map(({ params: values, query: q, body: b, contentType: ct, extraSlash }) => {
      let i = 0;
      let url = route.url.replace(/\{[^}]+\}|\*/g, () => values[i++] ?? '');
      if (extraSlash) url += '/';
      const qs = Object.entries(q)
        .map(([k, v]) => `${pct(k)}=${pct(v)}`)
        .join('&');
      const hasBody = b !== undefined && route.method !== 'GET' && route.method !== 'DELETE';
      return {
        route,
        method: route.method,
        url: qs ? `${url}?${qs}` : url,
        headers: { ...auth[route.app], ...(hasBody && ct !== '' ? { 'content-type': ct } : {}) },
        ...(hasBody ? { payload: b } : {}),
      };
    });
}

// ---------------------------------------------------------------- the engine and its digest

export interface FuzzTarget {
  t: TestEngine;
  routes: Route[];
  request: fc.Arbitrary<FuzzRequest>;
  digest(): string;
  close(): Promise<void>;
}

export async function fuzzTarget(): Promise<FuzzTarget> {
  const t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
  const ctx = t.engine.context;
  const account = ctx.accounts.listAccounts()[0]!;
  ctx.issuers.create({ accountId: account.id, entorno: 'test', nif: TBAI_NIF, nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
  // The panel relays to the keyed APIs with the till's keys: give it the demo keys file.
  writeFileSync(path.join(t.dataDir, 'demo-keys.json'), JSON.stringify({ test: t.keys.test, live: t.keys.live }), { mode: 0o600 });
  // One valid invoice of each regime, so identities, replays and reads meet real rows.
  const seeds = validBodies();
  for (const k of ['POST /v1/verifactu/crear', 'POST /v1/ticketbai/crear'] as const) {
    const res = await t.billing('POST', k.slice(5), { body: seeds[k] });
    if (res.statusCode !== 200) throw new Error(`seed ${k}: ${res.statusCode} ${res.body}`);
  }
  const routes = routesOf(t.engine.apps);
  const auth: Record<AppName, Record<string, string>> = {
    billing: { 'x-api-key': t.keys.test },
    manage: { 'x-api-key': t.keys.test },
    panel: { authorization: 'Bearer panel-test-token' },
  };
  const request = fc.oneof(...routes.map((r) => requestFor(r, seeds, auth)));
  const tables = (sqliteOf(ctx.db).prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  // Metering counts every keyed request, refused ones included: not a stored side effect.
  const compared = tables.filter((name) => name !== 'quota_usage');
  const statements = compared.map((name) => sqliteOf(ctx.db).prepare(`SELECT * FROM "${name}" ORDER BY rowid`));
  return {
    t,
    routes,
    request,
    digest() {
      const h = createHash('sha256');
      for (const s of statements) for (const row of s.iterate()) h.update(JSON.stringify(row));
      return h.digest('hex');
    },
    close: () => t.close(),
  };
}

const FIELD_CODES = new Set(['VALIDATION_ERROR', 'INVALID_PARAMETER', 'MISSING_PARAMETER']);

/** Checks one answer against the invariants; returns what is wrong, or undefined. */
export function judge(res: Pick<LightMyRequestResponse, 'statusCode' | 'body'>, changed: boolean): string | undefined {
  if (res.statusCode >= 500) return `5xx: ${res.statusCode}`;
  if (res.statusCode < 400) return undefined;
  if (changed) return `a ${res.statusCode} answer changed the database`;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `${res.statusCode} body is not JSON`;
  }
  if (body === null || typeof body !== 'object') return `${res.statusCode} body is not an object`;
  const b = body as { code?: unknown; campo?: unknown; message?: unknown };
  // The gateway's answer to a missing/unknown key has no code by contract; we always send a key.
  if (typeof b.code !== 'string') return `${res.statusCode} body without code`;
  if (b.code.startsWith('FST_')) return `Fastify's own code ${b.code}`;
  if (FIELD_CODES.has(b.code) && (typeof b.campo !== 'string' || b.campo === '')) return `${b.code} without campo`;
  return undefined;
}

/** Sends one request and judges it. A throw out of inject() is a crash. */
export async function fire(target: FuzzTarget, req: FuzzRequest): Promise<Outcome> {
  const before = target.digest();
  let res: LightMyRequestResponse;
  try {
    res = await target.t.engine.apps[req.route.app].inject({
      method: req.method as 'GET',
      url: req.url,
      headers: req.headers,
      ...(req.payload !== undefined ? { payload: req.payload } : {}),
    });
  } catch (e) {
    return { request: req, status: 0, body: '', violation: `crash: ${e instanceof Error ? e.message : String(e)}` };
  }
  const changed = res.statusCode >= 400 && target.digest() !== before;
  return { request: req, status: res.statusCode, body: res.body.slice(0, 500), violation: judge(res, changed) };
}

/** Runs the property `runs` times; collects statistics; fails on the first violation. */
export async function runCampaign(target: FuzzTarget, runs: number, seed?: number, onProgress?: (stats: CampaignStats) => void): Promise<CampaignStats> {
  const stats: CampaignStats = { requests: 0, byStatus: {}, fiveXx: 0, crashes: 0, violations: [] };
  await fc.assert(
    fc.asyncProperty(target.request, async (req) => {
      const outcome = await fire(target, req);
      stats.requests++;
      if (onProgress !== undefined && stats.requests % 5000 === 0) onProgress(stats);
      stats.byStatus[outcome.status] = (stats.byStatus[outcome.status] ?? 0) + 1;
      if (outcome.status >= 500) stats.fiveXx++;
      if (outcome.status === 0) stats.crashes++;
      if (outcome.violation !== undefined) {
        stats.violations.push(outcome);
        const shown = { ...outcome.request, payload: outcome.request.payload?.slice(0, 300), url: outcome.request.url.slice(0, 300) };
        throw new Error(`${outcome.violation}\nrequest: ${JSON.stringify(shown)}\nanswer: ${outcome.status} ${outcome.body}`);
      }
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: true },
  );
  return stats;
}
