import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import { workOwnershipOf, type WorkOwnership } from '../db/work-ownership';
import { afterPendingEvents, type WriteTurns } from '../db/write-priority';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { PollLoop } from '../platform/poll-loop';
import { SubmissionBlocked, type AuthorityAdapter, type Interpretation, type OutgoingRecord, type Verdict } from '../core/authority';
import { motivoBloqueo } from './blocked';
import { DEFAULT_BLOCKED_RETRY_MS, type SubmissionConfig } from './config';
import type { Batch, OutboxStore, OutgoingJob } from './outbox-store';
import { outboxStoreOf, recordStatesOf } from './stores';
import type { RecordStates, VerdictRecord } from './record-states';
import { applyVerdicts, type VerdictItem } from './verdicts';

/** A submission with its exact request bytes (stored apart, in submission_requests). */
type BatchWithRequest = Batch & { peticion: string };

/** Submissions one queue may chain back to back before its lane is handed to other queues. */
const PIPELINE_ROUNDS = 20;

/**
 * Acceptances applied per write transaction while issuing is busy. A 1,000-verdict answer in one
 * transaction held SQLite's write lock for ≈ 45 ms (p99 ≈ 150 ms), and every issuing commit
 * meanwhile waited; in chunks of this size each holds it a few ms (docs/benchmarks.md, "The
 * filing thread").
 */
export const VERDICTS_PER_TRANSACTION = 100;

/**
 * The request reaches the authority a little after we decide its header: a record this close to
 * the Incidencia limit already goes as late (an early S is harmless, a late N is not).
 */
const LATE_MARGIN_MS = 5_000;

/**
 * A submission about to leave; `built`: new, with its first attempt committed in the same
 * transaction, and `records` what it was built from (so its answer is matched without reading
 * them again).
 */
type NextSubmission =
  | { batch: Batch; built: false; ahead?: StoredAhead }
  | { batch: BatchWithRequest; built: true; records: OutgoingRecord[] };

/**
 * A full submission stored ahead of its turn (`en_lote`, no attempt counted), with the bytes and
 * records it was built from, kept so that its send reads neither again.
 */
interface StoredAhead {
  batch: BatchWithRequest;
  records: OutgoingRecord[];
}

/**
 * A queue's next submission read and built, not yet stored. `waiting`: how many waiting jobs the
 * read found (at most one submission's worth). Jobs only ever join after the existing ones, and
 * only this queue's builds take them, so while the queue still counts as many waiting jobs a
 * fresh read would choose the same records; the write transaction checks they still wait.
 */
interface Draft {
  chosen: OutgoingJob[];
  waiting: number;
  late: boolean;
  peticion: string;
}

type SendResult =
  | { kind: 'answered'; outcome: Interpretation; raw: string; records: number }
  | { kind: 'failed'; error: unknown }
  /** Not sent: this node no longer drives the queue (its connection was lost); the new owner resends. */
  | { kind: 'handed-over' };

// estadoEnvio of a record on its way out: see record-states.ts.

/** The authority of a queue: its key is `entorno|autoridad|obligado`. */
function autoridadOf(queueKey: string): string {
  return queueKey.split('|')[1] ?? '';
}

/**
 * Files every committed record with AEAT: one queue per (environment, obligado), ≤ 1000 records a
 * submission, its exact bytes committed (with its idLote) before every send, TiempoEsperaEnvio
 * honoured (resends included) unless 1000 records wait, transport failures and blocking faults
 * retried with back-off forever. A submission without a recorded answer (a crash, a time-out) is
 * resent byte for byte, unless its records have meanwhile become late (rebuilt with Incidencia S)
 * or an answer left some out (rebuilt with only those); the new bytes are committed first.
 * AEAT's duplicate answers to a resend are reconciled into the original verdict.
 */
export class SubmissionWorker {
  private readonly inFlight = new Set<string>();
  /** Each authority's adapter, by its `autoridad` (the middle part of a queue key). */
  private readonly adapters: Map<string, AuthorityAdapter>;
  private readonly loop: PollLoop;
  /** Set by stop(): no new submission is chained onto one in flight. */
  private stopping = false;
  /**
   * What the last pass learnt about queues that were not due: when each becomes due by time, and
   * how many more records would fill its next submission. A commit that enqueues into one of
   * them wakes the worker only when that room runs out; the earliest time sets the next pass. A
   * queue not in here (new, or just processed) wakes the worker at its next record.
   */
  private waiting = new Map<string, { dueAt: number; room: number }>();
  /** Jobs, submissions, their bytes and the queues' flow-control state. */
  private readonly outbox: OutboxStore;
  /** Where records and invoices move between the sending states. */
  private readonly records: RecordStates;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
    private readonly config: SubmissionConfig,
    /** Every authority it files with (the composition, filing/workers.ts, passes them all). */
    adapters: readonly AuthorityAdapter[],
    /** When each write transaction may take the lock (the filing thread lets issuing go first). */
    private readonly turns: WriteTurns = afterPendingEvents,
  ) {
    this.adapters = new Map(adapters.map((adapter) => [adapter.autoridad, adapter]));
    this.loop = new PollLoop('submission', () => this.tick(), () => this.nextPassInMs(), logger);
    this.outbox = outboxStoreOf(db);
    this.records = recordStatesOf(db);
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

  /**
   * `records` were committed into `queueKey` (the invoice store says so after COMMIT). Under load
   * most commits go into queues waiting out TiempoEsperaEnvio: those need no pass until their
   * submission is full or their time comes, so no pass (and no query) runs for them.
   */
  enqueued(queueKey: string, records = 1): void {
    const waiting = this.waiting.get(queueKey);
    if (waiting) {
      waiting.room -= records;
      if (waiting.room > 0) return;
      this.waiting.delete(queueKey);
    }
    this.loop.wake();
  }

  /** The idle poll, or sooner when a waiting queue becomes due before it. */
  private nextPassInMs(): number {
    let earliest = Infinity;
    for (const { dueAt } of this.waiting.values()) earliest = Math.min(earliest, dueAt);
    return Math.max(0, Math.min(this.config.pollMs, earliest - this.clock.now().getTime()));
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
          if (await this.processOwnedQueue(q)) sent += 1;
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

  /**
   * processQueue for a queue this node drives: taken first (no other node drives it meanwhile),
   * and whether it is due read again once taken — another node may have sent its submission
   * since this pass looked, and TiempoEsperaEnvio then runs from that answer. Given back after
   * the pass, so any live node may drive it next; a node that dies holding it loses it with its
   * connection, and the next one resends the open submission's stored bytes.
   */
  private async processOwnedQueue(queueKey: string): Promise<boolean> {
    // Not re-entrant within a process: tick's inFlight keeps one lane per queue.
    if (!this.ownership.tryTake('submission-queue', queueKey)) return false;
    try {
      const due = this.dueness(queueKey, this.outbox.isPaused(queueKey.split('|')[0] as Entorno), this.clock.now());
      if (due !== 'due') return false;
      return await this.processQueue(queueKey);
    } finally {
      this.releaseQueue(queueKey);
    }
  }

  /** Which queues this node drives (several nodes on one PostgreSQL; on SQLite, all of them). */
  private get ownership(): WorkOwnership {
    return workOwnershipOf(this.db);
  }

  private releaseQueue(queueKey: string): void {
    try {
      this.ownership.release('submission-queue', queueKey);
    } catch (error) {
      // The connection is gone, and the lock with it.
      this.logger.warn('could not release a submission queue', { queueKey, error: String(error) });
    }
  }

  private dueQueues(): string[] {
    const nowDate = this.clock.now();
    const paused = new Set(this.outbox.pausedEntornos());
    const waiting = new Map<string, { dueAt: number; room: number }>();
    const out: string[] = [];
    for (const { queueKey, entorno } of this.outbox.queuesWithJobs()) {
      const due = this.dueness(queueKey, paused.has(entorno), nowDate);
      if (due === 'due') out.push(queueKey);
      else waiting.set(queueKey, due);
    }
    this.waiting = waiting;
    return out;
  }

  /** Whether the queue may send now, else when it becomes due by time and how many records would fill it. */
  private dueness(queueKey: string, paused: boolean, nowDate: Date): 'due' | { dueAt: number; room: number } {
    // Resuming wakes the worker (panel), so a paused queue waits on nothing here.
    if (paused) return { dueAt: Infinity, room: Infinity };
    const now = nowDate.toISOString();
    const state = this.queueState(queueKey);
    if (state?.reintentoEn && state.reintentoEn > now) return { dueAt: Date.parse(state.reintentoEn), room: Infinity };
    const waitOver = !state?.siguienteEnvioEn || state.siguienteEnvioEn <= now;
    const full = this.adapters.get(autoridadOf(queueKey))?.maxRecords ?? 1;
    const dueAt = state?.siguienteEnvioEn ? Date.parse(state.siguienteEnvioEn) : nowDate.getTime();
    // A resend honours TiempoEsperaEnvio too; only a full submission may go before it ends.
    const open = this.openBatch(queueKey);
    if (open) {
      // New records do not change an open submission: only time makes it due.
      return waitOver || open.numRegistros >= full ? 'due' : { dueAt, room: Infinity };
    }
    const pending = this.pendingCount(queueKey, full);
    return waitOver || pending >= full ? 'due' : { dueAt, room: full - pending };
  }

  private queueState(queueKey: string) {
    return this.outbox.queueState(queueKey);
  }

  private openBatch(queueKey: string, exceptId?: string): Batch | undefined {
    return this.outbox.openBatch(queueKey, exceptId);
  }

  private pendingCount(queueKey: string, cap: number): number {
    return this.outbox.pendingCount(queueKey, cap);
  }

  /**
   * Sends the queue's open submission, or builds the next one; true when something was sent.
   * While the authority lets the queue go on at once (TiempoEsperaEnvio 0, or a full submission
   * waiting), the next submission is sent before the previous answer is applied, so the local
   * bookkeeping overlaps the authority's work. Order is kept: a submission leaves only after the
   * answer to the one before it has arrived and answered every line of it (lines left out are
   * resent first, in the same submission); a crash in between resends both, oldest first, and
   * their duplicates are reconciled.
   */
  private async processQueue(queueKey: string): Promise<boolean> {
    const adapter = this.adapterFor(queueKey);
    const first = await this.nextToSend(queueKey, adapter);
    if (!first) return false;
    let batch: Batch = first.batch;
    let inFlight = this.launch(adapter, first);
    let ready: Draft | undefined;
    let ahead: StoredAhead | undefined;
    for (let round = 0; ; round++) {
      const result = await inFlight;
      const next = round < PIPELINE_ROUNDS ? await this.nextToPipeline(queueKey, adapter, batch, result, ready, ahead) : undefined;
      ready = undefined;
      ahead = undefined;
      if (next) {
        let written!: () => void;
        const onWire = new Promise<void>((resolve) => (written = resolve));
        inFlight = this.launch(adapter, next, written);
        // Applying an answer blocks the event loop for a while: let the next request reach the
        // authority first, so both sides work at the same time.
        await Promise.race([onWire, inFlight]);
      }
      await this.settle(batch, result);
      if (!next) {
        // Its lane handed over at the round cap, not for want of work: the next pass runs at once
        // instead of after the idle poll (a backlog otherwise rested ≈ 250 ms every 20 submissions).
        if (round >= PIPELINE_ROUNDS) this.loop.wake();
        return true;
      }
      batch = next.batch;
      // The order rule keeps the submission after `next` home until `next`'s answer is in: read,
      // build and (when full) store it while the authority works, so it leaves as soon as that
      // answer allows.
      if (round + 1 < PIPELINE_ROUNDS && !this.stopping) ({ ready, ahead } = await this.prepareAhead(queueKey, adapter));
    }
  }

  /**
   * The queue's next submission, prepared while the authority works on the one before. A full one
   * is stored now, `en_lote` without an attempt (as a submission waiting out TiempoEsperaEnvio is):
   * what it holds could not change anyway (a full submission takes the oldest waiting records
   * and may leave at once), and then only its attempt is committed between the answer before
   * it and its send. A crash meanwhile leaves one more open submission, sent after the older
   * one as a first send (its attempt was never counted). Any other is only drafted: records
   * arriving meanwhile may still join it.
   */
  private async prepareAhead(queueKey: string, adapter: AuthorityAdapter): Promise<{ ready?: Draft; ahead?: StoredAhead }> {
    const draft = this.draftAhead(queueKey, adapter);
    if (!draft || draft.chosen.length < adapter.maxRecords) return { ready: draft };
    try {
      const ahead = await this.buildSubmission(queueKey, adapter, false, draft);
      // Its ≈ 2 MB (and the answer just applied) go to disk now, while the authority works: the
      // fsync before its send then has only its attempt to write. Not awaited: that fsync waits.
      if (ahead) void this.db.whenDurable().catch(() => {});
      return { ahead };
    } catch (error) {
      this.logger.warn('could not store the next submission ahead; it is built when due', { queueKey, error: String(error) });
      return {};
    }
  }

  /** draft() for later; a failure only means the submission is built when it is due, as without it. */
  private draftAhead(queueKey: string, adapter: AuthorityAdapter): Draft | undefined {
    try {
      return this.draft(queueKey, adapter, this.clock.now());
    } catch (error) {
      this.logger.warn('could not build the next submission ahead; it is built when due', { queueKey, error: String(error) });
      return undefined;
    }
  }

  /** The queue's oldest open submission, else a new one built with its first attempt. */
  private async nextToSend(queueKey: string, adapter: AuthorityAdapter): Promise<NextSubmission | undefined> {
    const open = this.openBatch(queueKey);
    return open ? { batch: open, built: false } : this.buildNew(queueKey, adapter);
  }

  private async buildNew(queueKey: string, adapter: AuthorityAdapter, ready?: Draft): Promise<NextSubmission | undefined> {
    const built = await this.buildSubmission(queueKey, adapter, true, ready);
    return built && { ...built, built: true };
  }

  /** Sends a submission: a new one as built (its attempt is committed with it), an open one marked first. */
  private launch(adapter: AuthorityAdapter, next: NextSubmission, onWritten?: () => void): Promise<SendResult> {
    // A new submission has never left: its records go as first sends.
    return next.built
      ? this.transmit(adapter, next.batch, next.batch.peticion, { id: next.batch.id, intentos: 0 }, onWritten, next.records)
      : this.sendBatch(adapter, next.batch, onWritten, next.ahead);
  }

  /** The submission that may leave now, before `answered`'s reply is applied, if any. */
  private async nextToPipeline(
    queueKey: string,
    adapter: AuthorityAdapter,
    answered: Batch,
    result: SendResult,
    ready: Draft | undefined,
    ahead: StoredAhead | undefined,
  ): Promise<NextSubmission | undefined> {
    if (result.kind !== 'answered' || result.outcome.kind !== 'verdicts') return undefined;
    if (this.stopping || this.isPaused(answered.entorno)) return undefined;
    const { outcome } = result;
    // Lines left out go again before anything newer (applyReply keeps them in this submission).
    if (outcome.verdicts.size < result.records) return undefined;
    // An older submission still unanswered (after a crash), or the one stored ahead, goes before any new one.
    const open = this.openBatch(queueKey, answered.id);
    if (open) {
      if (outcome.waitSeconds > 0 && open.numRegistros < adapter.maxRecords) return undefined;
      return { batch: open, built: false, ahead: ahead?.batch.id === open.id ? ahead : undefined };
    }
    const pending = this.pendingCount(queueKey, adapter.maxRecords);
    if (outcome.waitSeconds > 0 && pending < adapter.maxRecords) return undefined;
    // The draft built ahead stands for a fresh read while the queue holds what it read (Draft).
    return this.buildNew(queueKey, adapter, ready?.waiting === pending ? ready : undefined);
  }

  private async settle(batch: Batch, result: SendResult): Promise<void> {
    if (result.kind === 'handed-over') {
      this.logger.warn('another node drives the queue now: its submission is left to it', { idLote: batch.id, queueKey: batch.queueKey });
      return;
    }
    if (result.kind === 'failed') return this.recordFailure(batch, result.error);
    if (result.outcome.kind === 'refused') return this.refuseBatch(batch, result.outcome, result.raw);
    return this.applyReply(batch, result.outcome, result.raw);
  }

  /** One write transaction, in its turn (on the filing thread: after issuing's). */
  private write<T>(fn: () => T): Promise<T> {
    return this.turns.take(() => this.db.transaction(fn));
  }

  private isPaused(entorno: Entorno): boolean {
    return this.outbox.isPaused(entorno);
  }

  /**
   * Marks the attempt and sends the stored bytes; never throws. A submission whose oldest record
   * is now late but whose header says Incidencia N is rebuilt with S first, and the new bytes are
   * committed before they leave. Cheap when the authority is unreachable: a retry reads no records
   * and rewrites none (they stay `pendiente_envio`), so it never stalls the issuing requests.
   */
  private async sendBatch(adapter: AuthorityAdapter, batch: Batch, onWritten?: () => void, ahead?: StoredAhead): Promise<SendResult> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    // Taken before this attempt is counted: earlier attempts may have reached the authority unanswered.
    const before = { id: batch.id, intentos: batch.intentos };
    // Built before the write transaction: nothing changes a submission's records while it is
    // this queue's send in progress (one at a time per queue, on this worker).
    const stored = ahead ? ahead.batch.peticion : this.outbox.requestOf(batch.id);
    if (stored === undefined) throw new Error(`submission ${batch.id} has no stored request`);
    let peticion = stored;
    let { incidencia } = batch;
    // A submission stored ahead has never left: its records are all still open, as read.
    const late = ahead ? this.isLate(ahead.records, now) : this.oldestIsLate(batch.id, now);
    if (incidencia === 0 && late) {
      const rebuilt = this.request(adapter, batch, this.outgoing(before), true);
      // An authority without the notion (TicketBAI) builds the same bytes: nothing to change.
      if (rebuilt !== peticion) {
        peticion = rebuilt;
        incidencia = 1;
      }
    }
    await this.write(() => {
      this.outbox.updateBatch(batch.id, { intentos: batch.intentos + 1, enviadoEn: nowIso, incidencia });
      // The stored bytes (≈ 2 MB for 1,000 records) are rewritten only when they changed.
      if (peticion !== stored) this.outbox.replaceRequest(batch.id, peticion);
      Object.assign(batch, { intentos: batch.intentos + 1, enviadoEn: nowIso, incidencia });
    });
    // Only the attempt is committed before the send: its records' en_cola follows once the bytes
    // are on the wire, off the way between the answer before and this send.
    const markSent = () => this.markSent(batch.id, nowIso);
    return this.transmit(adapter, batch, peticion, before, onWritten, ahead && peticion === stored ? ahead.records : undefined, markSent);
  }

  /**
   * A submission's records that were waiting `en_lote` for its first attempt are now `en_cola`
   * (a resend finds them `pendiente_envio`, or already `en_cola`, and changes nothing). Only what
   * the sync view shows: a failure to write it is logged, and the answer settles the records.
   */
  private async markSent(idLote: string, nowIso: string): Promise<void> {
    try {
      await this.write(() => this.records.sent(idLote, nowIso));
    } catch (error) {
      this.logger.warn('could not mark a sent submission en_cola; its answer settles it', { idLote, error: String(error) });
    }
  }

  /**
   * Sends a submission whose attempt and bytes (`peticion`) are committed and reads the answer; never throws. `before`:
   * the attempts counted before this one (earlier ones may have reached the authority unanswered).
   * `built`: the records a new submission was just built from, exactly its jobs in chain order.
   */
  private async transmit(
    adapter: AuthorityAdapter,
    batch: Batch,
    peticion: string,
    before: Pick<Batch, 'id' | 'intentos'>,
    onWritten?: () => void,
    built?: readonly OutgoingRecord[],
    afterWire?: () => Promise<void>,
  ): Promise<SendResult> {
    try {
      // Its records were read from commits that may still be in their fsync (issuing's group
      // commit): nothing leaves for the authority before it is on disk here.
      await this.db.whenDurable();
      // Only the node driving the queue sends: a node whose connection (and lock) was lost while
      // it prepared this send leaves it to the node that took the queue over.
      if (!this.ownership.holds('submission-queue', batch.queueKey)) return { kind: 'handed-over' };
      let written!: () => void;
      const onWire = new Promise<void>((resolve) => (written = resolve));
      const sending = adapter.send(batch.entorno, peticion, () => {
        written();
        onWritten?.();
      });
      // The records are read while the authority works, not after its answer: nothing changes a
      // submission's records before its answer is applied (one send per queue at a time).
      await Promise.race([onWire, sending]);
      await afterWire?.();
      const records = built ?? this.outgoing(before);
      const sent = await sending;
      return { kind: 'answered', outcome: adapter.interpret(sent, records), raw: sent.body, records: records.length };
    } catch (error) {
      return { kind: 'failed', error };
    }
  }

  /** Whether the submission's oldest record is now past the Incidencia limit (one indexed read). */
  private oldestIsLate(idLote: string, now: Date): boolean {
    const oldest = this.outbox.oldestOpenRecord(idLote);
    return oldest ? this.isLate([{ creadoEn: oldest }], now) : false;
  }

  /** Whether the oldest record was generated longer ago than AEAT's Incidencia limit allows. */
  private isLate(records: readonly Pick<OutgoingRecord, 'creadoEn'>[], now: Date): boolean {
    if (records.length === 0) return false;
    // FechaHoraHusoGenRegistro has whole seconds: count from the second the record shows.
    const oldest = Math.min(...records.map((r) => Math.floor(Date.parse(r.creadoEn) / 1000) * 1000));
    return now.getTime() - oldest > this.config.incidenciaAfterSeconds * 1000 - LATE_MARGIN_MS;
  }

  /** The request for a submission's records, in chain order. */
  private request(adapter: AuthorityAdapter, batch: Pick<Batch, 'entorno' | 'obligado'>, records: readonly OutgoingRecord[], incidencia: boolean): string {
    const nombre = this.outbox.obligadoNombre(batch.entorno, batch.obligado);
    return adapter.build(records, { obligado: { nif: batch.obligado, nombre: nombre ?? batch.obligado }, incidencia });
  }

  /**
   * Takes the queue's waiting records in chain order, as many as one submission carries, and
   * commits the submission's exact bytes before anything is sent. A record the authority would
   * answer under the same key as one already in the submission waits for the next one.
   * `withAttempt`: the submission leaves at once, so its first attempt is committed in the same
   * transaction (records straight to `en_cola`). A crash after that commit leaves what a crash
   * between marking an attempt and sending it always left: an open submission with one attempt
   * counted, resent byte for byte with its records as possibly sent before. Without it the
   * submission waits `en_lote` for sendBatch to mark its first attempt.
   *
   * The records are read and the request built before the write transaction, which only inserts
   * and marks: jobs leave `pendiente` only here (issuing inserts them, each after every existing
   * one; nothing else writes them), and a queue builds one submission at a time. The
   * transaction checks that every chosen job is still waiting all the same, and builds nothing
   * if one is not (the next pass reads again).
   */
  private async buildBatch(queueKey: string, adapter: AuthorityAdapter, withAttempt = false): Promise<BatchWithRequest | undefined> {
    return (await this.buildSubmission(queueKey, adapter, withAttempt))?.batch;
  }

  /** buildBatch, with the records the submission was built from (its jobs, in chain order). */
  private async buildSubmission(
    queueKey: string,
    adapter: AuthorityAdapter,
    withAttempt: boolean,
    ready?: Draft,
  ): Promise<{ batch: BatchWithRequest; records: OutgoingRecord[] } | undefined> {
    const now = this.clock.now();
    let draft = ready ?? this.draft(queueKey, adapter, now);
    if (!draft) return undefined;
    // A draft built ahead has its header decided again now, as a fresh build would.
    if (this.isLate(draft.chosen, now) !== draft.late) draft = this.draftOf(draft.chosen, draft.waiting, adapter, now);
    const { chosen, late, peticion } = draft;
    const first = chosen[0]!;
    const obligado = first.nifEmisor;
    const row: Batch = {
      id: this.ids.next('lote'),
      queueKey,
      entorno: first.entorno,
      autoridad: adapter.autoridad,
      obligado,
      numRegistros: chosen.length,
      incidencia: late ? 1 : 0,
      estado: 'pendiente_respuesta',
      intentos: withAttempt ? 1 : 0,
      respuesta: null,
      csv: null,
      estadoEnvio: null,
      creadoEn: now.toISOString(),
      enviadoEn: withAttempt ? now.toISOString() : null,
      respondidoEn: null,
      ultimoError: null,
    };
    const batch: BatchWithRequest = { ...row, peticion };
    const jobIds = chosen.map((j) => j.jobId);
    return this.write(() => {
      if (this.outbox.stillWaiting(jobIds) !== chosen.length) {
        this.logger.warn('records chosen for a submission changed before it was stored; reading them again', { queueKey });
        return undefined;
      }
      this.outbox.insertBatch(row, peticion, jobIds);
      this.records.intoSubmission(batch.id, chosen.map((j) => j.registroId), withAttempt ? 'en_cola' : 'en_lote', batch.creadoEn);
      return { batch, records: chosen };
    });
  }

  /** The queue's next submission, read and built (no write): its waiting records in chain order, as many as one submission carries. */
  private draft(queueKey: string, adapter: AuthorityAdapter, now: Date): Draft | undefined {
    const jobs = this.outbox.waitingJobs(queueKey, adapter.maxRecords);
    const seen = new Set<string>();
    const chosen: OutgoingJob[] = [];
    for (const job of jobs) {
      // Waiting records have never left: a new submission is their first send.
      job.enviadoAntes = false;
      const key = adapter.lineKey(job);
      if (seen.has(key)) break;
      if (chosen[0] && adapter.sameSubmission && !adapter.sameSubmission(chosen[0], job)) break;
      seen.add(key);
      chosen.push(job);
    }
    return chosen.length === 0 ? undefined : this.draftOf(chosen, jobs.length, adapter, now);
  }

  private draftOf(chosen: OutgoingJob[], waiting: number, adapter: AuthorityAdapter, now: Date): Draft {
    const first = chosen[0]!;
    const late = this.isLate(chosen, now);
    return { chosen, waiting, late, peticion: this.request(adapter, { entorno: first.entorno, obligado: first.nifEmisor }, chosen, late) };
  }

  private batchRegistros(idLote: string): VerdictRecord[] {
    return this.outbox.batchRecords(idLote);
  }

  /**
   * The records of a submission as the adapter sees them. Any attempt of the submission so far may
   * have reached the authority without us hearing back, so its records count as sent before.
   */
  private outgoing(batch: Pick<Batch, 'id' | 'intentos'>): OutgoingRecord[] {
    const enviadoAntes = batch.intentos > 0;
    const rows = this.outbox.batchJobs(batch.id);
    for (const row of rows) row.enviadoAntes = enviadoAntes;
    return rows;
  }

  /**
   * Applies an answer. Lines the answer leaves out stay in this submission, which is rebuilt with
   * only them (committed here, before any resend) and goes again before anything newer, so the
   * chain order holds; being a resend, an "already registered" answer for them is reconciled.
   *
   * While tills issue, in short write transactions, so that issuing never waits long for the lock:
   * acceptances first, VERDICTS_PER_TRANSACTION at a time, then one closing transaction with the
   * rejections, the rest of the acceptances and the submission's own bookkeeping (while none
   * issues, that closing transaction takes everything). A crash between two leaves
   * the submission open with some of its records final; it is resent with the same bytes, the
   * authority answers "already registered" for those, and applyVerdicts skips them (final), so
   * each record gets one verdict and one event. Rejections wait for the closing transaction: a
   * record rejected and then resent after a crash could be accepted that time, so it may only
   * become final together with the submission. An acceptance that follows a rejection of the
   * same invoice waits with it, so each invoice's records apply in chain order.
   */
  private async applyReply(batch: Batch, reply: Extract<Interpretation, { kind: 'verdicts' }>, raw: string): Promise<void> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const registros = this.batchRegistros(batch.id);
    const early: VerdictItem[] = [];
    const closing: VerdictItem[] = [];
    const rejectedInvoices = new Set<string>();
    for (const registro of registros) {
      const verdict = reply.verdicts.get(registro.id);
      if (!verdict) continue;
      if (verdict.kind === 'rechazado') rejectedInvoices.add(registro.invoiceId);
      (verdict.kind === 'aceptado' && !rejectedInvoices.has(registro.invoiceId) ? early : closing).push({ registro, verdict });
    }
    if (early.length + closing.length === 0 && registros.length > 0) {
      // An answer about none of our records: retried like a failed send, with back-off.
      await this.recordFailure(batch, new Error(`la respuesta no trae ninguna línea de los ${registros.length} registros del envío`));
      return;
    }
    const context = { idLote: batch.id, now: nowIso };
    // The last chunk of acceptances closes with the rest, so no transaction is spent on nothing but
    // bookkeeping. While no till issues, nobody waits for the lock: the rest goes in that one
    // transaction (each page written once, one commit): ≈ a quarter less time per answer than in chunks.
    while (early.length > VERDICTS_PER_TRANSACTION && (this.turns.issuingBusy?.() ?? true)) {
      const chunk = early.splice(0, VERDICTS_PER_TRANSACTION);
      await this.write(() => applyVerdicts(this.records, this.ids, chunk, context));
    }
    const position = new Map(registros.map((r, i) => [r.id, i]));
    const last = [...early, ...closing].sort((a, b) => (position.get(a.registro.id) ?? 0) - (position.get(b.registro.id) ?? 0));
    // Lines left out go again: built before the closing transaction (nothing else changes them).
    const unanswered = registros.filter((r) => !reply.verdicts.has(r.id) && r.estadoEnvioFinal === null).map((r) => r.id);
    const resend = unanswered.length > 0 ? this.resendOf(batch, new Set(unanswered), now) : undefined;
    const queue = { siguienteEnvioEn: new Date(now.getTime() + reply.waitSeconds * 1000).toISOString(), reintentoEn: null, fallosSeguidos: 0, alcanzable: 1, codigoBloqueo: null };
    const answered = { respuesta: raw, csv: reply.csv ?? null, estadoEnvio: reply.estadoEnvio ?? null, respondidoEn: nowIso };
    await this.write(() => {
      applyVerdicts(this.records, this.ids, last, context);
      if (!resend) {
        this.outbox.deleteJobs(batch.id);
        this.outbox.updateBatch(batch.id, { estado: 'respondido', ...answered, ultimoError: null });
        this.outbox.updateQueue(batch.queueKey, queue);
        return;
      }
      this.outbox.deleteJobs(batch.id, true);
      const message = `${resend.records} registros sin respuesta: se reenvían`;
      this.outbox.updateBatch(batch.id, { ...answered, numRegistros: resend.records, incidencia: resend.incidencia ? 1 : 0, ultimoError: message });
      this.outbox.replaceRequest(batch.id, resend.peticion);
      this.records.awaitingResend(batch.id, 'pendiente_envio', nowIso);
      this.outbox.updateQueue(batch.queueKey, queue);
      this.logger.warn('answer left records out, they go again first', { idLote: batch.id, registros: resend.records });
    });
  }

  /** The request that resends a submission's unanswered records (`registroIds`), in chain order. */
  private resendOf(batch: Batch, registroIds: ReadonlySet<string>, now: Date): { peticion: string; incidencia: boolean; records: number } {
    const rest = this.outgoing(batch).filter((r) => registroIds.has(r.registroId));
    const incidencia = batch.incidencia === 1 || this.isLate(rest, now);
    return { peticion: this.request(this.adapterFor(batch.queueKey), batch, rest, incidencia), incidencia, records: rest.length };
  }

  /** The whole submission was refused for its content: every record in it is rejected (final). */
  private async refuseBatch(batch: Batch, refusal: { codigo: string; descripcion: string }, raw: string | null = null): Promise<void> {
    const nowIso = this.clock.now().toISOString();
    // One transaction, however many records: rejections become final only with the submission
    // (applyReply says why). A refusal of a whole submission's content is rare.
    await this.write(() => {
      const verdict: Verdict = { kind: 'rechazado', codigo: refusal.codigo, descripcion: refusal.descripcion };
      applyVerdicts(
        this.records,
        this.ids,
        this.batchRegistros(batch.id).map((registro) => ({ registro, verdict })),
        { idLote: batch.id, now: nowIso },
      );
      this.outbox.deleteJobs(batch.id);
      this.outbox.updateBatch(batch.id, { estado: 'rechazado', respuesta: raw, respondidoEn: nowIso, ultimoError: `${refusal.codigo}: ${refusal.descripcion}` });
      this.outbox.updateQueue(batch.queueKey, { reintentoEn: null, fallosSeguidos: 0, alcanzable: 1, ultimoError: refusal.descripcion, ultimoErrorEn: nowIso, codigoBloqueo: null });
    });
  }

  /**
   * A failed send (transport, Server fault, an answer we could not read) or a blocking Client
   * fault: nothing is final, the submission waits for its resend with back-off.
   */
  private async recordFailure(batch: Batch, error: unknown): Promise<void> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const message = error instanceof Error ? error.message : String(error);
    const state = this.queueState(batch.queueKey);
    const failures = (state?.fallosSeguidos ?? 0) + 1;
    const base = Math.min(this.config.backoffMaxMs, this.config.backoffBaseMs * 2 ** Math.min(failures - 1, 20));
    const jitter = 1 + ((this.config.random ?? Math.random)() * 0.4 - 0.2);
    // A fault that needs a person (AEAT 4104…): resending cannot cure it, so a long wait, said.
    const needsAPerson = error instanceof SubmissionBlocked && motivoBloqueo(error.codigo) !== undefined;
    const codigoBloqueo = needsAPerson && error instanceof SubmissionBlocked ? (error.codigo ?? null) : null;
    const waitMs = needsAPerson ? (this.config.blockedRetryMs ?? DEFAULT_BLOCKED_RETRY_MS) : Math.round(base * jitter);
    const retryAt = new Date(now.getTime() + waitMs).toISOString();
    // A blocking fault is an answer: the authority is reachable, the cause is on our side.
    const alcanzable = error instanceof SubmissionBlocked ? 1 : 0;
    this.logger.warn('submission failed, will resend it', { idLote: batch.id, error: message, retryAt });
    await this.write(() => {
      this.outbox.updateBatch(batch.id, { ultimoError: message });
      this.records.awaitingResend(batch.id, 'pendiente_envio', nowIso);
      this.outbox.updateQueue(batch.queueKey, { fallosSeguidos: failures, reintentoEn: retryAt, alcanzable, ultimoError: message, ultimoErrorEn: nowIso, codigoBloqueo });
    });
  }
}
