import type { Entorno, Hacienda } from '../../../../src-shared/api/common';

/** An issuer client (emisor) of an account in one environment. */
export interface IssuersTable {
  id: string;
  accountId: string;
  entorno: Entorno;
  nif: string;
  nombre: string;
  hacienda: Hacienda;
  estado: 'activo' | 'inactivo' | 'eliminado';
  estadoRepresentacion: string;
  modoCadena: 'unica' | 'por_dispositivo';
  faseAltaCapacidad: 'no_contratada' | 'preparacion' | 'activa';
  creadoEn: string;
  ultimaModificacion: string;
}
