import type { Entorno } from '../../../src-shared/api/common';
import type { Database, RawStatement } from '../db/database';
import type { Batch, OutboxStore, OutgoingJob, QueueState } from './outbox-store';
import { VERDICT_RECORD_COLUMNS, type VerdictRecord } from './record-states';

/** Jobs joined to their records; ordered by the job's rowid, which is chain order (jobs are written in the issuing transaction). */
const OUTGOING_JOBS = `
  SELECT j.id AS jobId, r.id AS registroId, r.tipo, d.xml, r.creadoEn, r.entorno, i.nifEmisor, i.numeroFactura, i.fechaExpedicion
  FROM submission_jobs j
  JOIN registros r ON r.id = j.registroId
  JOIN invoices i ON i.id = r.invoiceId
  JOIN registro_documentos d ON d.registroId = r.id`;

/** The outbox on SQLite: the statements every pass runs, prepared once (kysely compiling per call showed in the profile). */
export class SqliteOutboxStore implements OutboxStore {
  private readonly sql: {
    queuesWithJobs: RawStatement<{ queueKey: string; entorno: string }>;
    paused: RawStatement<{ entorno: string }>;
    pausedOne: RawStatement<{ pausado: number }>;
    queueState: RawStatement<QueueState>;
    openBatch: RawStatement<Batch>;
    openBatchExcept: RawStatement<Batch>;
    pendingAtLeast: RawStatement<{ n: number }>;
    stillPending: RawStatement<{ n: number }>;
    batchRecords: RawStatement<VerdictRecord>;
    waitingJobs: RawStatement<OutgoingJob>;
    batchJobs: RawStatement<OutgoingJob>;
    jobsIntoBatch: RawStatement;
    insertRequest: RawStatement;
    updateRequest: RawStatement;
    requestOf: RawStatement<{ peticion: string }>;
  };

  constructor(private readonly db: Database) {
    this.sql = {
      // The distinct queues by hopping through the (queueKey, estado) index, one seek per queue,
      // instead of reading every pending job (a backlog of 100 k jobs is 100 k index entries).
      queuesWithJobs: db.statement(`
        WITH RECURSIVE q(queueKey) AS (
          SELECT (SELECT MIN(queueKey) FROM submission_jobs)
          UNION ALL
          SELECT (SELECT MIN(queueKey) FROM submission_jobs WHERE queueKey > q.queueKey) FROM q WHERE q.queueKey IS NOT NULL
        )
        SELECT queueKey, (SELECT entorno FROM submission_jobs j WHERE j.queueKey = q.queueKey LIMIT 1) AS entorno
        FROM q WHERE queueKey IS NOT NULL`),
      paused: db.statement('SELECT entorno FROM submission_control WHERE pausado = 1'),
      pausedOne: db.statement('SELECT pausado FROM submission_control WHERE entorno = ?'),
      queueState: db.statement('SELECT * FROM submission_queues WHERE queueKey = ?'),
      openBatch: db.statement(
        "SELECT * FROM submission_batches WHERE queueKey = ? AND estado = 'pendiente_respuesta' ORDER BY creadoEn, id LIMIT 1",
      ),
      openBatchExcept: db.statement(
        "SELECT * FROM submission_batches WHERE queueKey = ? AND estado = 'pendiente_respuesta' AND id != ? ORDER BY creadoEn, id LIMIT 1",
      ),
      // Counted in SQLite up to the cap: no row reaches JavaScript.
      pendingAtLeast: db.statement(
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM submission_jobs WHERE queueKey = ? AND estado = 'pendiente' LIMIT ?) AS pendientes",
      ),
      stillPending: db.statement(
        "SELECT COUNT(*) AS n FROM submission_jobs WHERE id IN (SELECT value FROM json_each(?)) AND estado = 'pendiente' AND idLote IS NULL",
      ),
      // A submission's records in chain order (jobs are written in the issuing transaction), with
      // only the columns applying a verdict reads.
      batchRecords: db.statement(`
        SELECT ${VERDICT_RECORD_COLUMNS.map((c) => `r.${c}`).join(', ')} FROM submission_jobs j JOIN registros r ON r.id = j.registroId
        WHERE j.idLote = ? ORDER BY j.rowid`),
      // A queue's waiting jobs and a submission's jobs, with what an adapter needs of their records.
      waitingJobs: db.statement(`${OUTGOING_JOBS} WHERE j.queueKey = ? AND j.estado = 'pendiente' ORDER BY j.rowid LIMIT ?`),
      batchJobs: db.statement(`${OUTGOING_JOBS} WHERE j.idLote = ? ORDER BY j.rowid`),
      // A thousand ids as one JSON array: no SQL with a thousand parameters built per submission.
      jobsIntoBatch: db.statement(
        "UPDATE submission_jobs SET estado = 'en_lote', idLote = ? WHERE id IN (SELECT value FROM json_each(?))",
      ),
      insertRequest: db.statement('INSERT INTO submission_requests (idLote, peticion) VALUES (?, ?)'),
      updateRequest: db.statement('UPDATE submission_requests SET peticion = ? WHERE idLote = ?'),
      requestOf: db.statement('SELECT peticion FROM submission_requests WHERE idLote = ?'),
    };
  }

  pausedEntornos(): string[] {
    return this.sql.paused.all().map((r) => r.entorno);
  }

  isPaused(entorno: Entorno): boolean {
    return this.sql.pausedOne.get(entorno)?.pausado === 1;
  }

  queuesWithJobs(): { queueKey: string; entorno: string }[] {
    return this.sql.queuesWithJobs.all();
  }

  queueState(queueKey: string): QueueState | undefined {
    return this.sql.queueState.get(queueKey);
  }

  openBatch(queueKey: string, exceptId?: string): Batch | undefined {
    return exceptId === undefined ? this.sql.openBatch.get(queueKey) : this.sql.openBatchExcept.get(queueKey, exceptId);
  }

  pendingCount(queueKey: string, cap: number): number {
    return this.sql.pendingAtLeast.get(queueKey, cap)?.n ?? 0;
  }

  waitingJobs(queueKey: string, limit: number): OutgoingJob[] {
    return this.sql.waitingJobs.all(queueKey, limit);
  }

  batchJobs(idLote: string): OutgoingJob[] {
    return this.sql.batchJobs.all(idLote);
  }

  batchRecords(idLote: string): VerdictRecord[] {
    return this.sql.batchRecords.all(idLote);
  }

  requestOf(idLote: string): string | undefined {
    return this.sql.requestOf.get(idLote)?.peticion;
  }

  oldestOpenRecord(idLote: string): string | undefined {
    const row = this.db.first(
      this.db.kysely
        .selectFrom('registros')
        .select((eb) => eb.fn.min('creadoEn').as('oldest'))
        .where('idLote', '=', idLote)
        .where('estadoEnvioFinal', 'is', null),
    );
    return row?.oldest ?? undefined;
  }

  obligadoNombre(entorno: Entorno, nif: string): string | undefined {
    return this.db.first(this.db.kysely.selectFrom('issuers').select('nombre').where('entorno', '=', entorno).where('nif', '=', nif))?.nombre;
  }

  stillWaiting(jobIds: readonly string[]): number {
    return this.sql.stillPending.get(JSON.stringify(jobIds))?.n ?? 0;
  }

  insertBatch(batch: Batch, peticion: string, jobIds: readonly string[]): void {
    this.db.run(this.db.kysely.insertInto('submission_batches').values(batch));
    this.sql.insertRequest.run(batch.id, peticion);
    this.sql.jobsIntoBatch.run(batch.id, JSON.stringify(jobIds));
    this.db.run(
      this.db.kysely
        .insertInto('submission_queues')
        .values({
          queueKey: batch.queueKey,
          entorno: batch.entorno,
          autoridad: batch.autoridad,
          obligado: batch.obligado,
          siguienteEnvioEn: null,
          reintentoEn: null,
          fallosSeguidos: 0,
          ultimoError: null,
          ultimoErrorEn: null,
          alcanzable: null,
        })
        .onConflict((oc) => oc.column('queueKey').doNothing()),
    );
  }

  updateBatch(idLote: string, changes: Partial<Omit<Batch, 'id'>>): void {
    this.db.run(this.db.kysely.updateTable('submission_batches').set(changes).where('id', '=', idLote));
  }

  replaceRequest(idLote: string, peticion: string): void {
    this.sql.updateRequest.run(peticion, idLote);
  }

  deleteJobs(idLote: string, settledOnly = false): void {
    if (!settledOnly) {
      this.db.run(this.db.kysely.deleteFrom('submission_jobs').where('idLote', '=', idLote));
      return;
    }
    this.db.run(
      this.db.kysely
        .deleteFrom('submission_jobs')
        .where('idLote', '=', idLote)
        .where('registroId', 'in', (eb) => eb.selectFrom('registros').select('id').where('idLote', '=', idLote).where('estadoEnvioFinal', 'is not', null)),
    );
  }

  updateQueue(queueKey: string, changes: Partial<Omit<QueueState, 'queueKey'>>): void {
    this.db.run(this.db.kysely.updateTable('submission_queues').set(changes).where('queueKey', '=', queueKey));
  }
}
