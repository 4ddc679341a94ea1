import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { Element } from '@xmldom/xmldom';
import type { AeatEmulator, AeatEmulatorOptions } from '../../../engine/emulators/aeat/index';
import { createAeatEmulator, extractBodyPayload, loadVerifactuSchemas, XsdValidator } from '../../../engine/emulators/aeat/index';
import { referenceDir } from '../../../engine/emulators/paths';
import { TestClock, T0, controlClient, listenWarm, testIds } from '../harness';
import type { BuiltRecord } from './builders';
import { NS_SI, SOAP_PATH, buildEnvelope } from './builders';

export { TestClock, T0 } from '../harness';

export const DEMO = { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' };
export const NS_RESP =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/RespuestaSuministro.xsd';

export interface Harness {
  emu: AeatEmulator;
  clock: TestClock;
  base: string;
  soapUrl: string;
  post(xml: string, init?: RequestInit): Promise<{ status: number; text: string }>;
  control(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  close(): Promise<void>;
}

export async function startHarness(opts: Partial<AeatEmulatorOptions> = {}): Promise<Harness> {
  const clock = new TestClock(T0);
  const emu = createAeatEmulator({ clock: clock.now, ids: testIds(), xsdPoolSize: 1, ...opts });
  const base = await listenWarm(emu);
  return {
    emu,
    clock,
    base,
    soapUrl: base + SOAP_PATH,
    async post(xml, init = {}) {
      const r = await fetch(base + SOAP_PATH, {
        method: 'POST',
        body: xml,
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' },
        ...init,
      });
      return { status: r.status, text: await r.text() };
    },
    control: controlClient(base),
    close: () => emu.close(),
  };
}

/**
 * One emulator for a test file: started before its tests and handed to `onStart`, closed after
 * them together with the answer validator. Before each test the ledger is emptied (`reset`, as
 * AeatEmulator.reset takes it; false: the file resets in its own way) and the clock is back at T0.
 */
export function useHarness(
  onStart: (harness: Harness) => void,
  options: { emulator?: Partial<AeatEmulatorOptions>; reset?: Parameters<AeatEmulator['reset']>[0] | false } = {},
): void {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness(options.emulator);
    onStart(harness);
  });
  afterAll(async () => {
    await harness?.close();
    await closeRespValidator();
  });
  beforeEach(() => {
    if (options.reset !== false) harness?.emu.reset(options.reset);
    if (harness) harness.clock.ms = T0;
  });
}

/** The rest of an envelope beyond the obligado (DEMO) and its records. */
export type EnvelopeOptions = Partial<Parameters<typeof buildEnvelope>[0]>;

/**
 * Sends one batch for DEMO after the flow-control wait (60 s on the clock) and checks the answer:
 * 200 and valid against RespuestaSuministro.xsd.
 */
export async function sendBatch(h: Harness, records: Array<BuiltRecord | string>, envelope: EnvelopeOptions = {}): Promise<ParsedRespuesta> {
  h.clock.advance(60);
  const r = await h.post(buildEnvelope({ obligado: DEMO, records, ...envelope }));
  expect(r.status, r.text).toBe(200);
  expect((await validateRespuesta(r.text)).errors).toEqual([]);
  return parseRespuesta(r.text);
}

let respValidator: XsdValidator | null = null;

/** Validates the payload of a SOAP answer against RespuestaSuministro.xsd. */
export async function validateRespuesta(soapXml: string): Promise<{ valid: boolean; errors: string[] }> {
  respValidator ??= new XsdValidator(loadVerifactuSchemas(referenceDir(), 'RespuestaSuministro.xsd'), { poolSize: 1 });
  // The service departs from its own XSD in one value (EstadoRegistroDuplicado AceptadoConErrores,
  // the schema says AceptadaConErrores): everything else must validate.
  const payload = extractBodyPayload(soapXml).xml.replace(
    /(<(?:\w+:)?EstadoRegistroDuplicado>)AceptadoConErrores</g,
    '$1AceptadaConErrores<',
  );
  return respValidator.validate(payload);
}

export async function closeRespValidator(): Promise<void> {
  await respValidator?.close();
  respValidator = null;
}

export interface ParsedLinea {
  numSerie: string;
  fecha: string;
  emisor: string;
  tipoOperacion: string;
  estado: string;
  codigo: number | null;
  descripcion: string | null;
  duplicado: { idPeticion: string; estado: string; codigo: number | null; descripcion: string | null } | null;
}

export interface ParsedRespuesta {
  csv: string | null;
  nifPresentador: string | null;
  timestamp: string | null;
  tiempoEsperaEnvio: number;
  estadoEnvio: string;
  lineas: ParsedLinea[];
}

function child(el: Element, ns: string, name: string): Element | null {
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name && (n as Element).namespaceURI === ns) return n as Element;
  }
  return null;
}

const txt = (el: Element | null): string | null => (el ? (el.textContent ?? '') : null);

export function parseRespuesta(xml: string): ParsedRespuesta {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const root = doc.getElementsByTagNameNS(NS_RESP, 'RespuestaRegFactuSistemaFacturacion')[0];
  if (!root) throw new Error(`not a RespuestaRegFactuSistemaFacturacion: ${xml.slice(0, 300)}`);
  const dp = child(root, NS_RESP, 'DatosPresentacion');
  const lineas: ParsedLinea[] = [];
  const ls = root.getElementsByTagNameNS(NS_RESP, 'RespuestaLinea');
  for (let i = 0; i < ls.length; i++) {
    const l = ls[i] as Element;
    const id = child(l, NS_RESP, 'IDFactura') as Element;
    const op = child(l, NS_RESP, 'Operacion') as Element;
    const dup = child(l, NS_RESP, 'RegistroDuplicado');
    const cod = txt(child(l, NS_RESP, 'CodigoErrorRegistro'));
    lineas.push({
      emisor: txt(child(id, NS_SI, 'IDEmisorFactura')) ?? '',
      numSerie: txt(child(id, NS_SI, 'NumSerieFactura')) ?? '',
      fecha: txt(child(id, NS_SI, 'FechaExpedicionFactura')) ?? '',
      tipoOperacion: txt(child(op, NS_SI, 'TipoOperacion')) ?? '',
      estado: txt(child(l, NS_RESP, 'EstadoRegistro')) ?? '',
      codigo: cod === null ? null : Number(cod),
      descripcion: txt(child(l, NS_RESP, 'DescripcionErrorRegistro')),
      duplicado: dup
        ? {
            idPeticion: txt(child(dup, NS_SI, 'IdPeticionRegistroDuplicado')) ?? '',
            estado: txt(child(dup, NS_SI, 'EstadoRegistroDuplicado')) ?? '',
            codigo: txt(child(dup, NS_SI, 'CodigoErrorRegistro')) === null ? null : Number(txt(child(dup, NS_SI, 'CodigoErrorRegistro'))),
            descripcion: txt(child(dup, NS_SI, 'DescripcionErrorRegistro')),
          }
        : null,
    });
  }
  return {
    csv: txt(child(root, NS_RESP, 'CSV')),
    nifPresentador: dp ? txt(child(dp, NS_SI, 'NIFPresentador')) : null,
    timestamp: dp ? txt(child(dp, NS_SI, 'TimestampPresentacion')) : null,
    tiempoEsperaEnvio: Number(txt(child(root, NS_RESP, 'TiempoEsperaEnvio'))),
    estadoEnvio: txt(child(root, NS_RESP, 'EstadoEnvio')) ?? '',
    lineas,
  };
}

export function parseFault(xml: string): { faultcode: string; faultstring: string } {
  const fc = /<faultcode>([^<]*)<\/faultcode>/.exec(xml);
  const fs = /<faultstring>([^<]*)<\/faultstring>/.exec(xml);
  if (!fc || !fs) throw new Error(`not a SOAP fault: ${xml.slice(0, 300)}`);
  return { faultcode: fc[1] ?? '', faultstring: fs[1] ?? '' };
}
