import type { Entorno } from '../../../src-shared/api/common';

/**
 * The chain keys of the high-capacity mode, the one place issuing and the devices capability
 * build them:
 * - the issuer's single chain (phases `no_contratada` / `preparacion`, and the centralized
 *   writer `__SHARD0__` in `activa`, which continues it): `${entorno}|${regimen}|${nif}`;
 * - a device's own chain in `activa`: `${entorno}|${regimen}|${nif}|dev:${idMaquina}` — the full
 *   identifier (never its last 30 characters), and the `dev:` marker keeps these keys apart from
 *   any other key built on the issuer's prefix.
 */
export type ChainRegimen = 'verifactu' | 'ticketbai';

export const DEVICE_CHAIN_MARKER = 'dev:';

export function issuerChainKey(regimen: ChainRegimen, entorno: Entorno, nif: string): string {
  return `${entorno}|${regimen}|${nif}`;
}

export function deviceChainKey(regimen: ChainRegimen, entorno: Entorno, nif: string, idMaquina: string): string {
  return `${issuerChainKey(regimen, entorno, nif)}|${DEVICE_CHAIN_MARKER}${idMaquina}`;
}

export const verifactuDeviceChainKey = (entorno: Entorno, nif: string, idMaquina: string) => deviceChainKey('verifactu', entorno, nif, idMaquina);
export const ticketbaiDeviceChainKey = (entorno: Entorno, nif: string, idMaquina: string) => deviceChainKey('ticketbai', entorno, nif, idMaquina);
