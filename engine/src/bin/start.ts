/**
 * The one way the engine is started, shared by the headless CLI (serve.ts, `npm start`) and the
 * desktop app's utility process (utility.ts), so both run the same thing: the authority emulators
 * (unless POS_EMULATORS=off), the engine on the POS_* environment pointed at them, the demo account
 * on an empty data dir, demo-keys.json, and a banner with the URLs and keys.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CENSUS_SOAP_PATH, startEmulators, type RunningEmulators } from '../../emulators/index';
import { DEMO_TICKETBAI_ISSUERS } from '../demo/account';
import { idMaquina } from '../../../src-shared/primitives';
import { configFromEnv } from '../config';
import { DEMO_TILL_LABEL } from '../demo/devices';
import { seedDemoInstallation } from '../demo/installation';
import { loadHeadlessTillIdentity } from '../devices/till-identity';
import { readDemoKeys } from '../http/panel-api';
import { resolvePanelToken } from '../http/panel-auth';
import { createEngine, type Engine, type EngineUrls } from '../index';
import { writeFileDurably } from '../platform/durable-file';
import { fileLogger, type Logger } from '../platform/logger';

export interface DemoKeysFile {
  test: string;
  live: string;
  nifEmisor: string;
  /** This till's device identity (the desktop shell's, or the headless till's in the data dir). */
  idMaquina: string;
  billingUrl: string;
  manageUrl: string;
  panelUrl: string;
  emulatorUrl?: string;
  /** SHA-256 of the engine's TLS certificate (beyond loopback), pinned by each till. */
  fingerprint256?: string;
}

export interface StartOptions {
  /**
   * POS_* variables (README, "Configuration"), plus POS_PANEL_TOKEN, POS_ASSETS_DIR, POS_EMULATOR_URL,
   * and POS_TILL_ID / POS_TILL_LABEL (the desktop shell's till identity and computer name).
   */
  env: NodeJS.ProcessEnv;
  /** The built till UI when POS_UI_DIR is unset (none: the panel serves the API only). */
  defaultUiDir?: string;
  /** Echo the engine log on the console (the headless CLI). */
  consoleLog?: boolean;
}

export interface StartedEngine {
  engine: Engine;
  emulators: RunningEmulators | undefined;
  urls: EngineUrls;
  /** The panel / till UI URL carrying the per-launch token. */
  panelUrl: string;
  keys: DemoKeysFile;
  keysPath: string;
  /** What the headless start prints: URLs, keys, the keys file; ends with the READY line. */
  banner: string;
  logger: Logger;
  /** Stops the engine (in-flight requests, workers, database), then the emulators. */
  stop(): Promise<void>;
}

/** HTTPS beyond loopback: the fingerprint every till pins, the local CA, the names it answers to. */
function tlsBanner(engine: Engine, allowedHosts: readonly string[]): string[] {
  const tls = engine.context.serverTls;
  if (!tls) return [];
  return [
    `  TLS             certificate SHA-256 ${tls.fingerprint256}`,
    '                  (each till pins it: its engine.json from POST /panel/v1/cajas carries it)',
    ...(tls.caFile ? [`  TLS CA          ${tls.caFile} (the engine's own local CA)`] : []),
    ...(allowedHosts.length > 0 ? [`  LAN names       ${allowedHosts.join(', ')} (same ports)`] : []),
  ];
}

const NOT_SEEDED_HERE = '(not known here: see the demo-keys.json of the node that seeded the database)';

export const AEAT_EMULATOR_PATH = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP';

export async function startEngine(options: StartOptions): Promise<StartedEngine> {
  const { env } = options;
  const config = configFromEnv(env);
  // At least 128 bits: a configured token is refused when weaker (before anything starts), a
  // generated one is kept in the data dir (0600).
  const panelToken = resolvePanelToken(env.POS_PANEL_TOKEN, path.resolve(config.dataDir), () => randomBytes(32).toString('base64url'));
  const logger = fileLogger(path.resolve(config.dataDir), options.consoleLog ?? false);
  // The authorities are played by the shipped emulators unless real endpoints are configured.
  // Their /__control/ changes need a per-launch token, which only this engine (its panel relay) holds.
  const emulatorControlToken = randomBytes(32).toString('base64url');
  const emulators =
    env.POS_EMULATORS === 'off' ? undefined : await startEmulators({ dataDir: path.join(path.resolve(config.dataDir), 'emulators'), controlToken: emulatorControlToken });
  const aeatUrl = emulators ? `${emulators.url}${AEAT_EMULATOR_PATH}` : undefined;
  // Emulators run elsewhere (POS_EMULATORS=off, POS_EMULATOR_URL): the panel still relays their fault controls.
  const emulatorUrl = emulators?.url ?? (env.POS_EMULATOR_URL || undefined);
  const uiDir = env.POS_UI_DIR ?? options.defaultUiDir;
  let engine: Engine;
  try {
    engine = await createEngine({
      ...config,
      logger,
      ...(uiDir ? { uiDir } : {}),
      // The desktop host keeps one token across engine restarts, so its window stays authorised.
      panelToken,
      ...(env.POS_ASSETS_DIR ? { assetsDir: env.POS_ASSETS_DIR } : {}),
      ...(emulatorUrl ? { emulatorUrl } : {}),
      ...(emulators ? { emulatorControlToken } : {}),
      // AEAT and TicketBAI LIVE default to the emulators: with emulators on, LIVE is theirs — and
      // every LIVE answer, the banner and the panel say so — unless every LIVE endpoint (the AEAT's
      // and each treasury's) is configured.
      liveToEmulator: emulatorUrl !== undefined && !liveEndpointsConfigured(env),
      // The census NIF check: the started emulator unless POS_CENSUS_URL points elsewhere.
      census: { ...config.census, ...(emulators && !env.POS_CENSUS_URL ? { url: `${emulators.url}${CENSUS_SOAP_PATH}` } : {}) },
      submission: {
        ...config.submission,
        aeat: {
          ...config.submission?.aeat,
          url: {
            test: env.POS_AEAT_URL_TEST ?? aeatUrl ?? config.submission?.aeat?.url?.test ?? '',
            live: env.POS_AEAT_URL_LIVE ?? aeatUrl ?? config.submission?.aeat?.url?.live ?? '',
          },
        },
      },
    });
  } catch (error) {
    await emulators?.close();
    throw error;
  }
  try {
    const ctx = engine.context;
    const till = idMaquina.safeParse(env.POS_TILL_ID).success && env.POS_TILL_ID
      ? { idMaquina: env.POS_TILL_ID, etiqueta: env.POS_TILL_LABEL ?? DEMO_TILL_LABEL }
      : { idMaquina: loadHeadlessTillIdentity(ctx.config.dataDir, ctx.config).idMaquina, etiqueta: env.POS_TILL_LABEL ?? DEMO_TILL_LABEL };
    const keysPath = path.join(ctx.config.dataDir, 'demo-keys.json');
    // The keys and the panel token: readable by the till's user only, written whole or not at all.
    const writeKeys = (keys: Partial<DemoKeysFile>) => writeFileDurably(keysPath, `${JSON.stringify(keys, null, 2)}\n`, 0o600);
    // The raw keys are on disk before the seeding that stores their hashes commits (a start stopped
    // right after it would otherwise leave a demo account whose keys nobody can ever show).
    const seeded = await seedDemoInstallation(ctx, { till, keepKeys: (demo) => writeKeys({ ...demo, idMaquina: till.idMaquina }) });
    const urls = await engine.start();
    const known = seeded ?? (await readDemoKeys(ctx.config.dataDir));
    const panelUrl = `${urls.panel}/?token=${engine.panelToken}`;
    const keys: DemoKeysFile = {
      test: known?.test ?? '',
      live: known?.live ?? '',
      nifEmisor: known?.nifEmisor ?? '',
      idMaquina: till.idMaquina,
      billingUrl: urls.billing,
      manageUrl: urls.manage,
      panelUrl,
      ...(emulatorUrl ? { emulatorUrl } : {}),
      ...(engine.context.serverTls ? { fingerprint256: engine.context.serverTls.fingerprint256 } : {}),
    };
    writeKeys(keys);
    const banner = [
      'Till compliance engine ready',
      ...(emulatorUrl
        ? [
            '  !!!!!!!!!!!!!!  LIVE GOES TO THE EMULATORS, NOT TO THE AEAT OR THE TREASURIES: NOTHING IS REALLY FILED  !!!!!!!!!!!!!!',
            '  (a shop server: POS_EMULATORS=off and the real endpoints, README "A shop with several tills")',
          ]
        : []),
      `  billing API     ${urls.billing}`,
      `  management API  ${urls.manage}`,
      ...(config.databaseUrl ? [`  database        ${postgresShown(config.databaseUrl)} (POS_DATABASE_URL)`] : []),
      `  till UI         open ${panelUrl} in a browser (Chromium, Firefox, Edge) on this computer`,
      ...tlsBanner(engine, config.allowedHosts ?? []),
      ...(emulators ? [`  emulators       ${emulators.url} (AEAT VeriFactu, TicketBAI, census; control at /__control/)`] : []),
      // Keys are stored hashed: a node that did not seed the database (another node on the same
      // PostgreSQL did) cannot show them.
      `  TEST key        ${keys.test || NOT_SEEDED_HERE}`,
      `  LIVE key        ${keys.live || NOT_SEEDED_HERE}`,
      `  demo issuer     ${keys.nifEmisor} (VeriFactu)`,
      ...DEMO_TICKETBAI_ISSUERS.map((i) => `  demo issuer     ${i.nif} (TicketBAI ${i.provincia}, TEST)`),
      `  this till       ${till.idMaquina} (${till.etiqueta})`,
      `  keys file       ${keysPath}`,
      'READY',
      '',
    ].join('\n');
    let stopped: Promise<void> | undefined;
    const stop = () => {
      stopped ??= (async () => {
        await engine.stop();
        await emulators?.close();
      })();
      return stopped;
    };
    return { engine, emulators, urls, panelUrl, keys, keysPath, banner, logger, stop };
  } catch (error) {
    await engine.stop().catch(() => {});
    await emulators?.close();
    throw error;
  }
}

/** Which PostgreSQL database a node runs on, for the banner: never its password. */
export function postgresShown(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `PostgreSQL ${url.username ? `${decodeURIComponent(url.username)}@` : ''}${url.host}${url.pathname}`;
  } catch {
    // libpq's key=value form: it may hold a password, and says nothing the operator did not write.
    return 'PostgreSQL';
  }
}

/** POS_AEAT_URL_LIVE and every treasury's POS_TBAI_URL_<PROVINCIA>_LIVE: LIVE goes to no emulator. */
export function liveEndpointsConfigured(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.POS_AEAT_URL_LIVE) && ['ARABA', 'BIZKAIA', 'GIPUZKOA'].every((p) => Boolean(env[`POS_TBAI_URL_${p}_LIVE`]));
}
