import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendText } from '../http-util';
import { referenceDir } from '../paths';
import type { EmulatorRouter, TlsOptions } from '../router';
import { createRouter } from '../router';
import { ledgerPath } from '../common/sqlite';
import { Parking } from '../common/transport';
import type { Clock, IdSource } from '../types';
import type { TbaiConfigPatch } from './control';
import { tbaiControlHandler } from './control';
import { TbaiFaults } from './faults';
import type { SubmissionService, TbaiLedgerApi } from './ledger';
import { TbaiLedger } from './ledger';
import { malformedLroe, serveLroe } from './lroe';
import type { ProvinciaConfig } from './process';
import { malformedRest, serveRest } from './rest';
import { runService } from './transport';
import type { TransportEnv } from './transport';
import type { Provincia, ProvinciaRest, TbaiPaths } from './urls';
import { LROE_SERVICE_PATH, PROVINCIAS, TBAI_PATHS, TBAI_PREFIX, restServiceOf } from './urls';
import { TbaiXsdPool, loadTicketBaiSchemas } from './xsd';
import { DEFAULT_POLICIES } from './xmldsig';

export * from './urls';
export { TbaiFaults, TbaiFaultsPatch, TbaiTransportMode, defaultTbaiFaults } from './faults';
export type { TbaiFaultState } from './faults';
export { invoiceKey, TbaiLedger } from './ledger';
export type {
  TbaiLedgerApi,
  TbaiInvoice,
  TbaiPresentation,
  TbaiSubmission,
  TbaiLedgerSummary,
  ChainHead as TbaiChainHead,
  DuplicateReceived,
  InvoiceEstado,
  Verdict as TbaiVerdict,
} from './ledger';
export type { ProvinciaConfig } from './process';
export { crc8, tbaiIdentifier, isValidTbaiIdentifier } from './tbai-id';
export {
  DEFAULT_POLICIES,
  FixedC14n,
  FixedExcC14n,
  NotSignatureXPathTransform,
  useFixedCanonicalization,
  verifyTicketBaiSignature,
} from './xmldsig';
export type { SignaturePolicy, SignatureCheck } from './xmldsig';
export { TbaiXsdPool, loadTicketBaiSchemas } from './xsd';
export type { SchemaSetName, DocResult } from './xsd';
export { ALTA_CODES, ANULACION_CODES, LROE_CODES } from './codes';
export { N3Data } from './lroe';
export { TbaiConfigPatch } from './control';

export interface TicketBaiEmulatorOptions {
  /** Folder for the ledger (`ticketbai-ledger.sqlite`). Ignored when dbPath is given. */
  dataDir?: string;
  /** Ledger file; `:memory:` (the default when neither is given) for a throw-away ledger. */
  dbPath?: string;
  clock?: Clock;
  /** Source of CSVs and LROE identifiers (hashed, so any unique strings do). */
  ids?: IdSource;
  referenceDir?: string;
  /** Mount on a shared server instead of creating one. */
  router?: EmulatorRouter;
  /** TLS for the server this emulator creates (ignored with `router`). */
  tls?: TlsOptions;
  /** Parallel XSD validations. Default 1. */
  xsdPoolSize?: number;
  /** Request size cap. Default 32 MiB (an LROE batch of 1000 signed invoices stays well below). */
  maxBodyBytes?: number;
  /** Per-province overrides of the default checks. */
  config?: Partial<Record<Provincia, Partial<ProvinciaConfig>>>;
}

export interface TicketBaiEmulator {
  readonly router: EmulatorRouter;
  readonly ledger: TbaiLedgerApi;
  readonly faults: Readonly<Record<Provincia, TbaiFaults>>;
  /** Paths of every service on the router (see urls.ts). */
  readonly paths: TbaiPaths;
  /** Absolute URL of a service once listening, e.g. url('gipuzkoa', 'alta'). */
  url(provincia?: Provincia, service?: 'alta' | 'anulacion' | 'zuzendu-alta' | 'zuzendu-baja' | 'lroe'): string;
  config(provincia: Provincia): ProvinciaConfig;
  configure(provincia: Provincia, patch: TbaiConfigPatch): ProvinciaConfig;
  /** Empties the ledger and clears faults of one province (or all). */
  reset(provincia?: Provincia): void;
  ready(): Promise<void>;
  listen(port?: number, host?: string): Promise<number>;
  close(): Promise<void>;
}

export function defaultConfig(p: Provincia): ProvinciaConfig {
  return {
    validateXsd: true,
    verifySignature: true,
    checkChain: true,
    // "lineas required in Araba" (issue 5); Gipuzkoa and Bizkaia accept invoices without DetallesFactura.
    requireLines: p === 'araba',
    newDeviceWarning: p === 'araba',
    newDeviceWarningWithoutNumber: true,
    policies: DEFAULT_POLICIES.map((x) => ({ identifier: x.identifier, digests: x.digests ? [...x.digests] : null })),
  };
}

export function createTicketBaiEmulator(opts: TicketBaiEmulatorOptions = {}): TicketBaiEmulator {
  const clock: Clock = opts.clock ?? (() => new Date());
  const ids: IdSource = opts.ids ?? randomUUID;
  const maxBodyBytes = opts.maxBodyBytes ?? 32 * 1024 * 1024;
  const ledger = new TbaiLedger(ledgerPath(opts, 'ticketbai-ledger.sqlite'));
  const faults: Record<Provincia, TbaiFaults> = {
    araba: new TbaiFaults(/^\d{3}$/),
    gipuzkoa: new TbaiFaults(/^\d{3}$/),
    bizkaia: new TbaiFaults(/^[A-Z0-9]{2}_\d{7}$/),
  };
  const cfg = Object.fromEntries(
    PROVINCIAS.map((p) => [p, { ...defaultConfig(p), ...(opts.config?.[p] ?? {}) }]),
  ) as Record<Provincia, ProvinciaConfig>;
  const xsd = new TbaiXsdPool(loadTicketBaiSchemas(referenceDir(opts.referenceDir)), { poolSize: opts.xsdPoolSize ?? 1 });
  const warm = xsd.warmup();

  const ownsRouter = !opts.router;
  const router = opts.router ?? createRouter(opts.tls ? { tls: opts.tls } : {});
  const parking = new Parking();
  let closed = false;

  const transportEnv = (p: Provincia, service: SubmissionService): TransportEnv => ({
    faults: faults[p],
    maxBodyBytes,
    parking,
    closed: () => closed,
    logInjected(body, mode) {
      ledger.insertSubmission({
        provincia: p,
        service,
        receivedAt: clock().toISOString(),
        nif: null,
        requestSha256: createHash('sha256').update(body).digest('hex'),
        requestBytes: body.length,
        recordCount: 0,
        outcome: 'injected',
        faultCode: mode,
      });
    },
  });

  const restHandler = (p: ProvinciaRest) => async (req: IncomingMessage, res: ServerResponse, full: string): Promise<void> => {
    const service = restServiceOf(p, full.slice(TBAI_PREFIX[p].length));
    if (!service) return sendText(res, 404, 'text/plain', 'Not Found');
    if (req.method !== 'POST') return sendText(res, 405, 'text/plain', 'Method Not Allowed');
    const ct = String(req.headers['content-type'] ?? '');
    if (!/xml/i.test(ct)) return sendText(res, 415, 'text/plain', 'Unsupported Media Type: send application/xml');
    await runService(
      transportEnv(p, service),
      req,
      res,
      (body) => serveRest({ provincia: p, ledger, faults: faults[p], config: cfg[p], xsd, clock, ids, tls: router.tls }, service, req, body),
      malformedRest,
    );
  };

  const lroeHandler = async (req: IncomingMessage, res: ServerResponse, full: string): Promise<void> => {
    if (full.slice(TBAI_PREFIX.bizkaia.length).replace(/\/+$/, '') !== LROE_SERVICE_PATH) {
      return sendText(res, 404, 'text/plain', 'Not Found');
    }
    if (req.method !== 'POST') return sendText(res, 405, 'text/plain', 'Method Not Allowed');
    await runService(
      transportEnv('bizkaia', 'lroe'),
      req,
      res,
      (body) => serveLroe({ ledger, faults: faults.bizkaia, config: cfg.bizkaia, xsd, clock, ids }, req, body),
      malformedLroe,
    );
  };

  const emu: TicketBaiEmulator = {
    router,
    ledger,
    faults,
    paths: TBAI_PATHS,
    url(p, service) {
      const base = router.url();
      if (!p) return base;
      if (p === 'bizkaia') return base + TBAI_PATHS.bizkaia.lroe;
      return base + TBAI_PATHS[p][service === undefined || service === 'lroe' ? 'alta' : service];
    },
    config: (p) => ({ ...cfg[p], policies: cfg[p].policies.map((x) => ({ ...x })) }),
    configure(p, patch) {
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) (cfg[p] as unknown as Record<string, unknown>)[k] = v;
      return emu.config(p);
    },
    reset(p) {
      ledger.reset(p);
      for (const q of p ? [p] : PROVINCIAS) faults[q].reset();
    },
    ready: () => warm,
    listen: (port = 0, host = '127.0.0.1') => router.listen(port, host),
    async close() {
      if (closed) return;
      closed = true;
      parking.release();
      if (ownsRouter) await router.close();
      await xsd.close();
      ledger.close();
    },
  };

  router.mount({ prefix: TBAI_PREFIX.gipuzkoa + '/', owner: 'ticketbai', handle: restHandler('gipuzkoa') });
  router.mount({ prefix: TBAI_PREFIX.araba + '/', owner: 'ticketbai', handle: restHandler('araba') });
  router.mount({ prefix: TBAI_PREFIX.bizkaia + '/', owner: 'ticketbai', handle: lroeHandler });
  router.mount(tbaiControlHandler(emu));
  return emu;
}
