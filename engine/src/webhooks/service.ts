import {
  canonicalEventos,
  PREFIJO_CABECERAS_POR_DEFECTO,
  type Webhook,
  type WebhookCreateBody,
  type WebhookPatchBody,
} from '../../../src-shared/api/webhooks';
import type { IssuerStore } from '../clients/store';
import type { Database } from '../db/database';
import { forbidden, notFound, validation } from '../core/errors';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import { eventosOf, WebhookStore, type WebhookRow, type WebhookScope } from './store.sqlite';
import { WebhookAddressPolicy } from './address-policy';

/** The Webhook resource as the API shows it: `secreto` never; suspension details only when suspended. */
export function webhookView(row: WebhookRow): Webhook {
  const suspended = row.estado === 'suspendido';
  return {
    idWebhook: row.idWebhook,
    nombre: row.nombre,
    url: row.url,
    eventos: eventosOf(row),
    estado: row.estado,
    fallosConsecutivos: row.fallosConsecutivos,
    ...(suspended && row.suspendidoEn ? { suspendidoEn: row.suspendidoEn } : {}),
    ...(suspended && row.ultimoError ? { ultimoError: row.ultimoError } : {}),
    prefijoCabeceras: row.prefijoCabeceras,
    creadoEn: row.creadoEn,
    ultimaModificacion: row.ultimaModificacion,
  };
}

const webhookNotFound = () => notFound('Webhook no encontrado');

/**
 * Webhooks of an account in one environment: the rules of the spec's Webhooks section. Every
 * write is one transaction. A link holds no copy of the webhook's settings (the worker reads the
 * webhook row at fan-out and at each attempt), so a PATCH reaches every linked issuer when it
 * commits: there is no partial propagation, hence never 500 PROPAGATION_INCOMPLETE.
 */
export class WebhookService {
  readonly store: WebhookStore;
  constructor(
    private readonly db: Database,
    private readonly issuers: IssuerStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    /** Where webhooks may point (checked by the routes before create and a change of url). */
    readonly addresses: WebhookAddressPolicy = new WebhookAddressPolicy(),
    /** Called after a commit that may make deliveries due (reactivation): wakes the worker. */
    private readonly afterChange: () => void = () => {},
  ) {
    this.store = new WebhookStore(db);
  }

  /** 400 naming `url` when the address is one no delivery may reach (address-policy.ts). */
  async checkUrl(url: string | undefined): Promise<void> {
    if (url === undefined) return;
    const problem = await this.addresses.checkForCreation(url);
    if (problem !== null) throw validation('url', `url: ${problem}`, [`url: ${problem}`]);
  }

  list(scope: WebhookScope): Webhook[] {
    return this.store.list(scope).map(webhookView);
  }

  get(scope: WebhookScope, idWebhook: string): Webhook {
    const row = this.store.find(scope, idWebhook);
    if (!row) throw webhookNotFound();
    return webhookView(row);
  }

  create(scope: WebhookScope, body: WebhookCreateBody): Webhook {
    const now = this.clock.now().toISOString();
    const row: WebhookRow = {
      idWebhook: this.ids.next('wh'),
      accountId: scope.accountId,
      entorno: scope.entorno,
      nombre: body.nombre,
      url: body.url,
      secreto: body.secreto,
      eventos: body.eventos ? JSON.stringify(canonicalEventos(body.eventos)) : null,
      estado: 'activo',
      fallosConsecutivos: 0,
      suspendidoEn: null,
      ultimoError: null,
      prefijoCabeceras: body.prefijoCabeceras ?? PREFIJO_CABECERAS_POR_DEFECTO,
      creadoEn: now,
      ultimaModificacion: now,
    };
    this.db.transaction(() => this.store.insert(row));
    return webhookView(row);
  }

  /**
   * Changes `nombre`, `url`, `secreto`, `eventos`, `estado` or `prefijoCabeceras`. `estado`:
   * activo ↔ inactivo by the caller; suspendido → activo resets `fallosConsecutivos` (so does
   * inactivo → activo), suspendido → inactivo is allowed; `suspendido` is never set by a caller.
   * Pending deliveries of a webhook that becomes active again are due at once.
   */
  patch(scope: WebhookScope, idWebhook: string, body: WebhookPatchBody): Webhook {
    if (Object.values(body).every((v) => v === undefined)) {
      throw validation('body', 'ningún campo admitido: envíe nombre, url, secreto, eventos, estado o prefijoCabeceras');
    }
    let reactivated = false;
    const row = this.db.transaction(() => {
      const current = this.store.find(scope, idWebhook);
      if (!current) throw webhookNotFound();
      const now = this.clock.now().toISOString();
      const set: Partial<WebhookRow> = { ultimaModificacion: now };
      if (body.nombre !== undefined) set.nombre = body.nombre;
      if (body.url !== undefined) set.url = body.url;
      if (body.secreto !== undefined) set.secreto = body.secreto;
      if (body.prefijoCabeceras !== undefined) set.prefijoCabeceras = body.prefijoCabeceras;
      if (body.eventos !== undefined) set.eventos = body.eventos === null ? null : JSON.stringify(canonicalEventos(body.eventos));
      if (body.estado !== undefined && body.estado !== current.estado) {
        set.estado = body.estado;
        set.suspendidoEn = null;
        set.ultimoError = null;
        if (body.estado === 'activo') {
          set.fallosConsecutivos = 0;
          this.store.reschedulePending(idWebhook, now);
          reactivated = true;
        }
      }
      this.store.update(idWebhook, set);
      return { ...current, ...set };
    });
    if (reactivated) this.afterChange();
    return webhookView(row);
  }

  remove(scope: WebhookScope, idWebhook: string): void {
    this.db.transaction(() => {
      if (!this.store.find(scope, idWebhook)) throw webhookNotFound();
      this.store.delete(idWebhook);
    });
  }

  clientes(scope: WebhookScope, idWebhook: string): string[] {
    if (!this.store.find(scope, idWebhook)) throw webhookNotFound();
    return this.store.linkedNifs(idWebhook);
  }

  /**
   * Links issuers of the key's account and environment, all or none: a NIF of another account,
   * unknown or deleted gives 403 FORBIDDEN (the same body, no enumeration) and links nothing.
   * Linking an issuer already linked changes nothing. An inactive issuer may be linked: verdicts
   * of invoices it issued before deactivation still arrive.
   */
  link(scope: WebhookScope, idWebhook: string, nifs: readonly string[]): string[] {
    return this.db.transaction(() => {
      if (!this.store.find(scope, idWebhook)) throw webhookNotFound();
      const now = this.clock.now().toISOString();
      for (const nif of new Set(nifs)) {
        const issuer = this.issuers.findForAccount(scope.accountId, scope.entorno, nif);
        if (!issuer || issuer.estado === 'eliminado') throw forbidden();
        this.store.link(idWebhook, scope.entorno, nif, now);
      }
      return this.store.linkedNifs(idWebhook);
    });
  }

  /** Unlinks one issuer; unlinking one that is not linked changes nothing (idempotent). */
  unlink(scope: WebhookScope, idWebhook: string, nif: string): string[] {
    return this.db.transaction(() => {
      if (!this.store.find(scope, idWebhook)) throw webhookNotFound();
      this.store.unlink(idWebhook, nif);
      return this.store.linkedNifs(idWebhook);
    });
  }
}
