import type { Entorno } from '../../../src-shared/api/common';
import type { TipoRegistro } from '../db/schema/invoices';

/*
 * The seam between the submission worker and each tax authority's protocol (regimes/<regime>/authority/):
 * the worker knows lanes, order and back-off; an adapter knows one authority's requests and answers.
 */

/** `extra`: authority-specific record fields kept for the reads (TicketBAI's tipoRespuestaTbai…). */
export type Verdict =
  | {
      kind: 'aceptado';
      conErrores: boolean;
      codigo?: string | undefined;
      descripcion?: string | undefined;
      csv?: string | undefined;
      extra?: Record<string, unknown> | undefined;
    }
  | {
      kind: 'rechazado';
      codigo: string;
      descripcion: string;
      /** Further reasons the authority gave (TicketBAI lists several); only the webhook carries them. */
      motivosAdicionales?: { codigo: string; descripcion: string }[] | undefined;
      extra?: Record<string, unknown> | undefined;
    };

/** A record on its way into a submission, with what the authority keys it by. */
export interface OutgoingRecord {
  registroId: string;
  tipo: TipoRegistro;
  xml: string;
  entorno: Entorno;
  nifEmisor: string;
  numeroFactura: string;
  fechaExpedicion: string;
  creadoEn: string;
  /**
   * This engine may have sent the record before without a committed answer (an earlier attempt
   * of its submission, or an earlier submission that left its line unanswered). Only then is an
   * authority's "already registered" answer our own earlier send and reconciled.
   */
  enviadoAntes: boolean;
}

export interface BuildContext {
  obligado: { nif: string; nombre: string };
  /** Records generated long before this submission (AEAT: Incidencia = S). */
  incidencia: boolean;
}

/** What an answer means for the submission. Transient failures are thrown as TransportError. */
export type Interpretation =
  | {
      kind: 'verdicts';
      /** Verdict per registroId; a record left out goes back to its queue. */
      verdicts: Map<string, Verdict>;
      /** Seconds to wait before the next submission of this queue (AEAT TiempoEsperaEnvio). */
      waitSeconds: number;
      csv?: string | undefined;
      estadoEnvio?: string | undefined;
    }
  | { kind: 'refused'; codigo: string; descripcion: string };

/**
 * The authority refused the whole request for a reason outside the records (its census, the
 * certificate, an unknown cause): nothing is rejected, the queue waits with back-off until the
 * cause is fixed, its message shown to support staff as the queue's last error.
 */
export class SubmissionBlocked extends Error {
  /** The authority's code of the fault (AEAT 4104…), when it gave one. */
  constructor(
    message: string,
    readonly codigo?: string,
  ) {
    super(message);
  }
}

export interface SentRequest {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * One tax authority's protocol: how records become one request, how it is sent, and what its
 * answer means. The worker owns queues, durability, flow control and retries.
 */
export interface AuthorityAdapter {
  readonly autoridad: string;
  /** Records per submission (AEAT 1000; TicketBAI reception services one invoice). */
  readonly maxRecords: number;
  /** The exact request bytes, committed before the first send and resent unchanged. */
  build(records: readonly OutgoingRecord[], context: BuildContext): string;
  /**
   * Sends the request. `onWritten` is called once its bytes are handed to the network, so the
   * worker can do its heavy local work meanwhile without holding the request back.
   */
  send(entorno: Entorno, request: string, onWritten?: () => void): Promise<SentRequest>;
  interpret(sent: SentRequest, records: readonly OutgoingRecord[]): Interpretation;
  /** Two records the authority answers by the same key cannot travel together. */
  lineKey(record: OutgoingRecord): string;
  /** Whether `next` may travel in a submission that starts with `first` (default: yes). */
  sameSubmission?(first: OutgoingRecord, next: OutgoingRecord): boolean;
}
