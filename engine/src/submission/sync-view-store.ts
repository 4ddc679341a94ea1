import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import type { SubmissionBatchesTable, SubmissionQueuesTable } from '../db/schema/submission';

/**
 * The support staff's sync view: what waits, per state, queue and till, and the submissions with
 * their bytes; "retry now" and the pause. A read model over the outbox and the ledger's records
 * (one query each, grouped in the database), so the panel's routes hold no SQL. Plain kysely:
 * nothing here is SQLite's own.
 */
export class SyncViewStore {
  constructor(private readonly db: Database) {}

  pausedEntornos(): string[] {
    return this.db.all(this.db.kysely.selectFrom('submission_control').select('entorno').where('pausado', '=', 1)).map((r) => r.entorno);
  }

  /** Records without a final state, counted per environment and estadoEnvio. */
  inFlightByEstadoEnvio(): { entorno: Entorno; estadoEnvio: string; n: number }[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('registros')
        .select(['entorno', 'estadoEnvio', (eb) => eb.fn.countAll<number>().as('n')])
        .where('estadoEnvioFinal', 'is', null)
        .groupBy(['entorno', 'estadoEnvio']),
    );
  }

  /**
   * Rejections still standing per environment: a rejected record that a later record of its
   * invoice (the correction, the cancellation) has not superseded.
   */
  standingRejections(): { entorno: Entorno; n: number }[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('registros as r')
        .select(['r.entorno', (eb) => eb.fn.countAll<number>().as('n')])
        .where('r.estadoEnvioFinal', '=', 'rechazada')
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('registros as l').select('l.id').whereRef('l.invoiceId', '=', 'r.invoiceId').whereRef('l.creadoEn', '>', 'r.creadoEn'))),
        )
        .groupBy('r.entorno'),
    );
  }

  /** Per queue: how many records wait and since when (the oldest one's creation). */
  waitingByQueue(): { queueKey: string; n: number; desde: string | null }[] {
    return this.db
      .all(
        this.db.kysely
          .selectFrom('submission_jobs as j')
          .innerJoin('registros as r', 'r.id', 'j.registroId')
          .select(['j.queueKey', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('r.creadoEn').as('desde')])
          .groupBy('j.queueKey'),
      )
      .map((r) => ({ queueKey: r.queueKey, n: Number(r.n), desde: r.desde as string | null }));
  }

  queues(): SubmissionQueuesTable[] {
    return this.db.all(this.db.kysely.selectFrom('submission_queues').selectAll().orderBy('queueKey'));
  }

  /** Records without a final state per till (device); a «NO VERI*FACTU» record (no_remitida) is kept, never sent: it waits for nothing. */
  waitingByDevice(): { entorno: Entorno; nifEmisor: string; idMaquina: string | null; n: number }[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('registros')
        .select(['entorno', 'nifEmisor', 'idMaquina', (eb) => eb.fn.countAll<number>().as('n')])
        .where('estadoEnvioFinal', 'is', null)
        .where('estadoEnvio', '!=', 'no_remitida')
        .groupBy(['entorno', 'nifEmisor', 'idMaquina'])
        .orderBy('entorno')
        .orderBy('nifEmisor')
        .orderBy('idMaquina'),
    );
  }

  latestBatches(limit: number): SubmissionBatchesTable[] {
    return this.db.all(this.db.kysely.selectFrom('submission_batches').selectAll().orderBy('creadoEn', 'desc').limit(limit));
  }

  batchWithRequest(idLote: string): (SubmissionBatchesTable & { peticion: string }) | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('submission_batches as b')
        .innerJoin('submission_requests as p', 'p.idLote', 'b.id')
        .selectAll('b')
        .select('p.peticion')
        .where('b.id', '=', idLote),
    );
  }

  /** The queue a waiting record of the invoice is blocked in (a fault that needs a person), if any. */
  queueBlockOfInvoice(invoiceId: string): Pick<SubmissionQueuesTable, 'codigoBloqueo' | 'ultimoError' | 'ultimoErrorEn' | 'reintentoEn'> | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('registros as r')
        .innerJoin('submission_jobs as j', 'j.registroId', 'r.id')
        .innerJoin('submission_queues as q', 'q.queueKey', 'j.queueKey')
        .select(['q.codigoBloqueo', 'q.ultimoError', 'q.ultimoErrorEn', 'q.reintentoEn'])
        .where('r.invoiceId', '=', invoiceId)
        .where('q.codigoBloqueo', 'is not', null)
        .limit(1),
    );
  }

  /** "Retry now": lifts the back-off of one queue, or of all; returns how many queues. */
  clearBackoff(queueKey?: string): number {
    let q = this.db.kysely.updateTable('submission_queues').set({ reintentoEn: null });
    if (queueKey) q = q.where('queueKey', '=', queueKey);
    return this.db.run(q);
  }

  setPaused(entorno: Entorno, pausado: boolean): void {
    this.db.run(
      this.db.kysely
        .insertInto('submission_control')
        .values({ entorno, pausado: pausado ? 1 : 0 })
        .onConflict((oc) => oc.column('entorno').doUpdateSet({ pausado: pausado ? 1 : 0 })),
    );
  }
}
