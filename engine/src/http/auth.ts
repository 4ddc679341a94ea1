import type { FastifyInstance, FastifyRequest } from 'fastify';
import { limitsFor, type LimitsConfig } from '../account/plans';
import type { AccountStore, ActiveKey } from '../account/store';
import type { UsageMeter } from '../account/usage';
import { safeEqual } from '../platform/secrets';
import type { Caller } from '../core/caller';
import { GatewayForbidden } from '../core/errors';

export interface KeyAuthDeps {
  accounts: AccountStore;
  usage: UsageMeter;
  limits?: LimitsConfig;
  /** Requests relayed by the panel for the till's own UI carry it and are not metered. */
  relaySecret?: string;
}

export const RELAY_SECRET_HEADER = 'x-panel-relay';

/** Every request gets `caller` (null until the key gate sets it). */
export function declareCaller(app: FastifyInstance): void {
  app.decorateRequest('caller', null);
}

/**
 * Like the API gateway of the hosted service: a missing, unknown or revoked key is refused before
 * any route (unknown routes included) with 403 `{"message":"Forbidden"}`; then the per-second and
 * monthly limits, which the billing and management APIs share through one UsageMeter. Runs as
 * the API's gate (ApiOptions.gate), synchronously in its onRequest hook.
 *
 * The key is looked up on every request (findActiveKey: a revoked key is refused from the next
 * request on); what is derived from the row it returns — limits, the Caller — is built once per
 * row object, which the key cache replaces whenever a key or an account changes.
 */
export function keyAuthGate(deps: KeyAuthDeps): (request: FastifyRequest) => void {
  const callers = new WeakMap<ActiveKey, Caller>();
  const callerFor = (found: ActiveKey): Caller => {
    let caller = callers.get(found);
    if (!caller) {
      const limits = limitsFor(found.key.entorno, found.account.plan, deps.limits);
      caller = { keyId: found.key.id, entorno: found.key.entorno, account: found.account, limits };
      callers.set(found, caller);
    }
    return caller;
  };
  return (request) => {
    if (request.routeOptions.config?.public === true) return;
    const header = request.headers['x-api-key'];
    const found = typeof header === 'string' && header.length > 0 ? deps.accounts.findActiveKey(header) : undefined;
    if (!found) throw new GatewayForbidden();
    const caller = callerFor(found);
    // The till's own screens poll status every second: they are local use, not POS traffic, so
    // neither the per-second limit nor the monthly quota applies to them (the key still does).
    const relayed = request.headers[RELAY_SECRET_HEADER];
    const fromPanel = typeof relayed === 'string' && deps.relaySecret !== undefined && safeEqual(relayed, deps.relaySecret);
    if (!fromPanel) deps.usage.admit(caller.keyId, caller.limits);
    request.caller = caller;
  };
}
