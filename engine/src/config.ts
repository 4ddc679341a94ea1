import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { LimitsConfig } from './account/plans';
import { DEFAULT_CENSUS_CONFIG, type CensusConfig } from './census/config';
import { DEFAULT_SOFTWARE, type SoftwareIdentity } from './compliance/config';
import { DEFAULT_AEAT_EMULATOR_URL, type SubmissionConfig } from './submission/config';
import type { TbaiCertificateConfig, TbaiEndpoints } from './regimes/ticketbai/config';
import { POLITICAS_FIRMA, type PoliticaFirma } from './regimes/ticketbai/politicas';
import type { Entorno } from '../../src-shared/api/common';
import type { Provincia } from '../../src-shared/api/ticketbai';
import { DEFAULT_WEBHOOK_DELIVERY, type WebhookDeliveryConfig } from './webhooks/config';
import type { WebhookResolver } from './webhooks/address-policy';
import { systemClock, type Clock } from './platform/clock';
import { timeOrderedIds, type IdGenerator } from './platform/ids';
import type { Logger } from './platform/logger';
import type { TlsClientConfig } from './core/transport';

export { DEFAULT_SOFTWARE, type SoftwareIdentity } from './compliance/config';

export interface EngineConfig {
  dataDir: string;
  /**
   * A PostgreSQL connection string (POS_DATABASE_URL): the engine keeps its tables there instead
   * of the data dir's SQLite file, and several engine processes can share them (README, "Beyond
   * one machine"). The data dir still holds what is per node: logs, the TLS certificate, keys.
   */
  databaseUrl?: string;
  host?: string;
  /**
   * LAN names the APIs also answer to (POS_ALLOWED_HOSTS), each only with the API's own port:
   * other tills reach a shared engine as `caja-principal.local:8780` or `192.168.1.10:8780`.
   */
  allowedHosts?: string[];
  billingPort?: number;
  managePort?: number;
  panelPort?: number;
  /**
   * TLS on the three ports (core/tls.ts): `auto` (default) when POS_HOST is beyond loopback, `on`
   * always (POS_TLS=on); a configured certificate and key (POS_TLS_CERT, POS_TLS_KEY) or one the
   * engine makes from its own local CA in the data dir.
   */
  serverTls?: { mode?: 'auto' | 'on'; certFile?: string; keyFile?: string };
  /** Static files of the built till UI, served beside the panel API when present. */
  uiDir?: string;
  assetsDir?: string;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  limits?: LimitsConfig;
  software?: Partial<SoftwareIdentity>;
  /** Per-launch panel token; random unless a test fixes it. */
  panelToken?: string;
  /** How often the quota counters are written to disk. */
  usageFlushMs?: number;
  /** Filing with the authorities; AEAT endpoints default to the shipped emulator. */
  submission?: Partial<Omit<SubmissionConfig, 'aeat'>> & { aeat?: Partial<SubmissionConfig['aeat']> };
  /** Start the submission worker with the engine (tests drive it by hand when false). */
  submitAutomatically?: boolean;
  /** Webhook deliveries: time-out, retry waits, polling (tests shorten them). */
  webhooks?: Partial<WebhookDeliveryConfig>;
  /** Base URL of the shipped emulators, when they play the authorities (fault controls in the panel). */
  /** TicketBAI reception services per province and environment, and the LIVE signing certificate. */
  ticketbai?: {
    /** `base` may name only some provinces and environments: the rest stay the emulator's. */
    endpoints?: Partial<Omit<TbaiEndpoints, 'base'>> & { base?: Partial<Record<Provincia, Partial<Record<Entorno, string>>>> };
    certificate?: TbaiCertificateConfig;
    /** XAdES-EPES signature policy per treasury (identifier and digest); defaults to POLITICAS_FIRMA. */
    politicasFirma?: Partial<Record<Provincia, PoliticaFirma>>;
  };
  emulatorUrl?: string;
  /**
   * LIVE is filed to the shipped emulators (npm start with emulators on and no real LIVE endpoints):
   * every LIVE issuing answer says so in `avisos`, and so do the banner and the panel.
   */
  liveToEmulator?: boolean;
  /** The emulators' per-launch control token (their /__control/ changes need it; the panel relays faults with it). */
  emulatorControlToken?: string;
  /** The census NIF check service (default: the shipped emulator), its time-out and verdict cache. */
  census?: Partial<CensusConfig>;
  /** The IAE catalogue CSV for `epigrafeIAE` (default assets/iae/epigrafes-lroe.csv). */
  iaeCatalogue?: string;
  /** CAs trusted for representation signatures: PEM text, or paths of PEM/DER files or folders. None by default. */
  representacionCas?: string[];
  /**
   * Worker threads for QR images and TicketBAI signatures; default: cores − 1, at least 1. 0: none,
   * that work runs on the main thread (a machine whose other cores the POS itself keeps busy).
   */
  workerThreads?: number;
  /**
   * The submission and webhook workers on a thread of their own with its own database connection
   * (filing/filing-thread.ts). Default: on, unless `workerThreads` is 0 (no threads at all) or a
   * clock, ids or a back-off random source are injected (tests driving the workers by hand); it
   * cannot be turned on with those, which the thread cannot share.
   */
  filingThread?: boolean;
  /** How webhook host names resolve (default node:dns); injected by tests, which keeps filing in process. */
  webhookResolver?: WebhookResolver;
}

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface ResolvedConfig {
  dataDir: string;
  databaseUrl: string | undefined;
  host: string;
  allowedHosts: string[];
  billingPort: number;
  managePort: number;
  panelPort: number;
  serverTls: { mode: 'auto' | 'on'; certFile?: string | undefined; keyFile?: string | undefined };
  uiDir: string | undefined;
  assetsDir: string;
  clock: Clock;
  ids: IdGenerator;
  limits: LimitsConfig;
  software: SoftwareIdentity;
  usageFlushMs: number;
  submission: SubmissionConfig;
  submitAutomatically: boolean;
  webhooks: WebhookDeliveryConfig;
  emulatorUrl: string | undefined;
  liveToEmulator: boolean;
  emulatorControlToken: string | undefined;
  census: CensusConfig;
  iaeCatalogue: string;
  representacionCas: string[];
  /** undefined: the machine's cores − 1; 0: no worker threads. */
  workerThreads: number | undefined;
  /** The filing workers on their own thread (EngineConfig.filingThread). */
  filingThread: boolean;
  webhookResolver: WebhookResolver | undefined;
  ticketbai: { endpoints: TbaiEndpoints; certificate: TbaiCertificateConfig; politicasFirma: Record<Provincia, PoliticaFirma> };
}

/** The shipped emulators' TicketBAI services, below one base URL. */
export function tbaiEmulatorBases(emulatorUrl: string): TbaiEndpoints['base'] {
  const at = (p: string) => ({ test: `${emulatorUrl}/tbai/${p}`, live: `${emulatorUrl}/tbai/${p}` });
  return { araba: at('araba'), bizkaia: at('bizkaia'), gipuzkoa: at('gipuzkoa') };
}

/** Each province's and environment's configured base URL, else the emulator's. */
function tbaiBases(emulator: TbaiEndpoints['base'], configured: Partial<Record<Provincia, Partial<Record<Entorno, string>>>> | undefined): TbaiEndpoints['base'] {
  const of = (p: Provincia) => ({ test: configured?.[p]?.test ?? emulator[p].test, live: configured?.[p]?.live ?? emulator[p].live });
  return { araba: of('araba'), bizkaia: of('bizkaia'), gipuzkoa: of('gipuzkoa') };
}

export function resolveConfig(config: EngineConfig): ResolvedConfig {
  return {
    dataDir: path.resolve(config.dataDir),
    databaseUrl: config.databaseUrl,
    host: config.host ?? '127.0.0.1',
    allowedHosts: (config.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter((h) => h !== ''),
    billingPort: config.billingPort ?? 8780,
    managePort: config.managePort ?? 8781,
    panelPort: config.panelPort ?? 8782,
    serverTls: { mode: config.serverTls?.mode ?? 'auto', certFile: config.serverTls?.certFile, keyFile: config.serverTls?.keyFile },
    uiDir: config.uiDir,
    assetsDir: config.assetsDir ?? path.join(REPO_ROOT, 'assets'),
    clock: config.clock ?? systemClock,
    ids: config.ids ?? timeOrderedIds(config.clock ?? systemClock),
    limits: config.limits ?? {},
    software: { ...DEFAULT_SOFTWARE, ...config.software },
    usageFlushMs: config.usageFlushMs ?? 1000,
    submission: {
      backoffBaseMs: 1000,
      backoffMaxMs: 5 * 60_000,
      incidenciaAfterSeconds: 240,
      pollMs: 250,
      parallelQueues: 4,
      ...config.submission,
      aeat: {
        url: { test: DEFAULT_AEAT_EMULATOR_URL, live: DEFAULT_AEAT_EMULATOR_URL },
        timeoutMs: 30_000,
        ...config.submission?.aeat,
      },
    },
    submitAutomatically: config.submitAutomatically ?? true,
    webhooks: { ...DEFAULT_WEBHOOK_DELIVERY, ...config.webhooks },
    emulatorUrl: config.emulatorUrl,
    liveToEmulator: config.liveToEmulator ?? false,
    emulatorControlToken: config.emulatorControlToken,
    ticketbai: {
      endpoints: {
        timeoutMs: 30_000,
        ...config.ticketbai?.endpoints,
        base: tbaiBases(tbaiEmulatorBases(config.emulatorUrl ?? 'http://127.0.0.1:8790'), config.ticketbai?.endpoints?.base),
      },
      certificate: config.ticketbai?.certificate ?? {},
      politicasFirma: { ...POLITICAS_FIRMA, ...config.ticketbai?.politicasFirma },
    },
    census: { ...DEFAULT_CENSUS_CONFIG, ...config.census },
    iaeCatalogue: config.iaeCatalogue ?? path.join(config.assetsDir ?? path.join(REPO_ROOT, 'assets'), 'iae', 'epigrafes-lroe.csv'),
    representacionCas: config.representacionCas ?? [],
    workerThreads: config.workerThreads,
    filingThread: filingThreadOf(config),
    webhookResolver: config.webhookResolver,
  };
}

/** EngineConfig.filingThread, resolved: the thread runs on the system clock and ids, never on injected ones. */
function filingThreadOf(config: EngineConfig): boolean {
  const injected =
    (config.clock !== undefined && config.clock !== systemClock) ||
    config.ids !== undefined ||
    config.submission?.random !== undefined ||
    config.webhookResolver !== undefined;
  if (config.filingThread === true && injected) throw new Error('filingThread needs the system clock, ids and resolver (no clock, ids, submission.random or webhookResolver injected)');
  // libpq's binding loads on one thread of a process only: on PostgreSQL the filing workers run
  // on the engine's thread (each node's share of the filing is small: queues are spread over nodes).
  if (config.databaseUrl !== undefined) {
    if (config.filingThread === true) throw new Error('filingThread is not available on PostgreSQL (databaseUrl)');
    return false;
  }
  return config.filingThread ?? (config.workerThreads !== 0 && !injected);
}

/** Reads the POS_* environment variables of the headless start. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const port = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number`);
    return n;
  };
  if (env.POS_TLS !== undefined && env.POS_TLS !== '' && env.POS_TLS !== 'on' && env.POS_TLS !== 'auto') {
    throw new Error(`POS_TLS must be "on" or "auto" (got "${env.POS_TLS}"): TLS cannot be turned off for an engine beyond loopback`);
  }
  const emulatorPort = port('POS_EMULATOR_PORT', 8790);
  const emulatorAeat = `http://127.0.0.1:${emulatorPort}/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP`;
  const tls = clientTlsFromEnv(env, 'POS_AEAT');
  const tbai = tbaiFromEnv(env);
  return {
    ...(tbai ? { ticketbai: { endpoints: tbai } } : {}),
    submission: {
      aeat: {
        url: { test: env.POS_AEAT_URL_TEST ?? emulatorAeat, live: env.POS_AEAT_URL_LIVE ?? emulatorAeat },
        ...(tls ? { tls } : {}),
      },
    },
    dataDir: env.POS_DATA_DIR ?? './data',
    ...(env.POS_DATABASE_URL ? { databaseUrl: env.POS_DATABASE_URL } : {}),
    host: env.POS_HOST ?? '127.0.0.1',
    allowedHosts: (env.POS_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter((h) => h !== ''),
    billingPort: port('POS_BILLING_PORT', 8780),
    managePort: port('POS_MANAGE_PORT', 8781),
    panelPort: port('POS_PANEL_PORT', 8782),
    serverTls: {
      mode: env.POS_TLS === 'on' ? 'on' : 'auto',
      ...(env.POS_TLS_CERT ? { certFile: env.POS_TLS_CERT } : {}),
      ...(env.POS_TLS_KEY ? { keyFile: env.POS_TLS_KEY } : {}),
    },
    census: { url: env.POS_CENSUS_URL ?? `http://127.0.0.1:${emulatorPort}/wlpl/BURT-JDIT/ws/VNifV2SOAP` },
    // Paths separated like PATH (':' here, ';' on Windows).
    representacionCas: (env.POS_REPRESENTACION_CAS ?? '').split(path.delimiter).filter((p) => p.trim() !== ''),
    ...workerThreadsFromEnv(env.POS_WORKER_THREADS),
  };
}

/** POS_WORKER_THREADS: a whole number of threads, 0 for none; unset: the machine's cores − 1. */
function workerThreadsFromEnv(raw: string | undefined): { workerThreads?: number } {
  if (raw === undefined || raw.trim() === '') return {};
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 256) throw new Error('POS_WORKER_THREADS must be a whole number from 0 to 256');
  return { workerThreads: n };
}

const PROVINCIAS: readonly Provincia[] = ['araba', 'bizkaia', 'gipuzkoa'];

/**
 * The treasuries' reception services (`POS_TBAI_URL_<PROVINCIA>_<TEST|LIVE>`, each the base URL the
 * engine appends its service paths to) and the certificate presented to them over mutual TLS
 * (`POS_TBAI_P12`…); undefined when none is set (every one stays the emulator's).
 */
function tbaiFromEnv(env: NodeJS.ProcessEnv): NonNullable<NonNullable<EngineConfig['ticketbai']>['endpoints']> | undefined {
  const base: Partial<Record<Provincia, Partial<Record<Entorno, string>>>> = {};
  for (const provincia of PROVINCIAS) {
    for (const entorno of ['test', 'live'] as const) {
      const name = `POS_TBAI_URL_${provincia.toUpperCase()}_${entorno.toUpperCase()}`;
      const raw = env[name];
      if (raw === undefined || raw === '') continue;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new Error(`${name} must be an http(s) URL (got "${raw}")`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${name} must be an http(s) URL (got "${raw}")`);
      base[provincia] = { ...base[provincia], [entorno]: raw.replace(/\/+$/, '') };
    }
  }
  const tls = clientTlsFromEnv(env, 'POS_TBAI');
  if (Object.keys(base).length === 0 && !tls) return undefined;
  return { ...(Object.keys(base).length > 0 ? { base } : {}), ...(tls ? { tls } : {}) };
}

/**
 * Mutual TLS towards an authority: `<prefix>_P12` (PKCS#12 with the seal or representative
 * certificate), `<prefix>_P12_PASSWORD`, `<prefix>_CA` (a PEM bundle trusted besides the system CAs):
 * POS_AEAT_* for the AEAT, POS_TBAI_* for the treasuries. Files are read at start so a wrong path
 * stops the engine there, naming the variable, not at the first filing.
 */
function clientTlsFromEnv(env: NodeJS.ProcessEnv, prefix: 'POS_AEAT' | 'POS_TBAI'): TlsClientConfig | undefined {
  const read = (name: string): Buffer | undefined => {
    const file = env[name];
    if (file === undefined || file === '') return undefined;
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`${name}: cannot read ${file} (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  const pfx = read(`${prefix}_P12`);
  const ca = read(`${prefix}_CA`);
  const password = env[`${prefix}_P12_PASSWORD`];
  if (!pfx) {
    // The authorities refuse every request without a client certificate: a CA alone is a configuration mistake.
    if (ca || password) throw new Error(`${prefix}_CA and ${prefix}_P12_PASSWORD need ${prefix}_P12`);
    return undefined;
  }
  // Node's `ca` replaces its bundled roots: keep them, so the CA adds trust instead of narrowing it.
  const trusted = ca ? Buffer.concat([Buffer.from(`${rootCertificates.join('\n')}\n`), ca]) : undefined;
  const tls: TlsClientConfig = { pfx, ...(password ? { passphrase: password } : {}), ...(trusted ? { ca: trusted } : {}) };
  try {
    // A wrong password or a broken file fails here, not as endless transport retries.
    createSecureContext(tls);
  } catch (error) {
    throw new Error(`${prefix}_P12: cannot use the PKCS#12 (${error instanceof Error ? error.message : String(error)})`);
  }
  return tls;
}
