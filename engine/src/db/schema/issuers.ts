import type { Entorno, Hacienda } from '../../../../src-shared/api/common';

/**
 * An issuer client (emisor) of an account in one environment. Its high-capacity phase is shared by
 * both environments: `issuer_phases` (schema/devices.ts).
 */
export interface IssuersTable {
  id: string;
  accountId: string;
  entorno: Entorno;
  nif: string;
  nombre: string;
  hacienda: Hacienda;
  estado: 'activo' | 'inactivo' | 'eliminado';
  estadoRepresentacion: string;
  creadoEn: string;
  ultimaModificacion: string;
}
