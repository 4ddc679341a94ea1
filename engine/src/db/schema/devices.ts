import type { Entorno } from '../../../../src-shared/api/common';

export type FaseAltaCapacidad = 'no_contratada' | 'preparacion' | 'activa';
export type ModoCadena = 'unica' | 'por_dispositivo';

/** The literal owner of series written by the centralized submission (invoices without `idMaquina`). */
export const SHARD0 = '__SHARD0__';

/**
 * The high-capacity phase of an issuer: one row per (account, NIF), shared by TEST and LIVE. No
 * row reads as `no_contratada` / `unica`. `modoCadena` is `por_dispositivo` exactly in `activa`.
 */
export interface IssuerPhasesTable {
  accountId: string;
  nif: string;
  faseAltaCapacidad: FaseAltaCapacidad;
  modoCadena: ModoCadena;
  /** Set when the issuer enters `preparacion`: idMaquina notes start here. */
  observandoDesde: string | null;
  /** The first activation notice; null until given. */
  activacionSolicitadaEn: string | null;
  ultimaModificacion: string;
}

/** A device (an independent logical issuer with its own chain) of an issuer in one environment. */
export interface DevicesTable {
  entorno: Entorno;
  nif: string;
  idMaquina: string;
  /** '' when none was given. */
  etiqueta: string;
  creadoEn: string;
  activo: number;
  dadoDeBajaEn: string | null;
  reactivadoEn: string | null;
  /** VeriFactu only: assigned by issuing with the device's first invoice; unique across the install. */
  numeroInstalacion: string | null;
}

/** Who owns a series of an issuer in one environment, for ever. */
export interface DeviceSeriesTable {
  entorno: Entorno;
  nif: string;
  serie: string;
  /** A device's idMaquina or `__SHARD0__`. */
  idMaquinaPropietaria: string;
  reclamadaEn: string;
  /** 1 when reserved through series-centralizadas (releasable in `preparacion`); 0 when claimed by an invoice. */
  reservada: number;
}

/** idMaquina values noted from issuing traffic during `preparacion`. */
export interface DeviceObservationsTable {
  entorno: Entorno;
  nif: string;
  idMaquina: string;
  primeraVez: string;
  ultimaVez: string;
}

export interface DevicesTables {
  issuer_phases: IssuerPhasesTable;
  devices: DevicesTable;
  device_series: DeviceSeriesTable;
  device_observations: DeviceObservationsTable;
}
