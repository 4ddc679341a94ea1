/**
 * One well-formed request to every route of the billing, management and panel APIs of a running
 * engine (a real process: `npm start`'s, or the desktop app's built bundle), plus one round of the
 * filing worker (an invoice until `registrada`) and of the webhook worker (its delivery received).
 * The routes come from each app's /openapi.json (test/engine/foundation/openapi.test.ts keeps every
 * route documented), so a new route without a sample here fails the sweep. Any 5xx fails it: the
 * artefacts users run must not answer an error that the in-process tests cannot see.
 */
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { expect } from 'vitest';
import type { DemoKeysFile } from '../../engine/src/bin/start';
import { hostedExample02 } from '../fixtures/hosted-examples';
import { startReceiver, type Receiver } from './webhook-receiver';
import { todayInMadrid } from './madrid-day';

export type AppName = 'billing' | 'manage' | 'panel';

export interface Answer {
  status: number;
  text: string;
  json: () => Record<string, unknown>;
}

interface SweepState {
  keys: DemoKeysFile;
  receiver: Receiver;
  hoy: string;
  idFactura: string;
  idRegistro: string;
  idFacturaDelRegistro: string;
  tipoRegistro: string;
  idWebhook: string;
  idWebhookExtra: string;
  idCuenta: string;
  idLote: string;
  archivoDeclaracion: string;
  pdf: string;
  pdfFirmado: string;
  certificado: string;
}

type Call = (app: AppName, method: string, url: string, options?: { body?: unknown; key?: string; accept?: string }) => Promise<Answer>;
type Sample = (call: Call, s: SweepState) => Promise<Answer>;

/** The autónomo the representation samples sign for (census emulator: a NIF and name it holds). */
const AUTONOMO = {
  nif: '34567890V',
  nombre: 'FERNANDEZ GOMEZ LAURA',
  tipoUsuario: 'autonomo',
  hacienda: 'verifactu',
  direccion: { calle: 'Gran Vía', numero: '1', codigoPostal: '28013', ciudad: 'Madrid', provincia: 'Madrid' },
};
const TBAI = { nif: 'B20123451', provincia: 'gipuzkoa' };
const PASSWORD = 'secreta-de-prueba';

const facturaVf = (nif: string, hoy: string, numero: string) => ({
  version: '1.0',
  emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
  cabecera: { serie: 'SWEEP', numero, fechaExpedicion: hoy, tipoFactura: 'F2', descripcion: 'Venta' },
  detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
  totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
});

/**
 * Every route's sample, in the order they run: what a route needs (an invoice, a webhook, a
 * document to sign) is made by an earlier one, what removes or rotates things comes last.
 */
const SAMPLES: [string, Sample][] = [
  // Billing
  ['billing GET /v1/cuenta', (c) => c('billing', 'GET', '/v1/cuenta')],
  ['billing POST /v1/verifactu/crear', (c, s) => c('billing', 'POST', '/v1/verifactu/crear', { body: facturaVf(s.keys.nifEmisor, s.hoy, '2') })],
  [
    'billing PUT /v1/verifactu/subsanar',
    (c, s) => c('billing', 'PUT', '/v1/verifactu/subsanar', { body: { ...facturaVf(s.keys.nifEmisor, s.hoy, '2'), subsanacion: true } }),
  ],
  [
    'billing POST /v1/verifactu/anular',
    (c, s) =>
      c('billing', 'POST', '/v1/verifactu/anular', {
        body: { version: '1.0', facturaAnulada: { nifEmisor: s.keys.nifEmisor, serie: 'SWEEP', numero: '2', fechaExpedicion: s.hoy } },
      }),
  ],
  ['billing POST /v1/ticketbai/crear', (c, s) => c('billing', 'POST', '/v1/ticketbai/crear', { body: hostedExample02(TBAI.nif, TBAI.provincia, s.hoy, 'SWEEP1') })],
  [
    'billing PUT /v1/ticketbai/subsanar',
    (c, s) => c('billing', 'PUT', '/v1/ticketbai/subsanar', { body: { ...hostedExample02(TBAI.nif, TBAI.provincia, s.hoy, 'SWEEP1'), subsanacion: true } }),
  ],
  [
    'billing POST /v1/ticketbai/anular',
    (c, s) => c('billing', 'POST', '/v1/ticketbai/anular', { body: { nifEmisor: TBAI.nif, serie: 'DEMO', numero: 'SWEEP1', fechaExpedicion: s.hoy, provincia: TBAI.provincia } }),
  ],
  ['billing GET /v1/facturas', (c, s) => c('billing', 'GET', `/v1/facturas?nifEmisor=${s.keys.nifEmisor}`)],
  [
    'billing GET /v1/facturas/buscar',
    (c, s) => c('billing', 'GET', `/v1/facturas/buscar?nifEmisor=${s.keys.nifEmisor}&serie=SWEEP&numero=1&fechaExpedicion=${s.hoy}`),
  ],
  ['billing GET /v1/facturas/{idFactura}', (c, s) => c('billing', 'GET', `/v1/facturas/${s.idFactura}?nifEmisor=${s.keys.nifEmisor}`)],
  ['billing GET /v1/facturas/{idFactura}/estado', (c, s) => c('billing', 'GET', `/v1/facturas/${s.idFactura}/estado?nifEmisor=${s.keys.nifEmisor}`)],
  ['billing GET /v1/facturas/{idFactura}/qr', (c, s) => c('billing', 'GET', `/v1/facturas/${s.idFactura}/qr?nifEmisor=${s.keys.nifEmisor}`)],
  ['billing GET /v1/facturas/{idFactura}/xml', (c, s) => c('billing', 'GET', `/v1/facturas/${s.idFactura}/xml?nifEmisor=${s.keys.nifEmisor}`)],
  [
    'billing GET /v1/registros',
    async (c, s) => {
      const res = await c('billing', 'GET', `/v1/registros?nifEmisor=${s.keys.nifEmisor}`);
      // The newest record: the cancellation of SWEEP 2 (its XML is served per record).
      const registro = ((res.json().registros ?? []) as { idRegistro: string; idFactura: string; tipo: string }[])[0];
      s.idRegistro = registro?.idRegistro ?? 'reg_ninguno';
      s.tipoRegistro = registro?.tipo ?? '';
      s.idFacturaDelRegistro = registro?.idFactura ?? 'fac_ninguna';
      return res;
    },
  ],
  [
    'billing GET /v1/registros/{idRegistro}/xml',
    (c, s) => c('billing', 'GET', `/v1/registros/${s.idRegistro}/xml?nifEmisor=${s.keys.nifEmisor}&idFactura=${s.idFacturaDelRegistro}`),
  ],
  ['billing GET /v1/registros/{idRegistro}', (c, s) => c('billing', 'GET', `/v1/registros/${s.idRegistro}?nifEmisor=${s.keys.nifEmisor}&idFactura=${s.idFacturaDelRegistro}`)],

  // Management: compliance, NIF, webhooks
  [
    'manage GET /v1/cumplimiento/declaracion-responsable',
    async (c, s) => {
      const res = await c('manage', 'GET', '/v1/cumplimiento/declaracion-responsable');
      const archivo = /\/public\/cumplimiento\/([^"?#\s]+)/.exec(res.text)?.[1];
      s.archivoDeclaracion = archivo ?? 'declaracion-responsable.pdf';
      return res;
    },
  ],
  ['manage GET /public/cumplimiento/{archivo}', (c, s) => c('manage', 'GET', `/public/cumplimiento/${s.archivoDeclaracion}`)],
  ['manage POST /v1/nif/validar', (c) => c('manage', 'POST', '/v1/nif/validar', { body: { nifs: [{ nif: AUTONOMO.nif, nombre: AUTONOMO.nombre }] } })],
  ['manage GET /v1/webhooks', (c) => c('manage', 'GET', '/v1/webhooks')],
  [
    'manage POST /v1/webhooks',
    async (c, s) => {
      const res = await c('manage', 'POST', '/v1/webhooks', { body: { nombre: 'segundo', url: `${s.receiver.url}/segundo`, secreto: 'secreto-del-barrido-02' } });
      s.idWebhookExtra = ((res.json().webhook ?? {}) as { idWebhook?: string }).idWebhook ?? 'wh_ninguno';
      return res;
    },
  ],
  ['manage GET /v1/webhooks/{idWebhook}', (c, s) => c('manage', 'GET', `/v1/webhooks/${s.idWebhookExtra}`)],
  ['manage PATCH /v1/webhooks/{idWebhook}', (c, s) => c('manage', 'PATCH', `/v1/webhooks/${s.idWebhookExtra}`, { body: { nombre: 'segundo bis' } })],
  ['manage GET /v1/webhooks/{idWebhook}/clientes', (c, s) => c('manage', 'GET', `/v1/webhooks/${s.idWebhookExtra}/clientes`)],
  ['manage POST /v1/webhooks/{idWebhook}/clientes', (c, s) => c('manage', 'POST', `/v1/webhooks/${s.idWebhookExtra}/clientes`, { body: { clientes: [s.keys.nifEmisor] } })],
  ['manage DELETE /v1/webhooks/{idWebhook}/clientes/{nif}', (c, s) => c('manage', 'DELETE', `/v1/webhooks/${s.idWebhookExtra}/clientes/${s.keys.nifEmisor}`)],
  ['manage DELETE /v1/webhooks/{idWebhook}', (c, s) => c('manage', 'DELETE', `/v1/webhooks/${s.idWebhookExtra}`)],

  // Management: clients and representation (the whole signing flow, with the install's test CA)
  ['manage GET /v1/clientes', (c) => c('manage', 'GET', '/v1/clientes')],
  ['manage POST /v1/clientes/crear', (c) => c('manage', 'POST', '/v1/clientes/crear', { body: AUTONOMO })],
  ['manage GET /v1/clientes/{nif}', (c) => c('manage', 'GET', `/v1/clientes/${AUTONOMO.nif}`)],
  ['manage PATCH /v1/clientes/{nif}', (c) => c('manage', 'PATCH', `/v1/clientes/${AUTONOMO.nif}`, { body: { nombre: AUTONOMO.nombre } })],
  [
    'manage GET /v1/clientes/{nif}/representacion/generar',
    async (c, s) => {
      const res = await c('manage', 'GET', `/v1/clientes/${AUTONOMO.nif}/representacion/generar`, { accept: 'application/json' });
      s.pdf = (res.json().pdf as string | undefined) ?? '';
      return res;
    },
  ],
  [
    'manage POST /v1/clientes/{nif}/representacion/certificado-prueba',
    async (c, s) => {
      const res = await c('manage', 'POST', `/v1/clientes/${AUTONOMO.nif}/representacion/certificado-prueba`, { body: { password: PASSWORD } });
      s.certificado = (res.json().certificado as string | undefined) ?? '';
      return res;
    },
  ],
  [
    'manage POST /v1/clientes/{nif}/representacion/firmar',
    async (c, s) => {
      const res = await c('manage', 'POST', `/v1/clientes/${AUTONOMO.nif}/representacion/firmar`, { body: { pdf: s.pdf, certificado: s.certificado, password: PASSWORD } });
      s.pdfFirmado = (res.json().pdfFirmado as string | undefined) ?? s.pdf;
      return res;
    },
  ],
  ['manage POST /v1/clientes/{nif}/representacion/verificar', (c, s) => c('manage', 'POST', `/v1/clientes/${AUTONOMO.nif}/representacion/verificar`, { body: { pdfFirmado: s.pdfFirmado } })],
  ['manage GET /v1/clientes/{nif}/representacion/estado', (c) => c('manage', 'GET', `/v1/clientes/${AUTONOMO.nif}/representacion/estado`)],
  ['manage DELETE /v1/clientes/{nif}/representacion/firma-en-curso', (c) => c('manage', 'DELETE', `/v1/clientes/${AUTONOMO.nif}/representacion/firma-en-curso`)],

  // Management: devices
  ['manage GET /v1/clientes/{nif}/dispositivos', (c, s) => c('manage', 'GET', `/v1/clientes/${s.keys.nifEmisor}/dispositivos`)],
  ['manage POST /v1/clientes/{nif}/dispositivos', (c, s) => c('manage', 'POST', `/v1/clientes/${s.keys.nifEmisor}/dispositivos`, { body: { idMaquina: 'SWEEP-1', etiqueta: 'Barrido' } })],
  ['manage DELETE /v1/clientes/{nif}/dispositivos/{idMaquina}', (c, s) => c('manage', 'DELETE', `/v1/clientes/${s.keys.nifEmisor}/dispositivos/SWEEP-1`)],
  ['manage POST /v1/clientes/{nif}/dispositivos/promover', (c, s) => c('manage', 'POST', `/v1/clientes/${s.keys.nifEmisor}/dispositivos/promover`, { body: {} })],
  ['manage POST /v1/clientes/{nif}/dispositivos/solicitar-activacion', (c, s) => c('manage', 'POST', `/v1/clientes/${s.keys.nifEmisor}/dispositivos/solicitar-activacion`, { body: {} })],
  [
    'manage POST /v1/clientes/{nif}/dispositivos/series-centralizadas',
    (c, s) => c('manage', 'POST', `/v1/clientes/${s.keys.nifEmisor}/dispositivos/series-centralizadas`, { body: { series: ['Z'] } }),
  ],
  [
    'manage DELETE /v1/clientes/{nif}/dispositivos/series-centralizadas/{serie}',
    (c, s) => c('manage', 'DELETE', `/v1/clientes/${s.keys.nifEmisor}/dispositivos/series-centralizadas/Z`),
  ],

  // Panel
  [
    'panel GET /panel/v1/arranque',
    (c) => c('panel', 'GET', '/panel/v1/arranque'),
  ],
  ['panel GET /panel/v1/registro', (c) => c('panel', 'GET', '/panel/v1/registro')],
  ['panel GET /panel/v1/sync', (c) => c('panel', 'GET', '/panel/v1/sync')],
  [
    'panel GET /panel/v1/sync/lotes',
    async (c, s) => {
      const res = await c('panel', 'GET', '/panel/v1/sync/lotes');
      s.idLote = ((res.json().lotes ?? []) as { idLote: string }[])[0]?.idLote ?? 'lot_ninguno';
      return res;
    },
  ],
  ['panel GET /panel/v1/sync/lotes/{idLote}', (c, s) => c('panel', 'GET', `/panel/v1/sync/lotes/${s.idLote}`)],
  ['panel POST /panel/v1/sync/reintentar', (c) => c('panel', 'POST', '/panel/v1/sync/reintentar', { body: {} })],
  ['panel POST /panel/v1/sync/pausa', (c) => c('panel', 'POST', '/panel/v1/sync/pausa', { body: { entorno: 'test', pausado: false } })],
  ['panel POST /panel/v1/sync/verificar-cadenas', (c, s) => c('panel', 'POST', `/panel/v1/sync/verificar-cadenas?nif=${s.keys.nifEmisor}&entorno=test`)],
  ['panel GET /panel/v1/emuladores/aeat/faults', (c) => c('panel', 'GET', '/panel/v1/emuladores/aeat/faults')],
  ['panel PUT /panel/v1/emuladores/aeat/faults', (c) => c('panel', 'PUT', '/panel/v1/emuladores/aeat/faults', { body: {} })],
  ['panel GET /panel/v1/emuladores/censo/faults', (c) => c('panel', 'GET', '/panel/v1/emuladores/censo/faults')],
  ['panel PUT /panel/v1/emuladores/censo/faults', (c) => c('panel', 'PUT', '/panel/v1/emuladores/censo/faults', { body: {} })],
  ...(['araba', 'bizkaia', 'gipuzkoa'] as const).flatMap((p): [string, Sample][] => [
    [`panel GET /panel/v1/emuladores/tbai/${p}/faults`, (c) => c('panel', 'GET', `/panel/v1/emuladores/tbai/${p}/faults`)],
    [`panel PUT /panel/v1/emuladores/tbai/${p}/faults`, (c) => c('panel', 'PUT', `/panel/v1/emuladores/tbai/${p}/faults`, { body: {} })],
  ]),
  ['panel GET /panel/v1/webhooks', (c) => c('panel', 'GET', '/panel/v1/webhooks')],
  ['panel GET /panel/v1/webhooks/{idWebhook}/entregas', (c, s) => c('panel', 'GET', `/panel/v1/webhooks/${s.idWebhook}/entregas`)],
  [
    'panel GET /panel/v1/cuentas/{idCuenta}/clientes',
    (c, s) => c('panel', 'GET', `/panel/v1/cuentas/${s.idCuenta}/clientes?entorno=test`),
  ],
  ['panel POST /panel/v1/cuentas/{idCuenta}/clientes/{nif}/eliminar', (c, s) => c('panel', 'POST', `/panel/v1/cuentas/${s.idCuenta}/clientes/${AUTONOMO.nif}/eliminar`, { body: { entorno: 'test' } })],
  ['panel POST /panel/v1/cuentas/{idCuenta}/clientes/{nif}/restaurar', (c, s) => c('panel', 'POST', `/panel/v1/cuentas/${s.idCuenta}/clientes/${AUTONOMO.nif}/restaurar`, { body: { entorno: 'test' } })],
  ['panel GET /panel/v1/cuentas/{idCuenta}/clientes/{nif}/fase', (c, s) => c('panel', 'GET', `/panel/v1/cuentas/${s.idCuenta}/clientes/${s.keys.nifEmisor}/fase`)],
  [
    'panel PUT /panel/v1/cuentas/{idCuenta}/clientes/{nif}/fase',
    (c, s) => c('panel', 'PUT', `/panel/v1/cuentas/${s.idCuenta}/clientes/${s.keys.nifEmisor}/fase`, { body: { faseAltaCapacidad: 'no_contratada' } }),
  ],
  ['panel GET /panel/v1/cadena', (c, s) => c('panel', 'GET', `/panel/v1/cadena?entorno=test&nif=${s.keys.nifEmisor}`)],
  ['panel GET /panel/v1/sync/alcance', (c) => c('panel', 'GET', '/panel/v1/sync/alcance?entorno=test&autoridad=aeat')],
  // A shop server's till credential: issued, listed, revoked.
  ['panel POST /panel/v1/cajas', (c) => c('panel', 'POST', '/panel/v1/cajas', { body: { etiqueta: 'Caja barrido', idMaquina: 'SWEEP-CAJA' } })],
  ['panel GET /panel/v1/cajas', (c) => c('panel', 'GET', '/panel/v1/cajas')],
  ['panel DELETE /panel/v1/cajas/{idMaquina}', (c) => c('panel', 'DELETE', '/panel/v1/cajas/SWEEP-CAJA')],
  // «NO VERI*FACTU»: the mode in force asked again (changes nothing), detection, a requirement, the event log.
  [
    'panel PUT /panel/v1/clientes/{nif}/modo-sif',
    (c, s) => c('panel', 'PUT', `/panel/v1/clientes/${s.keys.nifEmisor}/modo-sif`, { body: { entorno: 'test', modoSif: 'verifactu' } }),
  ],
  ['panel POST /panel/v1/sync/anomalias', (c, s) => c('panel', 'POST', '/panel/v1/sync/anomalias', { body: { entorno: 'test', nif: s.keys.nifEmisor } })],
  [
    'panel POST /panel/v1/clientes/{nif}/requerimiento',
    (c, s) =>
      c('panel', 'POST', `/panel/v1/clientes/${s.keys.nifEmisor}/requerimiento`, {
        body: { entorno: 'test', refRequerimiento: 'REQSWEEP1', desde: '2026-01-01T00:00:00+01:00', hasta: '2026-12-31T23:59:59+01:00' },
      }),
  ],
  [
    'panel POST /panel/v1/clientes/{nif}/exportacion',
    (c, s) =>
      c('panel', 'POST', `/panel/v1/clientes/${s.keys.nifEmisor}/exportacion`, {
        body: { entorno: 'test', desde: '2026-01-01T00:00:00+01:00', hasta: '2026-12-31T23:59:59+01:00' },
      }),
  ],
  [
    'panel GET /panel/v1/clientes/{nif}/exportaciones/{fichero}',
    (c, s) => c('panel', 'GET', `/panel/v1/clientes/${s.keys.nifEmisor}/exportaciones/registros-${s.keys.nifEmisor}-test-1.jsonl?entorno=test`),
  ],
  ['manage GET /v1/clientes/{nif}/eventos', (c, s) => c('manage', 'GET', `/v1/clientes/${s.keys.nifEmisor}/eventos`)],
  // Last: a state change of the client, a new API key.
  ['manage PATCH /v1/clientes/{nif}/estado', (c) => c('manage', 'PATCH', `/v1/clientes/${AUTONOMO.nif}/estado`, { body: { estado: 'inactivo' } })],
  ['panel POST /panel/v1/claves', (c) => c('panel', 'POST', '/panel/v1/claves', { body: { entorno: 'test' } })],
];

export interface SweepResult {
  /** Documented routes with no sample here. */
  missing: string[];
  /** Samples naming no documented route (renamed or removed routes). */
  unknown: string[];
  /** `route → status body` of every answer 5xx. */
  serverErrors: string[];
  /** Status of each route's sample. */
  statuses: Record<string, number>;
  /** `tipo` of the record whose XML the sweep read (the newest: the cancellation of SWEEP 2). */
  tipoRegistro: string;
  /** The filing worker's round: the first invoice's estadoFactura when the wait ended. */
  filed: string | null;
  /** The webhook worker's round: events received by the receiver. */
  delivered: string[];
  /** Status of creating a webhook aimed at the engine's own billing API and at its emulators (400 expected). */
  ownPortsRefused: number[];
  /**
   * The webhook worker's check before sending (in the filing thread): the sweep's webhook pointed
   * at the engine's own billing port behind the API's back, then an event — the attempt's error.
   */
  ownPortDelivery: string | null;
}

/**
 * What the sweep of every artefact users run must show: each documented route sampled, none
 * answering 5xx (`output`, the artefact's log lines, shown when one does), the filing and webhook
 * workers' round, no webhook to the engine's own ports (refused at creation and again before
 * sending), the representation calls and a cancellation's signed XML answering 200.
 */
export function expectCleanSweep(result: SweepResult, output: readonly string[]): void {
  expect(result.missing, 'routes without a sample in test/support/route-sweep.ts').toEqual([]);
  expect(result.unknown, 'samples of routes that are not documented').toEqual([]);
  expect(result.serverErrors, output.slice(-40).join('\n')).toEqual([]);
  expect(result.filed).toBe('registrada');
  expect(result.delivered).toContain('factura.registrada');
  // No webhook to the engine's own ports or its emulators' (the ports it really listens on).
  expect(result.ownPortsRefused).toEqual([400, 400]);
  // …and the filing thread's webhook worker checks again before sending: nothing reaches it.
  expect(result.ownPortDelivery).toMatch(/^no enviada, dirección no permitida: .*engine's own port/);
  // The hosted client's representation calls: a document signed here verifies.
  expect(result.statuses['manage POST /v1/clientes/{nif}/representacion/firmar']).toBe(200);
  expect(result.statuses['manage POST /v1/clientes/{nif}/representacion/verificar']).toBe(200);
  // …and for a cancellation's signed XML.
  expect(result.tipoRegistro).toBe('anulacion');
  expect(result.statuses['billing GET /v1/registros/{idRegistro}/xml']).toBe(200);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}

/** Sweeps the engine whose demo-keys.json is in `dataDir` (written by start.ts when it is ready). */
export async function sweepRoutes(dataDir: string): Promise<SweepResult> {
  const keys = JSON.parse(readFileSync(path.join(dataDir, 'demo-keys.json'), 'utf8')) as DemoKeysFile;
  const panel = new URL(keys.panelUrl);
  const token = panel.searchParams.get('token') ?? '';
  const base: Record<AppName, string> = { billing: keys.billingUrl, manage: keys.manageUrl, panel: panel.origin };
  const call: Call = async (app, method, url, options = {}) => {
    const headers: Record<string, string> = app === 'panel' ? { authorization: `Bearer ${token}` } : { 'x-api-key': options.key ?? keys.test };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.accept) headers.accept = options.accept;
    let res = await fetch(`${base[app]}${url}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
    // A well-behaved client: over the key's rate it waits as retry-after says, then resends.
    for (let tries = 0; res.status === 429 && tries < 10; tries++) {
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
      res = await fetch(`${base[app]}${url}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
    }
    const text = await res.text();
    return {
      status: res.status,
      text,
      json: () => {
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch {
          return {};
        }
      },
    };
  };

  const documented: string[] = [];
  for (const app of ['billing', 'manage', 'panel'] as const) {
    const res = await fetch(`${base[app]}/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) if (method !== 'head') documented.push(`${app} ${method.toUpperCase()} ${p}`);
    }
  }
  const sampled = new Set(SAMPLES.map(([route]) => route));
  const missing = documented.filter((route) => !sampled.has(route));
  const unknown = [...sampled].filter((route) => !documented.includes(route));

  const receiver = await startReceiver();
  try {
    const hoy = todayInMadrid();
    const s: SweepState = {
      keys,
      receiver,
      hoy,
      idFactura: '',
      idRegistro: '',
      idFacturaDelRegistro: '',
      tipoRegistro: '',
      idWebhook: '',
      idWebhookExtra: '',
      idCuenta: '',
      idLote: '',
      archivoDeclaracion: '',
      pdf: '',
      pdfFirmado: '',
      certificado: '',
    };
    const serverErrors: string[] = [];
    const check = (route: string, res: Answer) => {
      if (res.status >= 500) serverErrors.push(`${route} → ${res.status} ${res.text.slice(0, 300)}`);
      return res;
    };
    // One round of each worker: a webhook for every event, then an invoice filed with the AEAT
    // emulator (the filing worker) and its factura.registrada delivered (the webhook worker).
    const webhook = check('manage POST /v1/webhooks', await call('manage', 'POST', '/v1/webhooks', { body: { nombre: 'barrido', url: `${receiver.url}/barrido`, secreto: 'secreto-del-barrido-01' } }));
    s.idWebhook = ((webhook.json().webhook ?? {}) as { idWebhook?: string }).idWebhook ?? 'wh_ninguno';
    check('manage POST /v1/webhooks/{idWebhook}/clientes', await call('manage', 'POST', `/v1/webhooks/${s.idWebhook}/clientes`, { body: { clientes: [keys.nifEmisor] } }));
    const factura = check('billing POST /v1/verifactu/crear', await call('billing', 'POST', '/v1/verifactu/crear', { body: facturaVf(keys.nifEmisor, hoy, '1') }));
    s.idFactura = (factura.json().idFactura as string | undefined) ?? 'fac_ninguna';
    const estado = await until(
      () => call('billing', 'GET', `/v1/facturas/${s.idFactura}/estado?nifEmisor=${keys.nifEmisor}`),
      (res) => res.json().estadoFactura === 'registrada',
      30_000,
    );
    const filed = (estado.json().estadoFactura as string | null | undefined) ?? null;
    await until(async () => receiver.byPath('/barrido').length, (n) => n > 0, 15_000);
    const webhooks = await call('panel', 'GET', '/panel/v1/webhooks');
    s.idCuenta = ((webhooks.json().webhooks ?? []) as { idCuenta: string }[])[0]?.idCuenta ?? 'acc_ninguna';

    const statuses: Record<string, number> = {};
    for (const [route, sample] of SAMPLES) {
      if (!documented.includes(route)) continue;
      const res = check(route, await sample(call, s));
      statuses[route] = res.status;
    }
    const ownPortsRefused: number[] = [];
    for (const own of [keys.billingUrl, keys.emulatorUrl ?? keys.manageUrl]) {
      const res = await call('manage', 'POST', '/v1/webhooks', { body: { nombre: 'propio', url: `${own}/v1/verifactu/crear`, secreto: 'secreto-del-barrido-03' } });
      ownPortsRefused.push(res.status);
    }
    const ownPortDelivery = await deliveryToOwnPort(dataDir, call, s, keys);
    return { missing, unknown, serverErrors, statuses, tipoRegistro: s.tipoRegistro, filed, delivered: receiver.byPath('/barrido').map((d) => d.json.evento), ownPortsRefused, ownPortDelivery };
  } finally {
    await receiver.close();
  }
}

/**
 * A webhook stored before the address rule (its URL written into the database, as an older engine
 * could have stored it) aimed at the engine's own billing port: the next delivery must fail
 * unsent. Returns the first attempt's error (null when none was recorded in 15 s).
 */
async function deliveryToOwnPort(dataDir: string, call: Call, s: SweepState, keys: DemoKeysFile): Promise<string | null> {
  const db = new Database(path.join(dataDir, 'engine.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE webhooks SET url = ? WHERE idWebhook = ?').run(`${keys.billingUrl}/v1/cuenta`, s.idWebhook);
    await call('billing', 'POST', '/v1/verifactu/crear', { body: facturaVf(keys.nifEmisor, s.hoy, '3') });
    const attempt = () =>
      db
        .prepare(
          `SELECT a.error FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.deliveryId
           WHERE d.webhookId = ? AND (a.error IS NULL OR a.error LIKE 'no enviada%') ORDER BY a.rowid DESC LIMIT 1`,
        )
        .get(s.idWebhook) as { error: string | null } | undefined;
    const found = await until(async () => attempt(), (row) => row !== undefined && row.error !== null, 15_000);
    return found?.error ?? null;
  } finally {
    db.close();
  }
}
