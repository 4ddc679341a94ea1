import type { Entorno } from '../../../../src-shared/api/common';
import type { EstadoWebhook, EventoWebhook } from '../../../../src-shared/api/webhooks';

/** A webhook of one account in one environment. */
export interface WebhooksTable {
  idWebhook: string;
  accountId: string;
  entorno: Entorno;
  nombre: string;
  url: string;
  /** The HMAC-SHA256 key, as chosen by the caller: needed in clear to sign; never returned. */
  secreto: string;
  /** Canonical JSON array of event names; null = no stored subscription (all events). */
  eventos: string | null;
  estado: EstadoWebhook;
  fallosConsecutivos: number;
  suspendidoEn: string | null;
  ultimoError: string | null;
  prefijoCabeceras: string;
  creadoEn: string;
  ultimaModificacion: string;
}

/** An issuer (by environment and NIF) linked to a webhook: its events go to that webhook. */
export interface WebhookIssuersTable {
  webhookId: string;
  entorno: Entorno;
  nif: string;
  creadoEn: string;
}

/** One delivery of one event to one webhook; `id` is the idEntrega, `body` the exact bytes sent. */
export interface WebhookDeliveriesTable {
  id: string;
  webhookId: string;
  eventId: string;
  evento: EventoWebhook;
  body: string;
  estado: 'pendiente' | 'entregada' | 'fallida';
  /** Attempts made (answered or failed); a crash mid-attempt does not count one. */
  intentos: number;
  siguienteIntentoEn: string | null;
  ultimoCodigo: number | null;
  ultimoError: string | null;
  creadoEn: string;
  entregadaEn: string | null;
}

/** The delivery log for support staff: one row per attempt. */
export interface WebhookDeliveryAttemptsTable {
  deliveryId: string;
  intento: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  at: string;
}
