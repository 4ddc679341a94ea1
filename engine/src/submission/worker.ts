import { sql } from 'kysely';
import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import type { SubmissionBatchesTable, SubmissionQueuesTable } from '../db/schema/submission';
import type { RegistroRow } from '../invoices/store';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { PollLoop } from '../platform/poll-loop';
import { AeatAdapter, type AeatEndpointConfig } from './aeat-adapter';
import type { AuthorityAdapter, Interpretation, OutgoingRecord } from './authority';
import { applyVerdicts, type Verdict, type VerdictItem } from './verdicts';

export type { AeatEndpointConfig } from './aeat-adapter';

export interface SubmissionConfig {
  aeat: AeatEndpointConfig;
  /** Back-off after failures: base and ceiling, with ±20 % jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Seconds a record may wait before its submission counts as late (Incidencia = S). */
  incidenciaAfterSeconds: number;
  /** How often an idle worker looks for due work (wake() cuts it short). */
  pollMs: number;
  /** Queues sent at the same time. */
  parallelQueues: number;
  random?: () => number;
}

export const DEFAULT_AEAT_EMULATOR_URL = 'http://127.0.0.1:8790/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP';

type Batch = SubmissionBatchesTable;
type QueueState = SubmissionQueuesTable;

/** Submissions one queue may chain back to back before its lane is handed to other queues. */
const PIPELINE_ROUNDS = 20;

/** The authority of a queue: its key is `entorno|autoridad|obligado`. */
function autoridadOf(queueKey: string): string {
  return queueKey.split('|')[1] ?? '';
}

/**
 * Files every committed record with AEAT: one queue per (environment, obligado), ≤ 1000 records a
 * submission, its exact bytes committed (with its idLote) before sending, TiempoEsperaEnvio
 * honoured unless 1000 records wait, transport failures retried with back-off forever. A
 * submission without a recorded answer (a crash, a time-out) is resent byte for byte; AEAT's
 * duplicate answers for it are reconciled into the original verdict.
 */
export class SubmissionWorker {
  private readonly inFlight = new Set<string>();
  private readonly adapters = new Map<string, AuthorityAdapter>();
  private readonly loop: PollLoop;
  /** Set by stop(): no new submission is chained onto one in flight. */
  private stopping = false;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
    private readonly config: SubmissionConfig,
  ) {
    this.register(new AeatAdapter(config.aeat));
    this.loop = new PollLoop('submission', () => this.tick(), () => this.config.pollMs, logger);
  }

  /** Adds an authority (TicketBAI treasuries register theirs). */
  register(adapter: AuthorityAdapter): void {
    this.adapters.set(adapter.autoridad, adapter);
  }

  private adapterFor(queueKey: string): AuthorityAdapter {
    const adapter = this.adapters.get(autoridadOf(queueKey));
    if (!adapter) throw new Error(`no authority adapter for queue ${queueKey}`);
    return adapter;
  }

  start(): void {
    this.stopping = false;
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
  }

  /** New work was committed: look now instead of at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** One pass: every due queue sends at most one submission. Returns how many were sent. */
  async tick(): Promise<number> {
    const due = this.dueQueues();
    let sent = 0;
    const lanes = Array.from({ length: Math.max(1, this.config.parallelQueues) }, async () => {
      for (let q = due.shift(); q !== undefined; q = due.shift()) {
        if (this.inFlight.has(q)) continue;
        this.inFlight.add(q);
        try {
          if (await this.processQueue(q)) sent += 1;
        } finally {
          this.inFlight.delete(q);
        }
      }
    });
    await Promise.all(lanes);
    return sent;
  }

  /** Runs ticks until nothing is due now (tests and shutdown drains). */
  async drainDue(maxTicks = 10_000): Promise<void> {
    for (let i = 0; i < maxTicks; i++) if ((await this.tick()) === 0) return;
  }

  private dueQueues(): string[] {
    const now = this.clock.now().toISOString();
    const paused = new Set(
      this.db.all(this.db.kysely.selectFrom('submission_control').select('entorno').where('pausado', '=', 1)).map((r) => r.entorno),
    );
    const queues = this.db.all(
      this.db.kysely.selectFrom('submission_jobs').select(['queueKey', 'entorno']).distinct(),
    );
    const out: string[] = [];
    for (const { queueKey, entorno } of queues) {
      if (paused.has(entorno)) continue;
      const state = this.queueState(queueKey);
      if (state?.reintentoEn && state.reintentoEn > now) continue;
      const open = this.openBatch(queueKey);
      if (open) {
        out.push(queueKey);
        continue;
      }
      const waitOver = !state?.siguienteEnvioEn || state.siguienteEnvioEn <= now;
      const full = this.adapters.get(autoridadOf(queueKey))?.maxRecords ?? 1;
      if (waitOver || this.pendingCount(queueKey, full) >= full) out.push(queueKey);
    }
    return out;
  }

  private queueState(queueKey: string): QueueState | undefined {
    return this.db.first(this.db.kysely.selectFrom('submission_queues').selectAll().where('queueKey', '=', queueKey));
  }

  private openBatch(queueKey: string, exceptId?: string): Batch | undefined {
    let q = this.db.kysely
      .selectFrom('submission_batches')
      .selectAll()
      .where('queueKey', '=', queueKey)
      .where('estado', '=', 'pendiente_respuesta');
    if (exceptId) q = q.where('id', '!=', exceptId);
    return this.db.first(q.orderBy('creadoEn').orderBy('id').limit(1));
  }

  private pendingCount(queueKey: string, cap: number): number {
    return this.db.all(
      this.db.kysely
        .selectFrom('submission_jobs')
        .select('id')
        .where('queueKey', '=', queueKey)
        .where('estado', '=', 'pendiente')
        .limit(cap),
    ).length;
  }

  /** Sends the queue's open submission, or builds the next one. True when something was sent. */
  /**
   * Sends the queue's open submission, or builds the next one; true when something was sent.
   * While the authority lets the queue go on at once (TiempoEsperaEnvio 0, or a full submission
   * waiting), the next submission is built and sent before the previous answer is applied, so
   * the local bookkeeping overlaps the authority's work. Order is kept: a submission leaves only
   * after the answer to the one before it has arrived; a crash in between resends both, oldest
   * first, and their duplicates are reconciled.
   */
  private async processQueue(queueKey: string): Promise<boolean> {
    const adapter = this.adapterFor(queueKey);
    let batch = this.openBatch(queueKey) ?? this.buildBatch(queueKey, adapter);
    if (!batch) return false;
    let inFlight = this.sendBatch(adapter, batch);
    for (let round = 0; round < PIPELINE_ROUNDS; round++) {
      const result = await inFlight;
      if (result.kind === 'failed') {
        this.recordFailure(batch, result.error);
        return true;
      }
      const { outcome, raw } = result;
      let next: Batch | undefined;
      if (outcome.kind === 'verdicts' && !this.stopping && !this.isPaused(batch.entorno)) {
        const full = this.pendingCount(queueKey, adapter.maxRecords) >= adapter.maxRecords;
        // An older submission still unanswered (after a crash) goes before any new one.
        if (outcome.waitSeconds <= 0 || full) next = this.openBatch(queueKey, batch.id) ?? this.buildBatch(queueKey, adapter);
      }
      if (next) inFlight = this.sendBatch(adapter, next);
      if (outcome.kind === 'refused') this.refuseBatch(batch, outcome, raw);
      else this.applyReply(batch, outcome, raw);
      if (!next) return true;
      batch = next;
    }
    // Leave the last one in flight to be answered and applied before handing the lane back.
    const last = await inFlight;
    if (last.kind === 'failed') this.recordFailure(batch, last.error);
    else if (last.outcome.kind === 'refused') this.refuseBatch(batch, last.outcome, last.raw);
    else this.applyReply(batch, last.outcome, last.raw);
    return true;
  }

  private isPaused(entorno: Entorno): boolean {
    return (
      this.db.first(this.db.kysely.selectFrom('submission_control').select('pausado').where('entorno', '=', entorno))?.pausado === 1
    );
  }

  /** Marks the attempt (committed) and sends the stored bytes; never throws. */
  private async sendBatch(
    adapter: AuthorityAdapter,
    batch: Batch,
  ): Promise<{ kind: 'answered'; outcome: Interpretation; raw: string } | { kind: 'failed'; error: unknown }> {
    const now = this.clock.now().toISOString();
    this.db.transaction(() => {
      this.db.run(
        this.db.kysely
          .updateTable('submission_batches')
          .set({ intentos: batch.intentos + 1, enviadoEn: now })
          .where('id', '=', batch.id),
      );
      if (batch.intentos === 0) this.setEstadoEnvio(batch.id, 'en_cola', now);
    });
    try {
      const sent = await adapter.send(batch.entorno, batch.peticion);
      return { kind: 'answered', outcome: adapter.interpret(sent, this.outgoing(batch.id)), raw: sent.body };
    } catch (error) {
      return { kind: 'failed', error };
    }
  }

  /**
   * Takes the queue's waiting records in chain order, as many as one submission carries, and
   * commits the submission's exact bytes before anything is sent. A record the authority would
   * answer under the same key as one already in the submission waits for the next one.
   */
  private buildBatch(queueKey: string, adapter: AuthorityAdapter): Batch | undefined {
    return this.db.transaction(() => {
      const jobs = this.db.all(
        this.db.kysely
          .selectFrom('submission_jobs')
          .innerJoin('registros', 'registros.id', 'submission_jobs.registroId')
          .innerJoin('invoices', 'invoices.id', 'registros.invoiceId')
          .innerJoin('registro_documentos', 'registro_documentos.registroId', 'registros.id')
          .select([
            'submission_jobs.id as jobId',
            'registros.id as registroId',
            'registros.tipo',
            'registro_documentos.xml',
            'registros.creadoEn',
            'registros.entorno',
            'invoices.nifEmisor',
            'invoices.numeroFactura',
            'invoices.fechaExpedicion',
          ])
          .where('submission_jobs.queueKey', '=', queueKey)
          .where('submission_jobs.estado', '=', 'pendiente')
          // Jobs are written in the issuing transaction, so their rowid order is chain order.
          .orderBy(sql`submission_jobs.rowid`)
          .limit(adapter.maxRecords),
      );
      if (jobs.length === 0) return undefined;
      const seen = new Set<string>();
      const chosen: typeof jobs = [];
      for (const job of jobs) {
        const key = adapter.lineKey(job);
        if (seen.has(key)) break;
        if (chosen[0] && adapter.sameSubmission && !adapter.sameSubmission(chosen[0], job)) break;
        seen.add(key);
        chosen.push(job);
      }
      const first = chosen[0];
      if (!first) return undefined;
      const now = this.clock.now();
      const obligado = first.nifEmisor;
      const issuer = this.db.first(
        this.db.kysely.selectFrom('issuers').select('nombre').where('entorno', '=', first.entorno).where('nif', '=', obligado),
      );
      const late = now.getTime() - Date.parse(first.creadoEn) > this.config.incidenciaAfterSeconds * 1000;
      const peticion = adapter.build(
        chosen,
        { obligado: { nif: obligado, nombre: issuer?.nombre ?? obligado }, incidencia: late },
      );
      const batch: Batch = {
        id: this.ids.next('lote'),
        queueKey,
        entorno: first.entorno,
        autoridad: adapter.autoridad,
        obligado,
        numRegistros: chosen.length,
        incidencia: late ? 1 : 0,
        peticion,
        estado: 'pendiente_respuesta',
        intentos: 0,
        respuesta: null,
        csv: null,
        estadoEnvio: null,
        creadoEn: now.toISOString(),
        enviadoEn: null,
        respondidoEn: null,
        ultimoError: null,
      };
      this.db.run(this.db.kysely.insertInto('submission_batches').values(batch));
      this.db.run(
        this.db.kysely
          .updateTable('submission_jobs')
          .set({ estado: 'en_lote', idLote: batch.id })
          .where('id', 'in', chosen.map((j) => j.jobId)),
      );
      this.db.run(
        this.db.kysely
          .updateTable('registros')
          .set({ estadoEnvio: 'en_lote', idLote: batch.id, ultimaModificacion: batch.creadoEn })
          .where('id', 'in', chosen.map((j) => j.registroId)),
      );
      this.db.run(
        this.db.kysely
          .updateTable('invoices')
          .set({ estadoEnvio: 'en_lote' })
          .where('estadoFactura', 'is', null)
          .where('id', 'in', (eb) => eb.selectFrom('registros').select('invoiceId').where('idLote', '=', batch.id)),
      );
      this.ensureQueue(queueKey, batch.entorno, adapter.autoridad, obligado);
      return batch;
    });
  }

  private setEstadoEnvio(idLote: string, estadoEnvio: 'en_cola', now: string): void {
    this.db.run(
      this.db.kysely
        .updateTable('registros')
        .set({ estadoEnvio, ultimaModificacion: now })
        .where('idLote', '=', idLote)
        .where('estadoEnvioFinal', 'is', null),
    );
    this.db.run(
      this.db.kysely
        .updateTable('invoices')
        .set({ estadoEnvio })
        .where('estadoFactura', 'is', null)
        .where('estadoEnvio', '!=', 'rechazada')
        .where('id', 'in', (eb) => eb.selectFrom('registros').select('invoiceId').where('idLote', '=', idLote)),
    );
  }

  private ensureQueue(queueKey: string, entorno: Entorno, autoridad: string, obligado: string): void {
    this.db.run(
      this.db.kysely
        .insertInto('submission_queues')
        .values({
          queueKey,
          entorno,
          autoridad,
          obligado,
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

  private batchRegistros(idLote: string): (RegistroRow & { numeroFactura: string; fechaExpedicion: string })[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('submission_jobs')
        .innerJoin('registros', 'registros.id', 'submission_jobs.registroId')
        .innerJoin('invoices', 'invoices.id', 'registros.invoiceId')
        .selectAll('registros')
        .select(['invoices.numeroFactura', 'invoices.fechaExpedicion'])
        .where('submission_jobs.idLote', '=', idLote),
    );
  }

  /** The records of a submission as the adapter sees them. */
  private outgoing(idLote: string): OutgoingRecord[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('submission_jobs')
        .innerJoin('registros', 'registros.id', 'submission_jobs.registroId')
        .innerJoin('invoices', 'invoices.id', 'registros.invoiceId')
        .innerJoin('registro_documentos', 'registro_documentos.registroId', 'registros.id')
        .select([
          'registros.id as registroId',
          'registros.tipo',
          'registro_documentos.xml',
          'registros.entorno',
          'invoices.nifEmisor',
          'invoices.numeroFactura',
          'invoices.fechaExpedicion',
          'registros.creadoEn',
        ])
        .where('submission_jobs.idLote', '=', idLote),
    );
  }

  private applyReply(batch: Batch, reply: Extract<Interpretation, { kind: 'verdicts' }>, raw: string): void {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    this.db.transaction(() => {
      const unanswered: string[] = [];
      const items: VerdictItem[] = [];
      for (const registro of this.batchRegistros(batch.id)) {
        const verdict = reply.verdicts.get(registro.id);
        if (verdict) items.push({ registro, verdict });
        else unanswered.push(registro.id);
      }
      applyVerdicts(this.db, this.ids, items, { idLote: batch.id, now: nowIso });
      // A record the answer does not mention goes back to the queue; if the authority did
      // register it, the resend is answered as a duplicate and reconciled.
      if (unanswered.length > 0) {
        this.db.run(
          this.db.kysely
            .updateTable('submission_jobs')
            .set({ estado: 'pendiente', idLote: null })
            .where('registroId', 'in', unanswered),
        );
      }
      this.db.run(this.db.kysely.deleteFrom('submission_jobs').where('idLote', '=', batch.id));
      this.db.run(
        this.db.kysely
          .updateTable('submission_batches')
          .set({ estado: 'respondido', respuesta: raw, csv: reply.csv ?? null, estadoEnvio: reply.estadoEnvio ?? null, respondidoEn: nowIso, ultimoError: null })
          .where('id', '=', batch.id),
      );
      this.db.run(
        this.db.kysely
          .updateTable('submission_queues')
          .set({
            siguienteEnvioEn: new Date(now.getTime() + reply.waitSeconds * 1000).toISOString(),
            reintentoEn: null,
            fallosSeguidos: 0,
            alcanzable: 1,
          })
          .where('queueKey', '=', batch.queueKey),
      );
    });
  }

  /** The whole submission was refused for its content: every record in it is rejected (final). */
  private refuseBatch(batch: Batch, refusal: { codigo: string; descripcion: string }, raw: string | null = null): void {
    const nowIso = this.clock.now().toISOString();
    this.db.transaction(() => {
      const verdict: Verdict = { kind: 'rechazado', codigo: refusal.codigo, descripcion: refusal.descripcion };
      applyVerdicts(
        this.db,
        this.ids,
        this.batchRegistros(batch.id).map((registro) => ({ registro, verdict })),
        { idLote: batch.id, now: nowIso },
      );
      this.db.run(this.db.kysely.deleteFrom('submission_jobs').where('idLote', '=', batch.id));
      this.db.run(
        this.db.kysely
          .updateTable('submission_batches')
          .set({ estado: 'rechazado', respuesta: raw, respondidoEn: nowIso, ultimoError: `${refusal.codigo}: ${refusal.descripcion}` })
          .where('id', '=', batch.id),
      );
      this.db.run(
        this.db.kysely
          .updateTable('submission_queues')
          .set({ reintentoEn: null, fallosSeguidos: 0, alcanzable: 1, ultimoError: refusal.descripcion, ultimoErrorEn: nowIso })
          .where('queueKey', '=', batch.queueKey),
      );
    });
  }

  private recordFailure(batch: Batch, error: unknown): void {
    const now = this.clock.now();
    const message = error instanceof Error ? error.message : String(error);
    const state = this.queueState(batch.queueKey);
    const failures = (state?.fallosSeguidos ?? 0) + 1;
    const base = Math.min(this.config.backoffMaxMs, this.config.backoffBaseMs * 2 ** Math.min(failures - 1, 20));
    const jitter = 1 + ((this.config.random ?? Math.random)() * 0.4 - 0.2);
    const retryAt = new Date(now.getTime() + Math.round(base * jitter)).toISOString();
    this.logger.warn('submission failed, will resend the same bytes', { idLote: batch.id, error: message, retryAt });
    this.db.transaction(() => {
      this.db.run(this.db.kysely.updateTable('submission_batches').set({ ultimoError: message }).where('id', '=', batch.id));
      this.db.run(
        this.db.kysely
          .updateTable('submission_queues')
          .set({ fallosSeguidos: failures, reintentoEn: retryAt, alcanzable: 0, ultimoError: message, ultimoErrorEn: now.toISOString() })
          .where('queueKey', '=', batch.queueKey),
      );
    });
  }
}
