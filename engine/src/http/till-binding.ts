import type { FastifyInstance } from 'fastify';
import type { TillCredentials } from '../devices/till-credentials';
import { safeEqual } from '../platform/secrets';
import { RELAY_SECRET_HEADER } from './auth';
import { EngineError } from './errors';

/** The till the panel relay vouches for (only believed with the relay's per-launch secret). */
export const RELAY_TILL_HEADER = 'x-panel-caja';

/**
 * A till's identity is authenticated (issue 30): an invoice whose `idMaquina` names a till that
 * holds its own credential is accepted only with that till's credential — its own key, or its
 * panel token through the panel relay — and a till's key issues only as its own till. Tills
 * without a credential (the single-machine till, POS software with an account key) work as before.
 * Runs before the route's handler, after validation: nothing is stored when refused.
 */
export function tillBindingHook(app: FastifyInstance, deps: { credentials: TillCredentials; relaySecret: string }): void {
  app.addHook('preHandler', (request, _reply, done) => {
    const caller = request.caller;
    if (!caller) {
      done();
      return;
    }
    const body = request.body as { idMaquina?: unknown } | null | undefined;
    const idMaquina = typeof body === 'object' && body !== null && typeof body.idMaquina === 'string' ? body.idMaquina : undefined;
    const ownMachine = deps.credentials.machineOfKey(caller.keyId);
    const relayed = request.headers[RELAY_SECRET_HEADER];
    const vouched = request.headers[RELAY_TILL_HEADER];
    const relayTill = typeof relayed === 'string' && typeof vouched === 'string' && safeEqual(relayed, deps.relaySecret) ? vouched : undefined;
    const asTill = ownMachine ?? relayTill;
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
