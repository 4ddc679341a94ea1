import type { Entorno } from '../../../../src-shared/api/common';

export type ModoSif = 'verifactu' | 'no_verifactu';

/** The mode of an issuer's installation in one environment; no row reads as `verifactu`. */
export interface SifModosTable {
  entorno: Entorno;
  nif: string;
  modoSif: ModoSif;
  /** When the current mode was set. */
  desde: string;
}

export interface SifModoCambiosTable {
  id: string;
  entorno: Entorno;
  nif: string;
  modoSif: ModoSif;
  creadoEn: string;
}

/** One signed RegistroEvento of an installation's event log. */
export interface SifEventosTable {
  id: string;
  entorno: Entorno;
  nif: string;
  /** Position in the installation's chain, from 1. */
  seq: number;
  tipoEvento: string;
  fechaHoraHusoGenEvento: string;
  huella: string;
  huellaAnterior: string | null;
  xml: string;
  creadoEn: string;
}

/** What the next event links to. */
export interface SifEventosCabezaTable {
  entorno: Entorno;
  nif: string;
  seq: number;
  idEvento: string;
  tipoEvento: string;
  fechaHoraHusoGenEvento: string;
  huella: string;
}

export interface NoVerifactuTables {
  sif_modos: SifModosTable;
  sif_modo_cambios: SifModoCambiosTable;
  sif_eventos: SifEventosTable;
  sif_eventos_cabeza: SifEventosCabezaTable;
}
