import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { RELAY_SECRET_HEADER } from './auth';
import { EngineError, notFound, tillKeyMissing, validation } from '../core/errors';
import { RELAY_TILL_HEADER } from './till-binding';

/**
 * Same-origin relay from the till UI to the engine's own billing and management APIs.
 *
 * Why: the till UI is served from the panel origin (POS_PANEL_PORT), while the billing and
 * management APIs listen on their own ports, accept only their own `Host` and send no CORS headers
 * (DESIGN.md §4.5). A browser page on the panel origin therefore cannot call them, and opening CORS
 * would expose the keyed APIs to every web page the till's browser visits. Instead the panel —
 * already guarded by its per-launch bearer token — forwards `/panel/v1/api/{billing|manage}/v1/…`
 * in-process with `inject()` (no socket, no second origin), adding the till's own API key for the
 * environment the UI asks for (`x-till-entorno: test|live`, default test). The key never reaches
 * the browser through the relay, and the relayed call goes through the keyed API's own auth,
 * limits, validation and error body, so the UI sees exactly what POS software would.
 */
export interface RelayTargets {
  billing?: FastifyInstance | undefined;
  manage?: FastifyInstance | undefined;
}

export interface PanelRelayDeps {
  targets: RelayTargets;
  /** The till's API keys per environment (the data dir's keys file, as `/panel/v1/arranque` shows). */
  keys: () => Promise<{ test?: string | undefined; live?: string | undefined } | undefined>;
  /** Marks relayed calls as the till's own (see auth.ts): not metered against the key's limits. */
  relaySecret?: string;
}

export const RELAY_PREFIX = '/panel/v1/api';
export const RELAY_ENTORNO_HEADER = 'x-till-entorno';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Request headers worth forwarding; everything else (cookies, authorization, host…) stays here. */
const REQUEST_HEADERS = ['content-type', 'accept', 'accept-language'] as const;
/** Answer headers the UI may need. */
const RESPONSE_HEADERS = ['content-type', 'retry-after', 'content-disposition', 'cache-control'] as const;

export function panelRelayRoutes(app: FastifyInstance, deps: PanelRelayDeps): void {
  for (const target of ['billing', 'manage'] as const) {
    const prefix = `${RELAY_PREFIX}/${target}`;
    app.route({
      method: METHODS,
      url: `${prefix}/*`,
      schema: { hide: true },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const inner = deps.targets[target];
        if (!inner) throw new EngineError(503, 'RELAY_UNAVAILABLE', `La API de ${target} no está disponible en este proceso`);
        const url = request.url.slice(prefix.length);
        // Only the public API surface is relayed: never /openapi.json tricks or path games.
        if (!url.startsWith('/v1/') || url.includes('/../') || url.includes('/./')) {
          throw notFound('Ruta no encontrada');
        }
        const rawEntorno = request.headers[RELAY_ENTORNO_HEADER];
        const entorno = rawEntorno === undefined ? 'test' : rawEntorno;
        if (entorno !== 'test' && entorno !== 'live') {
          throw validation(RELAY_ENTORNO_HEADER, `${RELAY_ENTORNO_HEADER} debe ser test o live`);
        }
        const key = (await deps.keys())?.[entorno];
        if (!key) throw tillKeyMissing(`La caja no tiene clave de API para ${entorno}`);

        const headers: Record<string, string> = {
          host: '127.0.0.1',
          'x-api-key': key,
          'x-request-id': request.id,
          ...(deps.relaySecret ? { [RELAY_SECRET_HEADER]: deps.relaySecret } : {}),
          // A till's own token: the relayed call issues as that till only (till-binding.ts).
          ...(deps.relaySecret && request.panelCaller?.rol === 'caja' ? { [RELAY_TILL_HEADER]: request.panelCaller.idMaquina } : {}),
        };
        for (const name of REQUEST_HEADERS) {
          const value = request.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'DELETE';
        const res = await inner.inject({
          method: request.method as HTTPMethods,
          url,
          headers,
          ...(hasBody ? { payload: JSON.stringify(request.body) } : {}),
        });
        reply.code(res.statusCode);
        for (const name of RESPONSE_HEADERS) {
          const value = res.headers[name];
          if (typeof value === 'string' || typeof value === 'number') reply.header(name, String(value));
        }
        return reply.send(res.rawPayload);
      },
    });
  }
}
