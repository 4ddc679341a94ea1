/**
 * Whole-request faults of the AEAT that no resend cures: the invoices are fine, something outside
 * them must be fixed by a person (the issuer's census data, a representation, the certificate).
 * The queue keeps its records and waits a long interval (SubmissionConfig.blockedRetryMs) instead
 * of retrying every few minutes; the sync view and the invoice's status read say why and what to
 * do (the till UI maps `motivo` to its words). Codes from the adapter's table (aeat-adapter.ts).
 */
export const MOTIVOS_BLOQUEO = {
  '4104': 'nif_emisor_no_identificado',
  '4105': 'nif_representante_no_identificado',
  '4112': 'certificado_no_autorizado',
} as const;

export type MotivoBloqueo = (typeof MOTIVOS_BLOQUEO)[keyof typeof MOTIVOS_BLOQUEO];

/** What to do, for API clients (the till UI says it in the staff's language). */
const ACCIONES: Record<MotivoBloqueo, string> = {
  nif_emisor_no_identificado:
    'La AEAT no identifica el NIF del emisor: compruebe que el NIF y la razón social del cliente son los del censo (corríjalos con PATCH /v1/clientes/{nif}) y reintente el envío desde el panel',
  nif_representante_no_identificado:
    'La AEAT no identifica el NIF del representante: compruebe sus datos en el censo y reintente el envío desde el panel',
  certificado_no_autorizado:
    'El certificado con el que se presenta no está autorizado para este emisor: revise el apoderamiento o el certificado y reintente el envío desde el panel',
};

export function motivoBloqueo(codigo: string | null | undefined): MotivoBloqueo | undefined {
  return codigo ? (MOTIVOS_BLOQUEO as Record<string, MotivoBloqueo>)[codigo] : undefined;
}

export interface BloqueoEnvio {
  /** The AEAT's code (a string, compared as text). */
  codigo: string;
  motivo: MotivoBloqueo;
  /** The AEAT's own text. */
  descripcion: string | null;
  /** What to do. */
  accion: string;
  desde: string | null;
  /** When the queue tries again by itself ("Reintentar ahora" in the panel tries at once). */
  reintentoEn: string | null;
}

export function bloqueoOf(queue: { codigoBloqueo: string | null; ultimoError: string | null; ultimoErrorEn: string | null; reintentoEn: string | null }): BloqueoEnvio | undefined {
  const motivo = motivoBloqueo(queue.codigoBloqueo);
  if (!motivo || !queue.codigoBloqueo) return undefined;
  return { codigo: queue.codigoBloqueo, motivo, descripcion: queue.ultimoError, accion: ACCIONES[motivo], desde: queue.ultimoErrorEn, reintentoEn: queue.reintentoEn };
}

/** The queue state a blocked invoice's records wait in (SyncViewStore.queueBlockOfInvoice). */
export interface QueueBlocks {
  queueBlockOfInvoice(invoiceId: string): { codigoBloqueo: string | null; ultimoError: string | null; ultimoErrorEn: string | null; reintentoEn: string | null } | undefined;
}

/** The block holding back one of the invoice's records still waiting to be sent, if any. */
export function bloqueoDeFactura(queues: QueueBlocks, invoiceId: string): BloqueoEnvio | undefined {
  const row = queues.queueBlockOfInvoice(invoiceId);
  return row ? bloqueoOf(row) : undefined;
}
