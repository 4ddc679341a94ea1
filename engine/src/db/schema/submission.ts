import type { Entorno } from '../../../../src-shared/api/common';

/** Flow-control and health state of one submission queue (environment, authority, obligado). */
export interface SubmissionQueuesTable {
  queueKey: string;
  entorno: Entorno;
  autoridad: string;
  obligado: string;
  /** TiempoEsperaEnvio: no new submission before this instant unless 1000 records wait. */
  siguienteEnvioEn: string | null;
  /** Back-off after a transport failure or Server fault. */
  reintentoEn: string | null;
  fallosSeguidos: number;
  ultimoError: string | null;
  ultimoErrorEn: string | null;
  /** 1 reachable, 0 not, null unknown yet. */
  alcanzable: number | null;
  /** The AEAT code of a whole-request fault that needs a person (submission/blocked.ts), while it holds the queue. */
  codigoBloqueo: string | null;
}

/** One submission (idLote): its exact request bytes (submission_requests) are committed before they are sent. */
export interface SubmissionBatchesTable {
  id: string;
  queueKey: string;
  entorno: Entorno;
  autoridad: string;
  obligado: string;
  numRegistros: number;
  incidencia: number;
  estado: 'pendiente_respuesta' | 'respondido' | 'rechazado';
  intentos: number;
  /** The authority's answer, byte for byte, for support staff. */
  respuesta: string | null;
  csv: string | null;
  estadoEnvio: string | null;
  creadoEn: string;
  enviadoEn: string | null;
  respondidoEn: string | null;
  ultimoError: string | null;
}

/**
 * A submission's exact request bytes, in a row of their own: written when the submission is built
 * and again only when a resend is rebuilt, never by the updates of the submission's state.
 */
export interface SubmissionRequestsTable {
  idLote: string;
  peticion: string;
}

/** Final verdicts as events, written in the verdict's transaction; webhooks deliver them. */
export interface EventsTable {
  id: string;
  evento: 'factura.registrada' | 'factura.rechazada' | 'factura.anulada';
  accountId: string;
  entorno: Entorno;
  nifEmisor: string;
  invoiceId: string;
  registroId: string;
  datos: string;
  creadoEn: string;
}

/** Per-environment switches of the sync view (pause). */
export interface SubmissionControlTable {
  entorno: Entorno;
  pausado: number;
}
