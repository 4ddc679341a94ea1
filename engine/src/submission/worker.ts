import { sql } from 'kysely';
import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import type { SubmissionBatchesTable, SubmissionQueuesTable } from '../db/schema/submission';
import type { RegistroRow } from '../invoices/store';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { buildRegFactuSoapEnvelope, MAX_REGISTROS_POR_ENVIO } from '../verifactu/soap';
import { MalformedReply, parseAeatReply, type AeatReply, type RespuestaLinea } from './aeat-reply';
import { postSoap, TransportError, type TlsClientConfig } from './transport';
import { applyVerdicts, type Verdict, type VerdictItem } from './verdicts';

export interface AeatEndpointConfig {
  url: Record<Entorno, string>;
  timeoutMs: number;
  tls?: TlsClientConfig | undefined;
}

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

/** A SOAP Fault of kind Client: the whole submission is refused for its content (final). */
class SubmissionRefused extends Error {
  constructor(
    readonly codigo: string,
    readonly descripcion: string,
  ) {
    super(descripcion);
  }
}

function lineKey(operacion: 'Alta' | 'Anulacion', nif: string, numSerie: string, fecha: string): string {
  return `${operacion}|${nif}|${numSerie}|${fecha}`;
}

/**
 * Files every committed record with AEAT: one queue per (environment, obligado), ≤ 1000 records a
 * submission, its exact bytes committed (with its idLote) before sending, TiempoEsperaEnvio
 * honoured unless 1000 records wait, transport failures retried with back-off forever. A
 * submission without a recorded answer (a crash, a time-out) is resent byte for byte; AEAT's
 * duplicate answers for it are reconciled into the original verdict.
 */
export class SubmissionWorker {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = true;
  private readonly inFlight = new Set<string>();
  private current: Promise<unknown> = Promise.resolve();
  private wakeRequested = false;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
    private readonly config: SubmissionConfig,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current.catch(() => undefined);
  }

  /** New work was committed: look now instead of at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = true;
      this.current = this.tick()
        .catch((error: unknown) => this.logger.error('submission tick failed', { error: String(error) }))
        .finally(() => {
          this.running = false;
          const again = this.wakeRequested;
          this.wakeRequested = false;
          this.schedule(again ? 0 : this.config.pollMs);
        });
    }, delayMs);
    this.timer.unref?.();
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
      if (waitOver || this.pendingCount(queueKey, MAX_REGISTROS_POR_ENVIO) >= MAX_REGISTROS_POR_ENVIO) out.push(queueKey);
    }
    return out;
  }

  private queueState(queueKey: string): QueueState | undefined {
    return this.db.first(this.db.kysely.selectFrom('submission_queues').selectAll().where('queueKey', '=', queueKey));
  }

  private openBatch(queueKey: string): Batch | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('submission_batches')
        .selectAll()
        .where('queueKey', '=', queueKey)
        .where('estado', '=', 'pendiente_respuesta')
        .orderBy('creadoEn')
        .limit(1),
    );
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
  private async processQueue(queueKey: string): Promise<boolean> {
    const batch = this.openBatch(queueKey) ?? this.buildBatch(queueKey);
    if (!batch) return false;
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
    let reply: AeatReply;
    let raw: string;
    try {
      ({ reply, raw } = await this.send(batch));
    } catch (error) {
      if (error instanceof SubmissionRefused) {
        this.refuseBatch(batch, error);
        return true;
      }
      this.recordFailure(batch, error);
      return true;
    }
    if (reply.kind === 'fault') {
      // Client faults are final for this content; Server faults are transient.
      if (/client/i.test(reply.faultcode)) this.refuseBatch(batch, new SubmissionRefused(reply.codigo ?? 'FAULT', reply.faultstring), raw);
      else this.recordFailure(batch, new TransportError(`SOAP Fault ${reply.faultcode}: ${reply.faultstring}`));
      return true;
    }
    this.applyReply(batch, reply, raw);
    return true;
  }

  private async send(batch: Batch): Promise<{ reply: AeatReply; raw: string }> {
    const url = this.config.aeat.url[batch.entorno];
    const result = await postSoap(url, batch.peticion, { timeoutMs: this.config.aeat.timeoutMs, tls: this.config.aeat.tls });
    let parsed: AeatReply;
    try {
      parsed = parseAeatReply(result.body);
    } catch (error) {
      if (error instanceof MalformedReply) throw new TransportError(`HTTP ${result.status}: ${error.message}`);
      throw error;
    }
    if (result.status !== 200 && parsed.kind !== 'fault') throw new TransportError(`HTTP ${result.status}`);
    return { reply: parsed, raw: result.body };
  }

  /**
   * Takes up to 1000 waiting records of the queue in chain order and commits the submission's
   * exact bytes before anything is sent. A record whose IDFactura and operation already travel
   * in this submission waits for the next one (AEAT answers per IDFactura).
   */
  private buildBatch(queueKey: string): Batch | undefined {
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
          .limit(MAX_REGISTROS_POR_ENVIO),
      );
      if (jobs.length === 0) return undefined;
      const seen = new Set<string>();
      const chosen: typeof jobs = [];
      for (const job of jobs) {
        const key = lineKey(job.tipo === 'anulacion' ? 'Anulacion' : 'Alta', job.nifEmisor, job.numeroFactura, job.fechaExpedicion);
        if (seen.has(key)) break;
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
      const peticion = buildRegFactuSoapEnvelope({
        obligado: { nombreRazon: issuer?.nombre ?? obligado, nif: obligado },
        incidencia: late,
        registros: chosen.map((j) => j.xml),
      });
      const batch: Batch = {
        id: this.ids.next('lote'),
        queueKey,
        entorno: first.entorno,
        autoridad: 'aeat',
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
      this.ensureQueue(queueKey, batch.entorno, obligado);
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

  private ensureQueue(queueKey: string, entorno: Entorno, obligado: string): void {
    this.db.run(
      this.db.kysely
        .insertInto('submission_queues')
        .values({
          queueKey,
          entorno,
          autoridad: 'aeat',
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

  private applyReply(batch: Batch, reply: Extract<AeatReply, { kind: 'respuesta' }>, raw: string): void {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    this.db.transaction(() => {
      const lines = new Map<string, RespuestaLinea>();
      for (const line of reply.lineas) {
        lines.set(lineKey(line.operacion, line.idEmisorFactura, line.numSerieFactura, line.fechaExpedicionFactura), line);
      }
      const unanswered: string[] = [];
      const items: VerdictItem[] = [];
      for (const registro of this.batchRegistros(batch.id)) {
        const operacion = registro.tipo === 'anulacion' ? 'Anulacion' : 'Alta';
        const line = lines.get(lineKey(operacion, registro.nifEmisor, registro.numeroFactura, registro.fechaExpedicion));
        if (line) items.push({ registro, verdict: verdictOf(line, reply.csv) });
        else unanswered.push(registro.id);
      }
      applyVerdicts(this.db, this.ids, items, { idLote: batch.id, now: nowIso });
      // A record the answer does not mention goes back to the queue; if AEAT did register it,
      // the resend is answered as a duplicate and reconciled.
      if (unanswered.length > 0) {
        this.db.run(
          this.db.kysely
            .updateTable('submission_jobs')
            .set({ estado: 'pendiente', idLote: null })
            .where('registroId', 'in', unanswered),
        );
      }
      this.db.run(
        this.db.kysely
          .deleteFrom('submission_jobs')
          .where('idLote', '=', batch.id)
          .where('registroId', 'not in', unanswered.length > 0 ? unanswered : ['']),
      );
      this.db.run(
        this.db.kysely
          .updateTable('submission_batches')
          .set({ estado: 'respondido', respuesta: raw, csv: reply.csv ?? null, estadoEnvio: reply.estadoEnvio, respondidoEn: nowIso, ultimoError: null })
          .where('id', '=', batch.id),
      );
      this.db.run(
        this.db.kysely
          .updateTable('submission_queues')
          .set({
            siguienteEnvioEn: new Date(now.getTime() + reply.tiempoEsperaEnvio * 1000).toISOString(),
            reintentoEn: null,
            fallosSeguidos: 0,
            alcanzable: 1,
          })
          .where('queueKey', '=', batch.queueKey),
      );
    });
  }

  /** The whole submission was refused for its content: every record in it is rejected (final). */
  private refuseBatch(batch: Batch, refusal: SubmissionRefused, raw: string | null = null): void {
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

/** The verdict a RespuestaLinea gives, duplicates reconciled to the original one. */
export function verdictOf(line: RespuestaLinea, csv: string | undefined): Verdict {
  // A duplicate of what AEAT holds: our earlier send of these bytes went through (a crash or a
  // lost answer); its original verdict stands. `Anulada` means the key is held, cancelled.
  if (line.codigo === '3000' && line.duplicado) {
    const original = line.duplicado;
    return { kind: 'aceptado', conErrores: original.estado === 'AceptadaConErrores', codigo: original.codigo, descripcion: original.descripcion };
  }
  // Cancelling what AEAT already holds as cancelled: our own earlier cancellation went through.
  if (line.codigo === '3001' && line.operacion === 'Anulacion') return { kind: 'aceptado', conErrores: false };
  if (line.estado === 'Incorrecto') {
    return { kind: 'rechazado', codigo: line.codigo ?? '', descripcion: line.descripcion ?? '' };
  }
  return {
    kind: 'aceptado',
    conErrores: line.estado === 'AceptadoConErrores',
    codigo: line.codigo,
    descripcion: line.descripcion,
    csv,
  };
}
