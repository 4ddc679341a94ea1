import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import type { Element } from '@xmldom/xmldom';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { TicketBaiEmulator, TicketBaiEmulatorOptions } from '../../../engine/emulators/ticketbai/index';
import { TBAI_PATHS, TbaiXsdPool, createTicketBaiEmulator, loadTicketBaiSchemas } from '../../../engine/emulators/ticketbai/index';
import { referenceDir } from '../../../engine/emulators/paths';
import { TestClock, T0, controlClient, listenWarm, testIds } from '../harness';
import { gz, lroeHeaders } from './builders';

export { TestClock, T0 } from '../harness';

export const EXAMPLES = path.join(referenceDir(), 'ticketbai', 'examples');
export const official = (f: string): string => readFileSync(path.join(EXAMPLES, 'gipuzkoa-official-1_2_2', f), 'utf8');
export const OFFICIAL_1 = 'TicketBAI_Alta_Faktura__Alta_Factura_01_lehena__primera.xml';
export const OFFICIAL_2 = 'TicketBAI_Alta_Faktura__Alta_Factura_02_hurrengoa__sucesiva.xml';
export const OFFICIAL_ANULA_2 = 'TicketBAI_Baligabetzea_Faktura__Anulacion_Factura_02.xml';

export interface Harness {
  emu: TicketBaiEmulator;
  clock: TestClock;
  base: string;
  post(p: string, xml: string, init?: RequestInit): Promise<{ status: number; text: string; headers: Headers }>;
  lroe(model: '240' | '140', xml: string, init?: { headers?: Record<string, string>; raw?: Buffer; signal?: AbortSignal }): Promise<{ status: number; text: string; headers: Headers }>;
  control(method: string, p: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  close(): Promise<void>;
}

export async function startHarness(opts: Partial<TicketBaiEmulatorOptions> = {}): Promise<Harness> {
  const clock = new TestClock(T0);
  const emu = createTicketBaiEmulator({ clock: clock.now, ids: testIds(), ...opts });
  const base = await listenWarm(emu);
  return {
    emu,
    clock,
    base,
    async post(p, xml, init = {}) {
      const r = await fetch(base + p, {
        method: 'POST',
        body: xml,
        headers: { 'content-type': 'application/xml;charset=UTF-8' },
        ...init,
      });
      return { status: r.status, text: await r.text(), headers: r.headers };
    },
    async lroe(model, xml, init = {}) {
      const r = await fetch(base + TBAI_PATHS.bizkaia.lroe, {
        method: 'POST',
        body: init.raw ?? gz(xml),
        headers: init.headers ?? lroeHeaders(model),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      // fetch undoes Content-Encoding: gzip, so text() is the XML.
      return { status: r.status, text: await r.text(), headers: r.headers };
    },
    control: controlClient(base),
    close: () => emu.close(),
  };
}

/**
 * One emulator for a test file: started before its tests and handed to `onStart`, closed after
 * them together with the answer validator. Before each test every treasury's ledger is reset
 * (the control call answers 200) and the clock is back at T0.
 */
export function useHarness(onStart: (harness: Harness) => void): void {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness();
    onStart(harness);
  });
  afterAll(async () => {
    await harness?.close();
    await closeValidator();
  });
  beforeEach(async () => {
    if (!harness) throw new Error('useHarness: the emulator did not start');
    expect((await harness.control('POST', '/__control/tbai/reset')).status).toBe(200);
    harness.clock.ms = T0;
  });
}

let pool: TbaiXsdPool | null = null;
function validator(): TbaiXsdPool {
  pool ??= new TbaiXsdPool(loadTicketBaiSchemas(referenceDir()), { poolSize: 1 });
  return pool;
}
export function validateTicketBaiResponse(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  return validator().validate('tbai-response', xml);
}
export function validateLroeResponse(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  return validator().validate('lroe-response', xml);
}
export async function closeValidator(): Promise<void> {
  await pool?.close();
  pool = null;
}

export interface Resultado {
  codigo: string;
  descripcion: string;
  azalpena: string;
}
export interface ParsedSalida {
  identificadorTbai: string | null;
  fechaRecepcion: string;
  estado: string;
  descripcion: string;
  azalpena: string;
  resultados: Resultado[];
  csv: string | null;
}

const kids = (e: Element, name: string): Element[] => {
  const out: Element[] = [];
  for (let c = e.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 && (c as Element).localName === name) out.push(c as Element);
  return out;
};
const t = (e: Element, name: string): string | null => {
  const k = kids(e, name)[0];
  return k ? (k.textContent ?? '') : null;
};

export function parseSalida(xml: string): ParsedSalida {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const root = doc.documentElement;
  if (!root || root.localName !== 'TicketBaiResponse' || root.namespaceURI !== 'urn:ticketbai:emision') {
    throw new Error(`not a TicketBaiResponse: ${xml.slice(0, 200)}`);
  }
  const s = kids(root as unknown as Element, 'Salida')[0]!;
  return {
    identificadorTbai: t(s, 'IdentificadorTBAI'),
    fechaRecepcion: t(s, 'FechaRecepcion') ?? '',
    estado: t(s, 'Estado') ?? '',
    descripcion: t(s, 'Descripcion') ?? '',
    azalpena: t(s, 'Azalpena') ?? '',
    resultados: kids(s, 'ResultadosValidacion').map((r) => ({
      codigo: t(r, 'Codigo') ?? '',
      descripcion: t(r, 'Descripcion') ?? '',
      azalpena: t(r, 'Azalpena') ?? '',
    })),
    csv: t(s, 'CSV'),
  };
}

export const codes = (s: ParsedSalida): string[] => s.resultados.map((r) => r.codigo);

export interface LroeRecordResult {
  id: { serie: string | null; num: string; fecha: string } | null;
  estado: string;
  codigo: string | null;
  es: string | null;
}

export function parseLroe(xml: string): { root: string; presentacion: boolean; registros: LroeRecordResult[] } {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const root = doc.documentElement as unknown as Element;
  const regs = kids(root, 'Registros')[0];
  return {
    root: root.localName ?? '',
    presentacion: kids(root, 'DatosPresentacion').length === 1,
    registros: (regs ? kids(regs, 'Registro') : []).map((r) => {
      const idf = kids(kids(r, 'Identificador')[0]!, 'IDFactura')[0];
      const sit = kids(r, 'SituacionRegistro')[0]!;
      return {
        id: idf ? { serie: t(idf, 'SerieFactura'), num: t(idf, 'NumFactura') ?? '', fecha: t(idf, 'FechaExpedicionFactura') ?? '' } : null,
        estado: t(sit, 'EstadoRegistro') ?? '',
        codigo: t(sit, 'CodigoErrorRegistro'),
        es: t(sit, 'DescripcionErrorRegistroES'),
      };
    }),
  };
}

export { gunzipSync };
