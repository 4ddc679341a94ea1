import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import type { EngineContext } from '../context';
import { EngineError, notFound } from './errors';
import { allowedHostNames } from './keyed-api';
import { buildApiServer } from './server';
import { safeEqual } from '../platform/secrets';
import { syncPanelRoutes } from '../submission/panel-routes';

export const arranqueSchema = z.object({
  billingUrl: z.string(),
  manageUrl: z.string(),
  panelUrl: z.string(),
  entornos: z.array(z.string()),
  claves: z.object({ test: z.string().optional(), live: z.string().optional() }),
  nifEmisor: z.string().optional(),
  idDispositivo: z.string().optional(),
});

/**
 * The panel API: local UI and support staff only. Authenticated by a per-launch token (in the
 * start-up URL, or handed to the Electron renderer through the bridge), never by API keys.
 */
export async function buildPanelApi(ctx: EngineContext, token: string): Promise<FastifyInstance> {
  const app = await buildApiServer({
    title: 'Panel API',
    description: 'Interfaz local de caja y soporte',
    ids: ctx.config.ids,
    logger: ctx.logger,
    allowedHosts: () => allowedHostNames(ctx.config.host),
  });
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public === true) return;
    const header = request.headers.authorization;
    const bearer = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!bearer || !safeEqual(bearer, token)) {
      throw new EngineError(401, 'PANEL_TOKEN_REQUIRED', 'Token de panel ausente o no válido');
    }
  });
  app.setNotFoundHandler(async () => {
    throw notFound('Ruta no encontrada');
  });

  syncPanelRoutes(app, { db: ctx.db, submissions: ctx.submissions, emulatorUrl: () => ctx.config.emulatorUrl });

  app.withTypeProvider<ZodTypeProvider>().get(
    '/panel/v1/arranque',
    { schema: { tags: ['panel'], summary: 'Lo que la interfaz necesita al arrancar', response: { 200: arranqueSchema } } },
    async () => {
      const demo = await readDemoKeys(ctx.config.dataDir);
      return {
        billingUrl: ctx.urls.billing,
        manageUrl: ctx.urls.manage,
        panelUrl: ctx.urls.panel,
        entornos: ['test', 'live'],
        claves: { ...(demo?.test ? { test: demo.test } : {}), ...(demo?.live ? { live: demo.live } : {}) },
        ...(demo?.nifEmisor ? { nifEmisor: demo.nifEmisor } : {}),
      };
    },
  );
  return app;
}

const demoKeysSchema = z.object({
  test: z.string().optional(),
  live: z.string().optional(),
  nifEmisor: z.string().optional(),
});

export async function readDemoKeys(dataDir: string): Promise<z.infer<typeof demoKeysSchema> | undefined> {
  try {
    const raw = await readFile(path.join(dataDir, 'demo-keys.json'), 'utf8');
    return demoKeysSchema.parse(JSON.parse(raw));
  } catch {
    return undefined;
  }
}
