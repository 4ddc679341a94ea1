import type { Entorno, SistemaFiscal } from '../../../../src-shared/api/common';

export type EstadoFactura = 'registrada' | 'anulada' | 'rectificada';
export type EstadoEnvio =
  | 'pendiente_proceso'
  | 'pendiente_envio'
  | 'en_lote'
  | 'en_cola'
  | 'procesando'
  | 'rechazada'
  | 'aceptada_con_errores'
  | 'desconocido'
  /** «NO VERI*FACTU»: signed and kept, sent to the AEAT only on its requirement (issue 32). */
  | 'no_remitida';

/**
 * The invoice is the operation; identity is (entorno, nifEmisor, serie, numero, fechaExpedicion).
 * Amounts are TEXT in their canonical rendering (the same the XML and the hash carry).
 */
export interface InvoicesTable {
  id: string;
  accountId: string;
  entorno: Entorno;
  nifEmisor: string;
  sistemaFiscal: SistemaFiscal;
  provincia: string | null;
  serie: string;
  numero: string;
  /** dd-mm-aaaa as sent. */
  fechaExpedicion: string;
  numeroFactura: string;
  /** Null only for a cancellation of an invoice never registered here (sinRegistroPrevio). */
  tipoFactura: string | null;
  importeTotal: string | null;
  cuotaTotal: string | null;
  estadoFactura: EstadoFactura | null;
  estadoEnvio: EstadoEnvio;
  urlValidacion: string | null;
  /** huella (VeriFactu) of the current alta or subsanación record. */
  huella: string | null;
  csvAeat: string | null;
  idTbai: string | null;
  idMaquina: string | null;
  creadoEn: string;
  ultimaModificacion: string;
}

/** Documents of an invoice, kept apart from the often-updated row. */
export interface InvoiceDocumentosTable {
  invoiceId: string;
  /** The 200 answer of the issuing request, without the QR (regenerated from urlValidacion). */
  respuesta: string | null;
  /** The request body as accepted, for the detail view and for corrections. */
  datos: string | null;
}

/** The exact record XML committed before anything is sent. */
export interface RegistroDocumentosTable {
  registroId: string;
  xml: string;
}

export type TipoRegistro = 'alta' | 'subsanacion' | 'anulacion';
export type EstadoRegistro = 'pendiente' | 'procesando' | 'aceptada' | 'rechazada';

/** A billing record: each submission of an invoice (alta, subsanación, anulación). */
export interface RegistrosTable {
  id: string;
  invoiceId: string;
  accountId: string;
  entorno: Entorno;
  nifEmisor: string;
  sistemaFiscal: SistemaFiscal;
  tipo: TipoRegistro;
  estado: EstadoRegistro;
  estadoEnvio: EstadoEnvio;
  estadoEnvioFinal: 'registrada' | 'rechazada' | null;
  chainKey: string;
  /** Position in its chain, from 1. */
  chainSeq: number;
  huella: string | null;
  huellaAnterior: string | null;
  fechaHoraHusoGenRegistro: string | null;
  codigoRespuesta: string | null;
  descripcionRespuesta: string | null;
  csvAeat: string | null;
  idLote: string | null;
  idMaquina: string | null;
  /** Regime-specific detail extras as JSON (esRectificativa, sinRegistroPrevio, TicketBAI fields…). */
  extra: string;
  creadoEn: string;
  envioCompletadoEn: string | null;
  ultimaModificacion: string;
}

/** Head of each record chain: what the next record links to. */
export interface ChainsTable {
  chainKey: string;
  length: number;
  lastRegistroId: string;
  /** VeriFactu: IDEmisorFactura, NumSerieFactura, FechaExpedicionFactura, Huella of the last record (JSON). */
  lastLink: string;
}

/** Invoices referenced as rectified or substituted, to refuse cancelling an invoice with live rectifications. */
export interface InvoiceRefsTable {
  invoiceId: string;
  entorno: Entorno;
  nifEmisor: string;
  numeroFactura: string;
  fechaExpedicion: string;
  tipo: 'rectificada' | 'sustituida';
}

/** Outbox: one row per record to file, written in the issuing transaction. */
export interface SubmissionJobsTable {
  id: string;
  registroId: string;
  entorno: Entorno;
  /** One queue per (environment, authority, obligado). */
  queueKey: string;
  estado: 'pendiente' | 'en_lote' | 'enviado' | 'hecho';
  intentos: number;
  siguienteIntentoEn: string;
  ultimoError: string | null;
  creadoEn: string;
  /** The batch that carries it, once assigned. */
  idLote: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}
