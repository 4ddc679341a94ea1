import type { FastifyInstance } from 'fastify';
import type { EngineContext } from '../context';
import { registerKeyAuth } from './auth';
import { notFound } from './errors';
import { buildApiServer } from './server';

/** The common shell of the billing and management APIs: key auth, limits, 404 after auth. */
export async function buildKeyedApi(
  ctx: EngineContext,
  meta: { title: string; description: string },
): Promise<FastifyInstance> {
  const app = await buildApiServer({
    ...meta,
    ids: ctx.config.ids,
    logger: ctx.logger,
    allowedHosts: () => allowedHostNames(ctx.config.host),
  });
  registerKeyAuth(app, { accounts: ctx.accounts, usage: ctx.usage, limits: ctx.config.limits, relaySecret: ctx.relaySecret });
  app.setNotFoundHandler(async () => {
    throw notFound('Ruta no encontrada');
  });
  return app;
}

export function allowedHostNames(host: string): string[] {
  return [...new Set(['127.0.0.1', 'localhost', '[::1]', host])];
}
