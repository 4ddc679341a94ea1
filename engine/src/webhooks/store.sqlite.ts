import { sql } from 'kysely';
import type { Entorno } from '../../../src-shared/api/common';
import { EVENTOS_WEBHOOK, type EventoWebhook } from '../../../src-shared/api/webhooks';
import type { Database } from '../db/database';
import type {
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptsTable,
  WebhooksTable,
} from '../db/schema/webhooks';

export type WebhookRow = WebhooksTable;
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = WebhookDeliveryAttemptsTable;

/** Account and environment a key sees: every webhook read and write is scoped by it. */
export interface WebhookScope {
  accountId: string;
  entorno: Entorno;
}

/** The events a stored subscription delivers (null = all, in canonical order). */
export function eventosOf(row: Pick<WebhookRow, 'eventos'>): EventoWebhook[] {
  if (row.eventos === null) return [...EVENTOS_WEBHOOK];
  const stored = JSON.parse(row.eventos) as EventoWebhook[];
  return EVENTOS_WEBHOOK.filter((e) => stored.includes(e));
}

/** The settings key of the fan-out cursor: the last `events.rowid` turned into deliveries. */
export const EVENT_CURSOR_KEY = 'webhookEventCursor';

/** SQL of webhooks, their issuer links, deliveries and the attempt log. */
export class WebhookStore {
  constructor(private readonly db: Database) {}

  find(scope: WebhookScope, idWebhook: string): WebhookRow | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('webhooks')
        .selectAll()
        .where('idWebhook', '=', idWebhook)
        .where('accountId', '=', scope.accountId)
        .where('entorno', '=', scope.entorno),
    );
  }

  byId(idWebhook: string): WebhookRow | undefined {
    return this.db.first(this.db.kysely.selectFrom('webhooks').selectAll().where('idWebhook', '=', idWebhook));
  }

  list(scope: WebhookScope): WebhookRow[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('webhooks')
        .selectAll()
        .where('accountId', '=', scope.accountId)
        .where('entorno', '=', scope.entorno)
        .orderBy('creadoEn')
        .orderBy('idWebhook'),
    );
  }

  listAll(): WebhookRow[] {
    return this.db.all(this.db.kysely.selectFrom('webhooks').selectAll().orderBy('creadoEn').orderBy('idWebhook'));
  }

  insert(row: WebhookRow): void {
    this.db.run(this.db.kysely.insertInto('webhooks').values(row));
  }

  update(idWebhook: string, set: Partial<Omit<WebhookRow, 'idWebhook' | 'accountId' | 'entorno'>>): void {
    this.db.run(this.db.kysely.updateTable('webhooks').set(set).where('idWebhook', '=', idWebhook));
  }

  /** Deletes the webhook; links, deliveries and their log go with it (ON DELETE CASCADE). */
  delete(idWebhook: string): number {
    return this.db.run(this.db.kysely.deleteFrom('webhooks').where('idWebhook', '=', idWebhook));
  }

  linkedNifs(idWebhook: string): string[] {
    return this.db
      .all(this.db.kysely.selectFrom('webhook_issuers').select('nif').where('webhookId', '=', idWebhook).orderBy('nif'))
      .map((r) => r.nif);
  }

  link(idWebhook: string, entorno: Entorno, nif: string, now: string): void {
    this.db.run(
      this.db.kysely
        .insertInto('webhook_issuers')
        .values({ webhookId: idWebhook, entorno, nif, creadoEn: now })
        .onConflict((oc) => oc.columns(['webhookId', 'nif']).doNothing()),
    );
  }

  unlink(idWebhook: string, nif: string): number {
    return this.db.run(this.db.kysely.deleteFrom('webhook_issuers').where('webhookId', '=', idWebhook).where('nif', '=', nif));
  }

  /** The active webhooks an event of this issuer goes to (same account and environment). */
  targetsOf(event: { accountId: string; entorno: Entorno; nifEmisor: string }): Pick<WebhookRow, 'idWebhook' | 'eventos'>[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('webhook_issuers as l')
        .innerJoin('webhooks as w', 'w.idWebhook', 'l.webhookId')
        .select(['w.idWebhook', 'w.eventos'])
        .where('l.entorno', '=', event.entorno)
        .where('l.nif', '=', event.nifEmisor)
        .where('w.accountId', '=', event.accountId)
        .where('w.entorno', '=', event.entorno)
        .where('w.estado', '=', 'activo')
        .orderBy('w.idWebhook'),
    );
  }

  eventCursor(): number {
    const row = this.db.first(this.db.kysely.selectFrom('settings').select('value').where('key', '=', EVENT_CURSOR_KEY));
    return row ? Number(row.value) : 0;
  }

  setEventCursor(seq: number): void {
    this.db.run(
      this.db.kysely
        .insertInto('settings')
        .values({ key: EVENT_CURSOR_KEY, value: String(seq) })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(seq) })),
    );
  }

  /** Whether any webhook would take a delivery now. */
  anyActive(): boolean {
    return this.db.first(this.db.kysely.selectFrom('webhooks').select('idWebhook').where('estado', '=', 'activo').limit(1)) !== undefined;
  }

  /** The rowid of the newest event (0 with none). */
  lastEventSeq(): number {
    return this.db.first(this.db.kysely.selectFrom('events').select(sql<number | null>`max(rowid)`.as('seq')))?.seq ?? 0;
  }

  /** Events committed after the cursor, in commit order (rowid: events are never deleted). */
  eventsAfter(seq: number, limit: number) {
    return this.db.all(
      this.db.kysely
        .selectFrom('events')
        .select([sql<number>`rowid`.as('seq'), 'id', 'evento', 'accountId', 'entorno', 'nifEmisor', 'invoiceId', 'registroId', 'datos'])
        .where(sql<number>`rowid`, '>', seq)
        .orderBy(sql`rowid`)
        .limit(limit),
    );
  }

  /** Inserts a delivery unless one with that idEntrega exists; true when inserted. */
  insertDelivery(row: DeliveryRow): boolean {
    return this.db.run(this.db.kysely.insertInto('webhook_deliveries').values(row).onConflict((oc) => oc.column('id').doNothing())) > 0;
  }

  delivery(id: string): DeliveryRow | undefined {
    return this.db.first(this.db.kysely.selectFrom('webhook_deliveries').selectAll().where('id', '=', id));
  }

  /** Pending deliveries due now whose webhook is active, oldest due first. */
  dueDeliveries(now: string, limit: number): { id: string; webhookId: string }[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.idWebhook', 'd.webhookId')
        .select(['d.id', 'd.webhookId'])
        .where('d.estado', '=', 'pendiente')
        .where('d.siguienteIntentoEn', '<=', now)
        .where('w.estado', '=', 'activo')
        .orderBy('d.siguienteIntentoEn')
        .orderBy('d.creadoEn')
        .orderBy('d.id')
        .limit(limit),
    );
  }

  updateDelivery(id: string, set: Partial<Omit<DeliveryRow, 'id'>>): void {
    this.db.run(this.db.kysely.updateTable('webhook_deliveries').set(set).where('id', '=', id));
  }

  /** A reactivated webhook's pending deliveries become due now. */
  reschedulePending(idWebhook: string, now: string): void {
    this.db.run(
      this.db.kysely
        .updateTable('webhook_deliveries')
        .set({ siguienteIntentoEn: now })
        .where('webhookId', '=', idWebhook)
        .where('estado', '=', 'pendiente'),
    );
  }

  insertAttempt(row: AttemptRow): void {
    this.db.run(
      this.db.kysely
        .insertInto('webhook_delivery_attempts')
        .values(row)
        .onConflict((oc) => oc.columns(['deliveryId', 'intento']).doNothing()),
    );
  }

  addFailure(idWebhook: string): void {
    this.db.run(
      this.db.kysely
        .updateTable('webhooks')
        .set((eb) => ({ fallosConsecutivos: eb('fallosConsecutivos', '+', 1) }))
        .where('idWebhook', '=', idWebhook),
    );
  }

  /** The newest deliveries of a webhook, with the invoice of their event (support staff's log). */
  deliveriesOf(
    idWebhook: string,
    options: { estado?: DeliveryRow['estado'] | undefined; limit: number },
  ): (DeliveryRow & { invoiceId: string })[] {
    let q = this.db.kysely
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.eventId')
      .selectAll('d')
      .select('e.invoiceId')
      .where('d.webhookId', '=', idWebhook)
      .orderBy('d.creadoEn', 'desc')
      .orderBy('d.id')
      .limit(options.limit);
    if (options.estado) q = q.where('d.estado', '=', options.estado);
    return this.db.all(q);
  }

  attemptsOf(deliveryIds: string[]): AttemptRow[] {
    if (deliveryIds.length === 0) return [];
    return this.db.all(
      this.db.kysely
        .selectFrom('webhook_delivery_attempts')
        .selectAll()
        .where('deliveryId', 'in', deliveryIds)
        .orderBy('deliveryId')
        .orderBy('intento'),
    );
  }
}
