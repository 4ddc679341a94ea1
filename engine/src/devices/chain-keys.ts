import type { Entorno } from '../../../src-shared/api/common';

/**
 * The chain keys of the high-capacity mode, the one place issuing and the devices capability
 * build them:
 * - the issuer's single chain (phases `no_contratada` / `preparacion`, and the centralized
 *   writer `__SHARD0__` in `activa`, which continues it): `${entorno}|${regimen}|${nif}`;
 * - a device's own chain in `activa`: `${entorno}|${regimen}|${nif}|dev:${id}` — VeriFactu uses the
 *   full identifier; TicketBAI the declared device (its last 30 characters, NumSerieDispositivo),
 *   because the treasury follows one chain per declared device. The `dev:` marker keeps these keys
 *   apart from any other key built on the issuer's prefix.
 */
export type ChainRegimen = 'verifactu' | 'ticketbai';

export const DEVICE_CHAIN_MARKER = 'dev:';

/** NumSerieDispositivo: TicketBAI declares the last 30 characters of idMaquina. */
export function numSerieDispositivo(idMaquina: string): string {
  return idMaquina.length <= 30 ? idMaquina : idMaquina.slice(-30);
}

export function issuerChainKey(regimen: ChainRegimen, entorno: Entorno, nif: string): string {
  return `${entorno}|${regimen}|${nif}`;
}

export function deviceChainKey(regimen: ChainRegimen, entorno: Entorno, nif: string, idMaquina: string): string {
  return `${issuerChainKey(regimen, entorno, nif)}|${DEVICE_CHAIN_MARKER}${idMaquina}`;
}

export const verifactuDeviceChainKey = (entorno: Entorno, nif: string, idMaquina: string) => deviceChainKey('verifactu', entorno, nif, idMaquina);
export const ticketbaiDeviceChainKey = (entorno: Entorno, nif: string, idMaquina: string) => deviceChainKey('ticketbai', entorno, nif, numSerieDispositivo(idMaquina));

/** The device's chain key in one regime (see above). */
export function deviceChainKeyOf(regimen: ChainRegimen, entorno: Entorno, nif: string, idMaquina: string): string {
  return regimen === 'verifactu' ? verifactuDeviceChainKey(entorno, nif, idMaquina) : ticketbaiDeviceChainKey(entorno, nif, idMaquina);
}
