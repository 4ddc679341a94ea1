import type { EventsTable } from '../db/schema/submission';
import type { InvoiceRow, RegistroRow } from '../invoices/store';

/*
 * The states a record (and its invoice while it has no estadoFactura) goes through on its way to
 * the authority — the one place they change after issuing wrote the record `pendiente_proceso`:
 *
 *   pendiente_proceso ─intoSubmission→ en_lote ─sent→ en_cola ─accept/reject→ registrada | rechazada
 *                     └──────intoSubmission (sent at once)──→ en_cola
 *   en_lote | en_cola ─awaitingResend→ pendiente_envio (a failed send; the answer settles it later)
 *
 * estadoEnvio of a record:
 *   pendiente_proceso  stored, not yet in a submission;
 *   en_lote            in a submission whose exact bytes are committed, its first attempt not yet
 *                      (a submission built to leave at once commits both: straight to en_cola);
 *   en_cola            sent (its attempt committed before it left; marked once its bytes are on
 *                      the wire), awaiting the answer;
 *   pendiente_envio    a send failed (transport, Server fault, a blocking Client fault, or an
 *                      answer that left its line out): the submission is being retried, and its
 *                      records keep this state through the resends until an answer settles them.
 *
 * Every method runs inside the caller's write transaction (the submission worker's, see
 * docs/architecture.md "Transactions across stores") and takes its ids as one list, so a
 * thousand records cost one statement, not a thousand.
 */

/** What applying a verdict reads of a record: callers read only these columns. */
export const VERDICT_RECORD_COLUMNS = ['id', 'invoiceId', 'tipo', 'extra', 'huella', 'estadoEnvioFinal'] as const satisfies readonly (keyof RegistroRow)[];
export type VerdictRecord = Pick<RegistroRow, (typeof VERDICT_RECORD_COLUMNS)[number]>;

/** What applying a verdict reads of an invoice: its state and what its event carries. */
export const VERDICT_INVOICE_COLUMNS = [
  'id',
  'accountId',
  'entorno',
  'nifEmisor',
  'sistemaFiscal',
  'provincia',
  'numeroFactura',
  'tipoFactura',
  'importeTotal',
  'cuotaTotal',
  'estadoFactura',
  'csvAeat',
] as const satisfies readonly (keyof InvoiceRow)[];
export type VerdictInvoice = Pick<InvoiceRow, (typeof VERDICT_INVOICE_COLUMNS)[number]>;
/** A LEFT JOIN's columns: null when the row has no match. */
export type NullableColumns<T> = { [K in keyof T]: T[K] | null };

/** The records' new columns, the same for every record of one group. */
export type RecordOutcome =
  | { kind: 'aceptado'; conErrores: boolean; codigo: string | null; descripcion: string | null; csv: string | null }
  | { kind: 'rechazado'; codigo: string; descripcion: string };

export type InvoiceChanges = Partial<Pick<InvoiceRow, 'estadoFactura' | 'estadoEnvio' | 'csvAeat' | 'ultimaModificacion'>>;

export interface RecordStates {
  /** Records taken into submission `idLote`: `en_lote`, or `en_cola` when it leaves at once; their invoices follow. */
  intoSubmission(idLote: string, registroIds: readonly string[], estadoEnvio: 'en_lote' | 'en_cola', now: string): void;
  /** The submission's bytes are on the wire: its records still `en_lote` (and their invoices) are `en_cola`. */
  sent(idLote: string, now: string): void;
  /** The submission's open records (and their invoices, unless rejected) wait for a resend in `estadoEnvio`. */
  awaitingResend(idLote: string, estadoEnvio: 'en_cola' | 'pendiente_envio', now: string): void;

  /** The records of `registroIds` still without a final state, each with its invoice (null columns when it has none). */
  openWithInvoices(registroIds: readonly string[]): ({ registroId: string } & NullableColumns<VerdictInvoice>)[];
  /** Final verdicts of one outcome for `registroIds`. */
  settle(registroIds: readonly string[], outcome: RecordOutcome, now: string): void;
  /** The submission that settled the records is `idLote` (written only where it differs). */
  settledBy(idLote: string, registroIds: readonly string[]): void;
  /** A record's authority-specific fields (JSON). */
  setExtra(registroId: string, extra: string): void;
  /** The same invoice changes for every invoice of `invoiceIds`. */
  changeInvoices(invoiceIds: readonly string[], changes: InvoiceChanges, now: string): void;
  /** An accepted rectifying invoice turns the registered invoices it names into `rectificada`. */
  markRectified(invoiceId: string, now: string): void;
  /** The event of a verdict (factura.registrada / anulada / rechazada). */
  insertEvent(event: EventsTable): void;
}
