import type { Entorno } from '../../../src-shared/api/common';
import type { SubmissionBatchesTable, SubmissionQueuesTable } from '../db/schema/submission';
import type { OutgoingRecord } from '../core/authority';
import type { VerdictRecord } from './record-states';

export type Batch = SubmissionBatchesTable;
export type QueueState = SubmissionQueuesTable;

/** A queued job with what an adapter needs of its record; `enviadoAntes` is set once read. */
export type OutgoingJob = OutgoingRecord & { jobId: string };

/**
 * The outbox: submission jobs (written by issuing, in its transaction), the submissions built from
 * them with their exact request bytes, the per-queue flow-control state and the per-environment
 * pause. The submission worker's only way to its tables; it keeps lanes, order and back-off.
 *
 * Reads run anywhere; writes run inside the caller's write transaction (the worker's, see
 * docs/architecture.md "Transactions across stores"). Lists of ids go as one argument, so a
 * thousand-record submission costs one statement per step, never one per record.
 */
export interface OutboxStore {
  /** The environments whose filing support staff paused. */
  pausedEntornos(): string[];
  isPaused(entorno: Entorno): boolean;
  /** Every queue with jobs, without reading the jobs. */
  queuesWithJobs(): { queueKey: string; entorno: string }[];
  queueState(queueKey: string): QueueState | undefined;
  /** The queue's oldest submission still without an answer (other than `exceptId`). */
  openBatch(queueKey: string, exceptId?: string): Batch | undefined;
  /** The queue's waiting jobs, counted up to `cap`. */
  pendingCount(queueKey: string, cap: number): number;
  /** The queue's waiting jobs in chain order, at most `limit`, with what an adapter needs of their records. */
  waitingJobs(queueKey: string, limit: number): OutgoingJob[];
  /** A submission's jobs in chain order, with what an adapter needs of their records. */
  batchJobs(idLote: string): OutgoingJob[];
  /** A submission's records in chain order, with the columns applying a verdict reads. */
  batchRecords(idLote: string): VerdictRecord[];
  /** A submission's exact request bytes. */
  requestOf(idLote: string): string | undefined;
  /** When the submission's oldest record without a verdict was generated. */
  oldestOpenRecord(idLote: string): string | undefined;
  /** The obligado's name for a request header, when the engine knows the issuer. */
  obligadoNombre(entorno: Entorno, nif: string): string | undefined;

  /** How many of `jobIds` still wait outside any submission (checked before storing one). */
  stillWaiting(jobIds: readonly string[]): number;
  /** Stores a new submission with its bytes and takes `jobIds` into it; its queue's state row exists after. */
  insertBatch(batch: Batch, peticion: string, jobIds: readonly string[]): void;
  updateBatch(idLote: string, changes: Partial<Omit<Batch, 'id'>>): void;
  /** Replaces a submission's stored bytes (a rebuilt request). */
  replaceRequest(idLote: string, peticion: string): void;
  /** Drops a submission's jobs; `settledOnly`: only those whose record has a verdict. */
  deleteJobs(idLote: string, settledOnly?: boolean): void;
  updateQueue(queueKey: string, changes: Partial<Omit<QueueState, 'queueKey'>>): void;
}
