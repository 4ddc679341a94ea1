import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TillCredentials } from '../devices/till-credentials';
import { safeEqual } from '../platform/secrets';
import { RELAY_SECRET_HEADER } from './auth';
import { adminRequired, EngineError } from '../core/errors';

/** The till the panel relay vouches for (only believed with the relay's per-launch secret). */
export const RELAY_TILL_HEADER = 'x-panel-caja';

/**
 * A till's identity is authenticated (issue 30): an invoice whose `idMaquina` names a till that
 * holds its own credential is accepted only with that till's credential — its own key, or its
 * panel token through the panel relay — and a till's key issues only as its own till. Tills
 * without a credential (the single-machine till, POS software with an account key) work as before.
 * Runs before the route's handler, after validation: nothing is stored when refused.
 */
export interface TillBindingDeps {
  credentials: TillCredentials;
  relaySecret: string;
}

/** The till a keyed request comes from: its own key's, or the one the panel relay vouches for. */
function tillOf(request: FastifyRequest, deps: TillBindingDeps): string | undefined {
  const caller = request.caller;
  if (!caller) return undefined;
  const ownMachine = deps.credentials.machineOfKey(caller.keyId);
  if (ownMachine !== undefined) return ownMachine;
  const relayed = request.headers[RELAY_SECRET_HEADER];
  const vouched = request.headers[RELAY_TILL_HEADER];
  return typeof relayed === 'string' && typeof vouched === 'string' && safeEqual(relayed, deps.relaySecret) ? vouched : undefined;
}

const bodyIdMaquina = (body: unknown): string | undefined =>
  typeof body === 'object' && body !== null && typeof (body as { idMaquina?: unknown }).idMaquina === 'string' ? (body as { idMaquina: string }).idMaquina : undefined;

export function tillBindingHook(app: FastifyInstance, deps: TillBindingDeps): void {
  app.addHook('preHandler', (request, _reply, done) => {
    const caller = request.caller;
    if (!caller) {
      done();
      return;
    }
    const idMaquina = bodyIdMaquina(request.body);
    const asTill = tillOf(request, deps);
    if (asTill !== undefined && idMaquina !== undefined && idMaquina !== asTill) {
      done(new EngineError(403, 'MACHINE_CREDENTIAL_MISMATCH', `Esta credencial es de la caja ${asTill}: no puede emitir como ${idMaquina}`, { campo: 'idMaquina' }));
      return;
    }
    if (idMaquina !== undefined && asTill !== idMaquina && deps.credentials.hasCredential(caller.account.id, idMaquina)) {
      done(new EngineError(403, 'MACHINE_CREDENTIAL_REQUIRED', `La caja ${idMaquina} tiene credencial propia: solo ella puede emitir con su idMaquina`, { campo: 'idMaquina' }));
      return;
    }
    done();
  });
}

/** What a till may change on the management API: check NIFs, register or deactivate itself. */
const TILL_MANAGE_WRITES: readonly { method: string; url: string; own?: 'body' | 'param' }[] = [
  { method: 'POST', url: '/v1/nif/validar' },
  { method: 'POST', url: '/v1/clientes/:nif/dispositivos', own: 'body' },
  { method: 'DELETE', url: '/v1/clientes/:nif/dispositivos/:idMaquina', own: 'param' },
];

/**
 * A till (its own key, or its token through the relay) is not the shop's administrator on the
 * management API either: it reads, checks NIFs and registers or deactivates itself; creating or
 * changing issuers, other tills, series reservations, the high-capacity requests and webhooks are
 * refused with 403 ADMIN_REQUIRED, before the body is validated. Account keys are unchanged.
 */
export function tillManageGuard(app: FastifyInstance, deps: TillBindingDeps): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') {
      done();
      return;
    }
    const asTill = tillOf(request, deps);
    if (asTill === undefined) {
      done();
      return;
    }
    const allowed = TILL_MANAGE_WRITES.find((w) => w.method === request.method && w.url === request.routeOptions.url);
    const params = request.params as { idMaquina?: unknown } | undefined;
    const target = allowed?.own === 'body' ? bodyIdMaquina(request.body) : allowed?.own === 'param' ? (typeof params?.idMaquina === 'string' ? params.idMaquina : undefined) : asTill;
    if (!allowed || target !== asTill) {
      done(adminRequired(`Una caja (${asTill}) no puede hacer esto: lo hace el administrador de la tienda`));
      return;
    }
    done();
  });
}
