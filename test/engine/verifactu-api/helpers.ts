// Shared support of the HTTP-level VeriFactu tests: an engine whose clock is the fixtures' day,
// row counts, XML field access, an independent huella recomputation and QR decoding.
import { createHash } from 'node:crypto';
import { DOMParser, type Element } from '@xmldom/xmldom';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { EMISOR, GENERADO_EN } from '../../fixtures/verifactu';

export const NIF = EMISOR.nif;
/** The one chain of the demo issuer in TEST. */
export const CHAIN_TEST = `test|verifactu|${NIF}`;

/** An engine whose "today" in Madrid is the fixtures' HOY (02-03-2026). */
export function engineOnFixtureDay(): Promise<TestEngine> {
  return makeTestEngine({ now: GENERADO_EN.toISOString() });
}

/** One engine on the fixtures' day for a test file: started before its tests and handed to `onStart`, closed after them. */
export function useEngineOnFixtureDay(onStart: (engine: TestEngine) => void): void {
  let engine: TestEngine | undefined;
  beforeAll(async () => {
    engine = await engineOnFixtureDay();
    onStart(engine);
  });
  afterAll(async () => engine?.close());
}

export function json<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  return res.json() as T;
}

export async function crear(t: TestEngine, body: unknown, key?: string): Promise<LightMyRequestResponse> {
  return t.billing('POST', '/v1/verifactu/crear', { body, ...(key !== undefined ? { key } : {}) });
}

export async function crearOk(t: TestEngine, body: unknown, key?: string): Promise<EmisionAnswer> {
  const res = await crear(t, body, key);
  expect(res.statusCode, res.body).toBe(200);
  return json<EmisionAnswer>(res);
}

export interface EmisionAnswer {
  idFactura: string;
  estado: string;
  numeroFactura: string;
  sistemaFiscal: string;
  entorno: string;
  huella: string;
  fechaHoraHusoGenRegistro: string;
  urlValidacion: string;
  qrBase64: string;
  avisos?: string[];
  yaExistente?: boolean;
}

export interface ErrorBody {
  code?: string;
  message: string;
  campo?: string;
  errors?: string[];
  details?: unknown;
}

/** Rows of the tables an issuing request writes: compare before/after to prove nothing was stored. */
export function counts(t: TestEngine): { invoices: number; registros: number; chains: number; jobs: number } {
  const db = t.engine.context.db;
  const n = (table: 'invoices' | 'registros' | 'chains' | 'submission_jobs') =>
    Number(db.first(db.kysely.selectFrom(table).select(sql<number>`count(*)`.as('n')))?.n ?? 0);
  return { invoices: n('invoices'), registros: n('registros'), chains: n('chains'), jobs: n('submission_jobs') };
}

/** Expects a 400 VALIDATION_ERROR naming `campo`, with nothing stored. */
export async function expectRefused(
  t: TestEngine,
  res: Promise<LightMyRequestResponse> | LightMyRequestResponse,
  status: number,
  code: string,
  campo?: string,
): Promise<ErrorBody> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  const body = json<ErrorBody>(r);
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  if (campo !== undefined) expect(body.campo).toBe(campo);
  return body;
}

/** A second account with a TEST and a LIVE key and its own VeriFactu issuer in both environments. */
export function anotherAccount(t: TestEngine, nif = 'A58818501'): { accountId: string; test: string; live: string; nif: string } {
  const ctx = t.engine.context;
  const account = ctx.accounts.createAccount({ nif, nombre: 'OTRA CUENTA SA', plan: 'empresa' });
  for (const entorno of ['test', 'live'] as const) {
    ctx.issuers.create({ accountId: account.id, entorno, nif, nombre: 'OTRA CUENTA SA', hacienda: 'verifactu' });
  }
  return {
    accountId: account.id,
    test: ctx.accounts.createKey(account.id, 'test').rawKey,
    live: ctx.accounts.createKey(account.id, 'live').rawKey,
    nif,
  };
}

export function demoAccountId(t: TestEngine): string {
  const account = t.engine.context.accounts.findAccountByNif(NIF);
  if (!account) throw new Error('demo account missing');
  return account.id;
}

export function setIssuerEstado(t: TestEngine, entorno: 'test' | 'live', nif: string, estado: 'activo' | 'inactivo' | 'eliminado'): void {
  const db = t.engine.context.db;
  db.run(db.kysely.updateTable('issuers').set({ estado }).where('entorno', '=', entorno).where('nif', '=', nif));
}

// ---------------------------------------------------------------- XML

export function parseXml(xml: string): Element {
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  if (root === null) throw new Error('no root element');
  return root;
}

export function childElements(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n !== null; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

/** Text at a path of local names below `el` (first match at each step), or undefined. */
export function xmlText(el: Element, ...names: string[]): string | undefined {
  let cur: Element | undefined = el;
  for (const name of names) {
    cur = childElements(cur).find((c) => c.localName === name);
    if (cur === undefined) return undefined;
  }
  return cur.textContent ?? undefined;
}

/** The record element (RegistroAlta / RegistroAnulacion) of a document served by GET …/xml. */
export function recordElement(xml: string): Element {
  const root = parseXml(xml);
  if (root.localName === 'RegistroAlta' || root.localName === 'RegistroAnulacion') return root;
  const found = [...Array.from(root.getElementsByTagNameNS('*', 'RegistroAlta')), ...Array.from(root.getElementsByTagNameNS('*', 'RegistroAnulacion'))];
  const first = found[0];
  if (!first) throw new Error(`no record element in ${root.localName}`);
  return first as Element;
}

// ---------------------------------------------------------------- huella, written independently

/** SHA-256 of `Name=value&…` (values trimmed, absent as empty), 64 upper-case hex chars (FACTS.md). */
export function sha256Chain(fields: readonly (readonly [string, string | undefined])[]): string {
  const text = fields.map(([name, value]) => `${name}=${(value ?? '').trim()}`).join('&');
  return createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();
}

/** The huella a record must carry, recomputed from the fields as written in its own XML. */
export function huellaFromXml(record: Element): string {
  const prev = xmlText(record, 'Encadenamiento', 'RegistroAnterior', 'Huella');
  const fecha = xmlText(record, 'FechaHoraHusoGenRegistro');
  if (record.localName === 'RegistroAnulacion') {
    return sha256Chain([
      ['IDEmisorFacturaAnulada', xmlText(record, 'IDFactura', 'IDEmisorFacturaAnulada')],
      ['NumSerieFacturaAnulada', xmlText(record, 'IDFactura', 'NumSerieFacturaAnulada')],
      ['FechaExpedicionFacturaAnulada', xmlText(record, 'IDFactura', 'FechaExpedicionFacturaAnulada')],
      ['Huella', prev],
      ['FechaHoraHusoGenRegistro', fecha],
    ]);
  }
  return sha256Chain([
    ['IDEmisorFactura', xmlText(record, 'IDFactura', 'IDEmisorFactura')],
    ['NumSerieFactura', xmlText(record, 'IDFactura', 'NumSerieFactura')],
    ['FechaExpedicionFactura', xmlText(record, 'IDFactura', 'FechaExpedicionFactura')],
    ['TipoFactura', xmlText(record, 'TipoFactura')],
    ['CuotaTotal', xmlText(record, 'CuotaTotal')],
    ['ImporteTotal', xmlText(record, 'ImporteTotal')],
    ['Huella', prev],
    ['FechaHoraHusoGenRegistro', fecha],
  ]);
}

// ---------------------------------------------------------------- QR

/** Decodes a QR PNG to its text; throws when no code is found. */
export function decodeQrPng(png: Buffer): string {
  const image = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  if (!code) throw new Error('no QR code found in the PNG');
  return code.data;
}
