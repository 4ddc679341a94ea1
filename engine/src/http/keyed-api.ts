import type { FastifyInstance } from 'fastify';
import type { EngineContext } from '../context';
import { declareCaller, keyAuthGate } from './auth';
import { notFound } from '../core/errors';
import { buildApiServer } from './server';

/** The common shell of the billing and management APIs: key auth, limits, 404 after auth. */
export async function buildKeyedApi(
  ctx: EngineContext,
  meta: { title: string; description: string; api: 'billing' | 'manage' },
): Promise<FastifyInstance> {
  const { api, ...docs } = meta;
  const app = await buildApiServer({
    ...docs,
    ids: ctx.config.ids,
    logger: ctx.logger,
    allowedHosts: hostNamesOf(ctx.config, () => ctx.urls[api]),
    tls: ctx.serverTls,
    requestArrived: () => ctx.db.requestArrived(),
    gate: keyAuthGate({ accounts: ctx.accounts, usage: ctx.usage, limits: ctx.config.limits, relaySecret: ctx.relaySecret }),
  });
  declareCaller(app);
  app.setNotFoundHandler(async () => {
    throw notFound('Ruta no encontrada');
  });
  return app;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = ['0.0.0.0', '::', '[::]'];

/**
 * allowedHostNames of the API's current URL, computed again only when the URL changes (it is
 * known once the API listens): the same array otherwise, so the Host check can keep its verdicts.
 */
export function hostNamesOf(config: { host: string; allowedHosts: readonly string[] }, url: () => string): () => readonly string[] {
  let lastUrl: string | undefined;
  let names: readonly string[] = [];
  return () => {
    const current = url();
    if (current !== lastUrl) {
      lastUrl = current;
      names = allowedHostNames(config, current);
    }
    return names;
  };
}

/**
 * The Host values an API answers to (DNS rebinding). Loopback names as before, whatever the port
 * (in-process calls carry none of ours). A LAN address in POS_HOST and every POS_ALLOWED_HOSTS
 * name only with this API's own port (`url`, known once it listens): exact host and port.
 */
export function allowedHostNames(config: { host: string; allowedHosts: readonly string[] }, url: string): string[] {
  const port = /:(\d+)\/?$/.exec(url)?.[1] ?? '';
  const bracketed = (name: string) => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name);
  const host = bracketed(config.host.toLowerCase());
  const lan = [...(LOOPBACK.includes(host) || WILDCARDS.includes(host) ? [] : [host]), ...config.allowedHosts.map(bracketed)];
  return [...new Set([...LOOPBACK, ...lan.map((name) => `${name}:${port}`)])];
}
