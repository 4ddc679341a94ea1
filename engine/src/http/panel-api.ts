import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import type { EngineContext } from '../context';
import { notFound } from '../core/errors';
import { hostNamesOf } from './keyed-api';
import { panelRelayRoutes, type RelayTargets } from './panel-relay';
import { buildApiServer } from './server';
import { isLoopbackBind, panelGate, type ThrottleOptions, type TillTokenLookup } from './panel-auth';
import { TILL_UI_CSP } from '../../../src-shared/csp';
import { syncPanelRoutes } from '../submission/panel-routes';
import { SyncViewStore } from '../submission/sync-view-store';
import { reachabilityRoute } from '../submission/reachability';
import { accountPanelRoutes } from '../account/panel-routes';
import { clientPanelRoutes } from '../clients/panel-routes';
import { devicePanelRoutes } from '../devices/panel-routes';
import { noVerifactuPanelRoutes } from '../no-verifactu/panel-routes';
import { chainPanelRoute } from '../devices/chain-panel-route';
import { tillCredentialPanelRoutes } from '../devices/till-credential-panel-routes';
import { webhookPanelRoutes } from '../webhooks/panel-routes';
import { verificationPanelRoutes } from '../verification/panel-routes';

export const arranqueSchema = z.object({
  billingUrl: z.string(),
  manageUrl: z.string(),
  panelUrl: z.string(),
  entornos: z.array(z.string()),
  /** The ending of each of the till's keys (`…abcd`): the keys themselves never leave the engine. */
  clavesFinal: z.object({ test: z.string().optional(), live: z.string().optional() }),
  /** Who holds the token: the server's administrator, or a till with its own credential. */
  rol: z.enum(['administrador', 'caja']),
  /** LIVE is filed to the emulators, not to the AEAT or the treasuries: the UI must say so. */
  liveEnEmulador: z.boolean(),
  nifEmisor: z.string().optional(),
  idDispositivo: z.string().optional(),
  /** The engine's data folder (database, logs), for the settings screen. */
  carpetaDatos: z.string().optional(),
});

export interface PanelApiOptions {
  /** The billing and management apps the same-origin relay forwards to (panel-relay.ts). */
  relay?: RelayTargets;
  /** A till's own credential → its identity (shop mode). */
  tillToken?: TillTokenLookup;
  /** Failed-token throttle (tests shorten it). */
  throttle?: ThrottleOptions;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A file of the built till UI: served without the panel token outside /panel/. */
    ui?: boolean;
  }
}

/**
 * The panel API: local UI and support staff only. Authenticated by a per-launch token (in the
 * start-up URL, or handed to the Electron renderer through the bridge), never by API keys.
 */
export async function buildPanelApi(ctx: EngineContext, token: string, options: PanelApiOptions = {}): Promise<FastifyInstance> {
  const beyondLoopback = !isLoopbackBind(ctx.config.host) || ctx.serverTls !== undefined;
  const admit = panelGate({
    adminToken: token,
    host: ctx.config.host,
    logger: ctx.logger,
    tillToken: options.tillToken ?? ((bearer) => ctx.tillCredentials.byToken(bearer)),
    ...(options.throttle ? { throttle: options.throttle } : {}),
  });
  const app = await buildApiServer({
    title: 'Panel API',
    description: 'Interfaz local de caja y soporte',
    ids: ctx.config.ids,
    logger: ctx.logger,
    allowedHosts: hostNamesOf(ctx.config, () => ctx.urls.panel),
    tls: ctx.serverTls,
    requestArrived: () => ctx.db.requestArrived(),
    // Its route list (/openapi.json) is public on loopback only: on a LAN it needs a token too.
    gate: (request) => admit(request, isUiRequest(request) || (request.routeOptions.config?.public === true && !beyondLoopback)),
  });
  app.decorateRequest('panelCaller', null);
  // The emulators' fault controls, relayed below, need their per-launch token (emulator-relay.ts).
  app.decorate('emulatorControlToken', ctx.config.emulatorControlToken);
  app.setNotFoundHandler(async () => {
    throw notFound('Ruta no encontrada');
  });

  accountPanelRoutes(app, { accounts: ctx.accounts, dataDir: ctx.config.dataDir, tillKeys: () => readDemoKeys(ctx.config.dataDir) });
  syncPanelRoutes(app, { view: new SyncViewStore(ctx.db), filing: ctx.filing, emulatorUrl: () => ctx.config.emulatorUrl, clock: ctx.config.clock });
  reachabilityRoute(app, {
    clock: ctx.config.clock,
    emulatorUrl: () => ctx.config.emulatorUrl,
    endpoints: () => [
      ...(['test', 'live'] as const).map((entorno) => ({ autoridad: 'aeat', entorno, url: ctx.config.submission.aeat.url[entorno] })),
      ...(['araba', 'bizkaia', 'gipuzkoa'] as const).flatMap((p) =>
        (['test', 'live'] as const).map((entorno) => ({ autoridad: `tbai-${p}`, entorno, url: ctx.config.ticketbai.endpoints.base[p][entorno] })),
      ),
    ],
  });
  verificationPanelRoutes(app, { db: ctx.db, clock: ctx.config.clock });
  webhookPanelRoutes(app, ctx.webhooks.store);
  clientPanelRoutes(app, { clients: ctx.clients, accounts: ctx.accounts, emulatorUrl: () => ctx.config.emulatorUrl });
  devicePanelRoutes(app, { devices: ctx.devices, accounts: ctx.accounts });
  noVerifactuPanelRoutes(app, { issuers: ctx.issuers, noVerifactu: ctx.noVerifactu, dataDir: ctx.config.dataDir });
  chainPanelRoute(app, { chains: ctx.invoices });
  tillCredentialPanelRoutes(app, {
    credentials: ctx.tillCredentials,
    devices: ctx.devices,
    accounts: ctx.accounts,
    ids: ctx.config.ids,
    serverKeys: () => readDemoKeys(ctx.config.dataDir),
    engineJsonBase: () => ({
      url: ctx.urls.billing,
      manageUrl: ctx.urls.manage,
      panelUrl: ctx.urls.panel,
      ...(ctx.serverTls ? { fingerprint256: ctx.serverTls.fingerprint256 } : {}),
    }),
  });
  panelRelayRoutes(app, { targets: options.relay ?? {}, keys: () => readDemoKeys(ctx.config.dataDir), relaySecret: ctx.relaySecret });
  if (ctx.config.uiDir) tillUiRoutes(app, ctx.config.uiDir);

  app.withTypeProvider<ZodTypeProvider>().get(
    '/panel/v1/arranque',
    { schema: { tags: ['panel'], summary: 'Lo que la interfaz necesita al arrancar', response: { 200: arranqueSchema } } },
    async (request) => {
      const demo = await readDemoKeys(ctx.config.dataDir);
      const caller = request.panelCaller;
      const ending = (key: string | undefined) => (key ? `…${key.slice(-4)}` : undefined);
      const test = ending(demo?.test);
      const live = ending(demo?.live);
      return {
        billingUrl: ctx.urls.billing,
        manageUrl: ctx.urls.manage,
        panelUrl: ctx.urls.panel,
        entornos: ['test', 'live'],
        clavesFinal: { ...(test ? { test } : {}), ...(live ? { live } : {}) },
        rol: caller?.rol ?? 'administrador',
        liveEnEmulador: ctx.config.liveToEmulator,
        ...(caller?.rol === 'caja'
          ? { nifEmisor: caller.nifEmisor, idDispositivo: caller.idMaquina }
          : {
              ...(demo?.nifEmisor ? { nifEmisor: demo.nifEmisor } : {}),
              // The device this engine's own till is registered as (the headless till or the desktop shell's).
              ...(demo?.idMaquina ? { idDispositivo: demo.idMaquina } : {}),
            }),
        carpetaDatos: ctx.config.dataDir,
      };
    },
  );
  return app;
}

const demoKeysSchema = z.object({
  test: z.string().optional(),
  live: z.string().optional(),
  nifEmisor: z.string().optional(),
  idMaquina: z.string().optional(),
});

export async function readDemoKeys(dataDir: string): Promise<z.infer<typeof demoKeysSchema> | undefined> {
  try {
    const raw = await readFile(path.join(dataDir, 'demo-keys.json'), 'utf8');
    return demoKeysSchema.parse(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- the built till UI

const UI_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};


function isUiRequest(request: FastifyRequest): boolean {
  return request.routeOptions.config?.ui === true && !request.url.startsWith('/panel/');
}

/** URL path → file, for every file of the built UI with a known type (the allow-list). */
function listUiFiles(uiDir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries) {
      if (name.startsWith('.')) continue;
      const full = path.join(dir, name);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full, `${prefix}${name}/`);
      else if (UI_TYPES[path.extname(name)]) files.set(`${prefix}${name}`, full);
    }
  };
  walk(path.resolve(uiDir), '/');
  return files;
}

/**
 * Serves the files of the built till UI (`vite build` → out/renderer) beside the panel API: only
 * files listed when the API was built, with their content type; any other extension-less path gets
 * index.html (client-side routes). The files need no token; every /panel/v1/* route still does.
 */
function tillUiRoutes(app: FastifyInstance, uiDir: string): void {
  let files = listUiFiles(uiDir);
  let listedAt = Date.now();
  const lookup = (urlPath: string) => {
    let file = files.get(urlPath);
    // A rebuild while the engine runs renames hashed assets: list again, at most once a second.
    if (!file && Date.now() - listedAt > 1000) {
      files = listUiFiles(uiDir);
      listedAt = Date.now();
      file = files.get(urlPath);
    }
    return file;
  };
  app.get('/*', { config: { ui: true }, schema: { hide: true } }, async (request, reply) => {
    let urlPath: string;
    try {
      urlPath = decodeURIComponent((request.url.split('?')[0] ?? '/').replace(/\/+/g, '/'));
    } catch {
      throw notFound('Ruta no encontrada');
    }
    if (urlPath.startsWith('/panel/')) throw notFound('Ruta no encontrada');
    let file = urlPath === '/' ? lookup('/index.html') : lookup(urlPath);
    if (!file && path.extname(urlPath) === '') file = lookup('/index.html');
    if (!file) throw notFound('Ruta no encontrada');
    const body = await readFile(file);
    const html = file.endsWith('.html');
    reply
      .header('content-type', UI_TYPES[path.extname(file)] ?? 'application/octet-stream')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', html ? 'no-cache' : urlPath.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (html) reply.header('content-security-policy', TILL_UI_CSP).header('x-frame-options', 'DENY');
    return reply.send(body);
  });
}
