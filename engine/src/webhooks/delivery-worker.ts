import type { EventoWebhook } from '../../../src-shared/api/webhooks';
import type { Database } from '../db/database';
import { afterPendingEvents, type WriteTurns } from '../db/write-priority';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import { PollLoop } from '../platform/poll-loop';
import type { WebhookDeliveryConfig } from './config';
import { deliveryBody, deliveryHeaders, idEntrega } from './signing';
import { eventosOf, WebhookStore, type DeliveryRow } from './store.sqlite';
import { postWebhook, type AttemptOutcome } from './transport';
import { WebhookAddressPolicy } from './address-policy';
import { workOwnershipOf, type WorkOwnership } from '../db/work-ownership';

/** Consecutive failed attempts after which the platform suspends a webhook (spec). */
export const SUSPEND_AFTER_FAILURES = 20;
/**
 * Events fanned out per write transaction. Each is a turn of its own (issuing goes first at the
 * lock between two), so a chunk holds the lock a few ms even with several webhooks per event.
 */
const FAN_OUT_CHUNK = 250;

/**
 * Turns final-verdict events into signed webhook deliveries and sends them, at least once.
 *
 * Fan-out: an outbox cursor (`settings.webhookEventCursor`, the sequence of the last event handled)
 * advances in the same transaction that inserts the deliveries, so each event is fanned out
 * exactly once across crashes; the deterministic idEntrega (primary key) makes a repeat a no-op.
 * One delivery per active webhook linked to the event's issuer (same account and environment)
 * and subscribed to the event; its body is serialized once and stored, so every retry is
 * byte-identical. Delivery: a row stays `pendiente` until a 2xx is recorded; a crash mid-attempt
 * leaves it due, and it is sent again with the same id, body and signature.
 */
export class WebhookDeliveryWorker {
  private readonly loop: PollLoop;
  readonly store: WebhookStore;
  private halting = false;
  private readonly inFlight = new Set<string>();
  /** Aborted by stop(): attempts on the wire are dropped unrecorded and resent after a restart. */
  private abort = new AbortController();
  /** Which webhooks this node delivers to now (several nodes on one PostgreSQL; on SQLite, all). */
  private readonly ownership: WorkOwnership;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    readonly config: WebhookDeliveryConfig,
    /** When each write transaction may take the lock (the filing thread lets issuing go first). */
    private readonly turns: WriteTurns = afterPendingEvents,
    /** Where deliveries may go, checked again before each attempt (DNS rebinding). */
    readonly addresses: WebhookAddressPolicy = new WebhookAddressPolicy(),
  ) {
    this.store = new WebhookStore(db);
    this.ownership = workOwnershipOf(db);
    this.loop = new PollLoop('webhook', () => this.tick(), () => this.config.pollMs, logger);
  }

  start(): void {
    this.halting = false;
    this.abort = new AbortController();
    this.loop.start();
  }

  /** Stops polling and cuts attempts in flight; they stay due and are resent after a restart. */
  async stop(): Promise<void> {
    this.halting = true;
    this.abort.abort();
    await this.loop.stop();
  }

  /** New work was committed: look now instead of at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** One pass: fan out new events, then one round of due attempts. Returns deliveries created + attempts made. */
  async tick(): Promise<number> {
    const created = await this.fanOut();
    const attempted = await this.deliverDue();
    return created + attempted;
  }

  /** Runs ticks until nothing is due now (tests and drains). */
  async drainDue(maxTicks = 10_000): Promise<void> {
    for (let i = 0; i < maxTicks; i++) if ((await this.tick()) === 0) return;
  }

  /**
   * Turns every event after the cursor into deliveries, a chunk per write turn. Returns how many
   * deliveries were created. Events are read and the cursor moved inside the turn's transaction,
   * so two fan-outs never hand out the same event twice; a pass with no new event takes no turn.
   */
  async fanOut(): Promise<number> {
    let created = 0;
    while (this.store.lastEventSeq() > this.store.eventCursor()) {
      const { count, more } = await this.turns.take(() => this.db.transaction(() => this.fanOutChunk()));
      created += count;
      if (!more) break;
    }
    return created;
  }

  /** One chunk of the fan-out, inside its write transaction. */
  private fanOutChunk(): { count: number; more: boolean } {
    const cursor = this.store.eventCursor();
    if (!this.store.anyActive()) {
      // No webhook would take any of them (what the loop below would find, event by event):
      // the cursor moves past every event without reading them, as a till with no webhook does all day.
      const last = this.store.lastEventSeq();
      if (last > cursor) this.store.setEventCursor(last);
      return { count: 0, more: false };
    }
    const events = this.store.eventsAfter(cursor, FAN_OUT_CHUNK);
    const last = events.at(-1);
    if (!last) return { count: 0, more: false };
    const now = this.clock.now().toISOString();
    // A chunk's events come from a few issuers: their webhooks are read once per issuer, not
    // per event (no webhook changes inside this transaction).
    const targets = new Map<string, { idWebhook: string; eventos: EventoWebhook[] }[]>();
    let n = 0;
    for (const event of events) {
      const issuer = `${event.accountId}|${event.entorno}|${event.nifEmisor}`;
      let ofIssuer = targets.get(issuer);
      if (!ofIssuer) {
        ofIssuer = this.store.targetsOf(event).map((t) => ({ idWebhook: t.idWebhook, eventos: eventosOf(t) }));
        targets.set(issuer, ofIssuer);
      }
      for (const target of ofIssuer) {
        if (!target.eventos.includes(event.evento)) continue;
        const id = idEntrega(target.idWebhook, event.registroId, event.evento);
        const inserted = this.store.insertDelivery({
          id,
          webhookId: target.idWebhook,
          eventId: event.id,
          evento: event.evento,
          body: deliveryBody({ evento: event.evento, idEntrega: id, timestamp: now, datos: this.datosOf(event) }),
          estado: 'pendiente',
          intentos: 0,
          siguienteIntentoEn: now,
          ultimoCodigo: null,
          ultimoError: null,
          creadoEn: now,
          entregadaEn: null,
        });
        if (inserted) n += 1;
      }
    }
    this.store.setEventCursor(last.seq);
    return { count: n, more: events.length === FAN_OUT_CHUNK };
  }

  /** The event's `datos` as the submission worker wrote them (spec "Events"). */
  private datosOf(event: { id: string; datos: string; nifEmisor: string; invoiceId: string }): unknown {
    try {
      return JSON.parse(event.datos) as unknown;
    } catch (error) {
      // A bug upstream must not block every webhook behind this event: deliver what is known.
      this.logger.error('event datos is not JSON', { eventId: event.id, error: String(error) });
      return { nifEmisor: event.nifEmisor, idFactura: event.invoiceId };
    }
  }

  /** Sends the due deliveries: webhooks in parallel lanes, one attempt at a time per webhook. */
  private async deliverDue(): Promise<number> {
    const due = this.store.dueDeliveries(this.clock.now().toISOString(), this.config.batchSize);
    // Nothing leaves on the strength of a commit not yet on disk: the events and deliveries read
    // here may come from commits still in their fsync (issuing's, or this thread's own).
    if (due.length > 0) await this.db.whenDurable();
    const byWebhook = new Map<string, string[]>();
    for (const d of due) {
      if (this.inFlight.has(d.id)) continue;
      const list = byWebhook.get(d.webhookId) ?? [];
      list.push(d.id);
      byWebhook.set(d.webhookId, list);
    }
    const queue = [...byWebhook];
    let attempts = 0;
    const lanes = Array.from({ length: Math.max(1, Math.min(this.config.parallelWebhooks, queue.length)) }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const [webhookId, ids] = next;
        // One node at a time delivers to a webhook (another node holding it skips it this pass):
        // its deliveries are not sent twice at once, and a node that dies lets the next one resend.
        if (!this.ownership.tryTake('webhook', webhookId)) continue;
        try {
          for (const id of ids) {
            if (this.halting || this.inFlight.has(id)) break;
            this.inFlight.add(id);
            try {
              const result = await this.attempt(id);
              if (result !== 'skipped') attempts += 1;
              if (result === 'webhook-stopped') break;
            } finally {
              this.inFlight.delete(id);
            }
          }
        } finally {
          this.releaseWebhook(webhookId);
        }
      }
    });
    await Promise.all(lanes);
    return attempts;
  }

  private releaseWebhook(webhookId: string): void {
    try {
      this.ownership.release('webhook', webhookId);
    } catch (error) {
      // The connection is gone, and the lock with it.
      this.logger.warn('could not release a webhook', { idWebhook: webhookId, error: String(error) });
    }
  }

  /** One attempt of one delivery, with the webhook's settings as they are now. */
  private async attempt(id: string): Promise<'delivered' | 'failed' | 'webhook-stopped' | 'skipped'> {
    const delivery = this.store.delivery(id);
    if (!delivery || delivery.estado !== 'pendiente') return 'skipped';
    // Attempted meanwhile by another node (read before this node took the webhook): not due again yet.
    if (delivery.siguienteIntentoEn !== null && delivery.siguienteIntentoEn > this.clock.now().toISOString()) return 'skipped';
    const webhook = this.store.byId(delivery.webhookId);
    if (!webhook || webhook.estado !== 'activo') return 'skipped';
    const rawBody = Buffer.from(delivery.body, 'utf8');
    const { timestamp } = JSON.parse(delivery.body) as { timestamp: string };
    const headers = deliveryHeaders({
      prefix: webhook.prefijoCabeceras,
      evento: delivery.evento,
      idEntrega: delivery.id,
      timestamp,
      rawBody,
      secreto: webhook.secreto,
    });
    const { signal } = this.abort;
    // An address refused now (a name that resolves elsewhere since the webhook was saved) fails
    // the attempt without sending anything; an allowed one is the address the request goes to.
    const verdict = await this.addresses.checkForDelivery(webhook.url, this.config.timeoutMs);
    if (signal.aborted) return 'skipped';
    const outcome: AttemptOutcome = verdict.ok
      ? await postWebhook(webhook.url, rawBody, headers, { timeoutMs: this.config.timeoutMs, signal, ...(verdict.pinned ? { pinned: verdict.pinned } : {}) })
      : { ok: false, statusCode: null, latencyMs: 0, error: verdict.problem };
    // Cut by stop(): not the receiver's failure, so not recorded; the delivery stays due.
    if (signal.aborted) return 'skipped';
    return this.record(delivery, outcome);
  }

  /** Records an attempt's outcome, in a write turn: delivery state, the log, the webhook's failure counter. */
  private record(delivery: DeliveryRow, outcome: AttemptOutcome): Promise<'delivered' | 'failed' | 'webhook-stopped' | 'skipped'> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    return this.turns.take(() => this.db.transaction(() => {
      const fresh = this.store.delivery(delivery.id);
      // Deleted with its webhook, or recorded by another process meanwhile.
      if (!fresh || fresh.estado !== 'pendiente') return 'skipped';
      const intento = fresh.intentos + 1;
      this.store.insertAttempt({
        deliveryId: fresh.id,
        intento,
        statusCode: outcome.statusCode,
        latencyMs: outcome.latencyMs,
        error: outcome.ok ? null : outcome.error,
        at: nowIso,
      });
      if (outcome.ok) {
        this.store.updateDelivery(fresh.id, {
          estado: 'entregada',
          intentos: intento,
          siguienteIntentoEn: null,
          ultimoCodigo: outcome.statusCode,
          ultimoError: null,
          entregadaEn: nowIso,
        });
        this.store.update(fresh.webhookId, { fallosConsecutivos: 0 });
        return 'delivered';
      }
      const delay = this.config.retryDelaysMs[intento - 1];
      this.store.updateDelivery(fresh.id, {
        estado: delay === undefined ? 'fallida' : 'pendiente',
        intentos: intento,
        siguienteIntentoEn: delay === undefined ? null : new Date(now.getTime() + delay).toISOString(),
        ultimoCodigo: outcome.statusCode,
        ultimoError: outcome.error,
      });
      this.store.addFailure(fresh.webhookId);
      const webhook = this.store.byId(fresh.webhookId);
      if (webhook && webhook.estado === 'activo' && webhook.fallosConsecutivos >= SUSPEND_AFTER_FAILURES) {
        this.store.update(webhook.idWebhook, {
          estado: 'suspendido',
          suspendidoEn: nowIso,
          ultimoError: outcome.error,
          ultimaModificacion: nowIso,
        });
        this.logger.warn('webhook suspended after consecutive failures', {
          idWebhook: webhook.idWebhook,
          fallosConsecutivos: webhook.fallosConsecutivos,
          error: outcome.error,
        });
        return 'webhook-stopped';
      }
      return webhook && webhook.estado !== 'activo' ? 'webhook-stopped' : 'failed';
    }));
  }
}
