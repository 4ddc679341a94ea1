import type { Hacienda } from '../../../src-shared/api/common';
import type { Issuer, IssuerStore } from '../clients/store';
import { EngineError, forbidden, paymentRequired } from '../core/errors';
import type { Caller } from '../core/caller';

export const representationPending = () =>
  new EngineError(403, 'REPRESENTATION_PENDING', 'La representación del emisor no está firmada: no se puede emitir en LIVE');

/**
 * Who may issue for `nif`: an active issuer of the caller's account in the key's environment with
 * the regime's hacienda (else 403 FORBIDDEN, one body whatever the reason); a new registration
 * needs active billing (402); LIVE needs a signed representation unless the issuer is the
 * account's own company filing with its own certificate.
 */
export function admitIssuer(
  issuers: IssuerStore,
  caller: Caller,
  nif: string,
  haciendas: readonly Hacienda[],
  options: { newRegistration: boolean },
): Issuer {
  const issuer = issuers.findForAccount(caller.account.id, caller.entorno, nif);
  if (!issuer || issuer.estado !== 'activo' || !haciendas.includes(issuer.hacienda)) throw forbidden();
  if (options.newRegistration && caller.account.facturacionActiva !== 1) throw paymentRequired();
  if (
    caller.entorno === 'live' &&
    issuer.nif !== caller.account.nif &&
    issuer.estadoRepresentacion !== 'firmado'
  ) {
    throw representationPending();
  }
  return issuer;
}
