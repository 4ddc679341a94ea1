import type { FastifyInstance } from 'fastify';
import { resolveConfig, type EngineConfig, type ResolvedConfig } from './config';
import { buildContext, filingThreadData, type EngineContext } from './context';
import { SqliteDatabase, type Database } from './db/database';
import { PostgresDatabase } from './db/postgres';
import { FilingThread } from './filing/filing-thread';
import { buildBillingApi } from './http/billing-api';
import { buildManageApi } from './http/manage-api';
import { buildPanelApi } from './http/panel-api';
import { isLoopbackBind } from './http/panel-auth';
import { certificateNames, loadServerTls } from './core/tls';
import { fileLogger } from './platform/logger';
import { portsOf } from './webhooks/address-policy';
import { PollLoop } from './platform/poll-loop';
import { aplicarRestauracionPendiente } from './no-verifactu/copias.sqlite';

export type { EngineConfig } from './config';
/** First start of an empty data dir (headless start, desktop engine process): the demo account. */
export { seedDemoAccount, type DemoKeys } from './demo/account';
/** The POS_* environment of the headless start, also read by the desktop's engine process. */
export { configFromEnv } from './config';

export interface Engine {
  /** Listens on the configured ports (0 picks free ones) and starts the workers. */
  start(): Promise<EngineUrls>;
  /** Finishes in-flight requests, stops workers, flushes counters and closes the database. */
  stop(): Promise<void>;
  readonly urls: EngineUrls;
  readonly panelToken: string;
  /** Not listening until start(): tests use `inject()` on these. */
  readonly apps: { billing: FastifyInstance; manage: FastifyInstance; panel: FastifyInstance };
  readonly context: EngineContext;
}

/**
 * The host name of the printed URLs: the listen address, or — for a wildcard (`0.0.0.0`), which
 * no client can reach — the first LAN name (POS_ALLOWED_HOSTS), else loopback.
 */
export function urlHostOf(config: { host: string; allowedHosts: readonly string[] }): string {
  const bracket = (h: string) => (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h);
  const wildcard = ['0.0.0.0', '::', '[::]'].includes(config.host);
  if (!wildcard) return bracket(config.host);
  return bracket(config.allowedHosts[0] ?? '127.0.0.1');
}

export interface EngineUrls {
  billing: string;
  manage: string;
  panel: string;
}

/**
 * The engine's one public entry. No side effects on import; `createEngine` opens and migrates the
 * database and builds the three APIs without listening.
 */
export async function createEngine(input: EngineConfig): Promise<Engine> {
  const config = resolveConfig(input);
  // A copy staged by `npm run admin -- copia restaurar` goes in before the database is opened.
  const restaurada = aplicarRestauracionPendiente(config.dataDir, config.clock.now());
  const logger = input.logger ?? fileLogger(config.dataDir);
  const db: Database = config.databaseUrl ? new PostgresDatabase(config.databaseUrl) : SqliteDatabase.open(config.dataDir);
  // The filing thread loads its code while the database is migrated and the APIs are built.
  const filingThread = config.filingThread ? new FilingThread(filingThreadData(config, db.file), logger) : undefined;
  filingThread?.prepare();
  try {
    await db.migrate();
  } catch (error) {
    await filingThread?.stop();
    throw error;
  }
  const ctx = buildContext(config, db, logger, { ...(filingThread ? { filingThread } : {}) });
  // «NO VERI*FACTU»: event 07 in every installation's log after a restore, before any sale.
  if (restaurada) logger.warn('backup restored', { anterior: restaurada.anterior });
  ctx.noVerifactu.restauraciones.anotarPendiente();
  const panelToken = input.panelToken ?? config.ids.secret(32);
  // Beyond loopback the three ports answer HTTPS only (a certificate configured, or made once).
  if (!isLoopbackBind(config.host) || config.serverTls.mode === 'on' || config.serverTls.certFile !== undefined) {
    ctx.serverTls = loadServerTls({
      dataDir: config.dataDir,
      names: certificateNames(config.host, config.allowedHosts),
      certFile: config.serverTls.certFile,
      keyFile: config.serverTls.keyFile,
      now: config.clock.now(),
    });
  }
  const scheme = ctx.serverTls ? 'https' : 'http';
  const urlHost = urlHostOf(config);
  const billing = await buildBillingApi(ctx);
  const manage = await buildManageApi(ctx);
  // The panel relays the till UI's calls to these two in-process (http/panel-relay.ts).
  const apps = { billing, manage, panel: await buildPanelApi(ctx, panelToken, { relay: { billing, manage } }) };
  let started = false;
  // «NO VERI*FACTU» (issue 32): anomaly detection after a start, the summary event every six hours.
  const noVerifactu = new PollLoop('no-verifactu', async () => ctx.noVerifactu.resumenes.pasada(), () => 60_000, logger);

  const listen = async (app: FastifyInstance, port: number): Promise<string> => {
    await app.listen({ host: config.host, port });
    const address = app.server.address();
    const real = typeof address === 'object' && address ? address.port : port;
    return `${scheme}://${urlHost}:${real}`;
  };

  return {
    apps,
    context: ctx,
    panelToken,
    get urls() {
      return ctx.urls;
    },
    async start() {
      ctx.urls.billing = await listen(apps.billing, config.billingPort);
      ctx.urls.manage = await listen(apps.manage, config.managePort);
      ctx.urls.panel = await listen(apps.panel, config.panelPort);
      ctx.usage.startFlushing(config.usageFlushMs);
      db.startBackgroundCheckpoints();
      ctx.pureWork.warm();
      const guarded = webhookGuardedPorts(config, ctx.urls);
      ctx.webhooks.addresses.guardPorts(guarded);
      await ctx.filing.start(guarded);
      noVerifactu.start();
      started = true;
      logger.info('engine started', { ...ctx.urls });
      return { ...ctx.urls };
    },
    async stop() {
      await Promise.all([apps.billing.close(), apps.manage.close(), apps.panel.close()]);
      await ctx.filing.stop();
      await noVerifactu.stop();
      ctx.usage.stop();
      await ctx.pureWork.close();
      await db.close();
      if (started) logger.info('engine stopped');
    },
  };
}

/**
 * Ports no webhook may be delivered to on this machine: the engine's three APIs and its emulators
 * (the emulator URL, and authority URLs served from loopback, as `npm start` points them).
 */
function webhookGuardedPorts(config: ResolvedConfig, urls: EngineUrls): number[] {
  const authorities = [config.submission.aeat.url.test, config.submission.aeat.url.live, config.census.url].filter((u) => {
    try {
      const host = new URL(u).hostname;
      return host === 'localhost' || host.startsWith('127.') || host === '[::1]';
    } catch {
      return false;
    }
  });
  return portsOf([urls.billing, urls.manage, urls.panel, config.emulatorUrl, ...authorities]);
}
