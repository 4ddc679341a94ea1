// Pure delivery identity and signature: no database, no clock, no I/O.
import { createHash, createHmac } from 'node:crypto';
import type { EventoWebhook } from '../../../src-shared/api/webhooks';

/** UUIDv5 (RFC 4122 §4.3): SHA-1 of namespace bytes + UTF-8 name, version 5, variant 10. */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  if (ns.length !== 16) throw new Error(`namespace is not a UUID: ${namespace}`);
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** This product's namespace for delivery identifiers (a fixed random UUID; never change it). */
export const IDENTREGA_NAMESPACE = '3f8e2a61-5c0d-4b7e-9a14-6d2f0c8b7e53';

/**
 * idEntrega: deterministic and unique per (webhook, record, event). The record (not only the
 * invoice) takes part, so a rejected alta and its registered correction get different ids.
 */
export function idEntrega(webhookId: string, registroId: string, evento: EventoWebhook): string {
  return uuidV5(`${webhookId}\n${registroId}\n${evento}`, IDENTREGA_NAMESPACE);
}

/** The delivery body, serialized once when the delivery is created and stored byte for byte. */
export function deliveryBody(input: { evento: EventoWebhook; idEntrega: string; timestamp: string; datos: unknown }): string {
  return JSON.stringify({ evento: input.evento, idEntrega: input.idEntrega, timestamp: input.timestamp, datos: input.datos });
}

/** `sha256=<hex HMAC-SHA256 of the raw body bytes keyed with the UTF-8 secreto>`. */
export function signature(rawBody: string | Buffer, secreto: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secreto, 'utf8')).update(rawBody).digest('hex')}`;
}

export const WEBHOOK_USER_AGENT = 'ServiceWebhooks/1.0';

/** Every header of a delivery; the prefix is the webhook's (`X-Service-` by default). */
export function deliveryHeaders(input: {
  prefix: string;
  evento: EventoWebhook;
  idEntrega: string;
  timestamp: string;
  rawBody: Buffer;
  secreto: string;
}): Record<string, string> {
  const { prefix } = input;
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    [`${prefix}Event`]: input.evento,
    [`${prefix}Delivery-Id`]: input.idEntrega,
    [`${prefix}Timestamp`]: input.timestamp,
    [`${prefix}Signature`]: signature(input.rawBody, input.secreto),
    'Idempotency-Key': input.idEntrega,
  };
}
