import { createHmac } from 'node:crypto';
import { EngineError, invalidParameter } from './errors';
import { safeEqual } from '../platform/secrets';

/** Keyset position: the (creadoEn, id) of the last row of the previous page. */
export interface CursorPosition {
  creadoEn: string;
  id: string;
}

export interface CursorScope {
  accountId: string;
  endpoint: string;
  entorno: string;
  /** The issuer the list is for: a cursor cannot be replayed against another issuer. */
  nifEmisor: string;
}

const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

const invalidCursor = () =>
  new EngineError(400, 'INVALID_CURSOR', 'Cursor no válido o caducado', {
    campo: 'cursor',
    errors: ['cursor: invalid or expired'],
  });

/**
 * Opaque, tamper-proof cursors bound to account + endpoint + environment + issuer, expiring after
 * 24 h (API-CONTRACT). HMAC-SHA256 with a per-install secret.
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(position: CursorPosition, scope: CursorScope, now: Date): string {
    const payload = Buffer.from(
      JSON.stringify({ p: [position.creadoEn, position.id], x: now.getTime() + CURSOR_TTL_MS }),
    ).toString('base64url');
    return `${payload}.${this.sign(payload, scope)}`;
  }

  decode(cursor: string, scope: CursorScope, now: Date): CursorPosition {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0 || !safeEqual(signature, this.sign(payload, scope))) {
      throw invalidCursor();
    }
    try {
      const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p?: unknown; x?: unknown };
      const [creadoEn, id] = Array.isArray(parsed.p) ? parsed.p : [];
      if (typeof creadoEn !== 'string' || typeof id !== 'string' || typeof parsed.x !== 'number') throw invalidCursor();
      if (parsed.x < now.getTime()) throw invalidCursor();
      return { creadoEn, id };
    } catch {
      throw invalidCursor();
    }
  }

  private sign(payload: string, scope: CursorScope): string {
    return createHmac('sha256', this.secret)
      .update(`${scope.accountId}\n${scope.endpoint}\n${scope.entorno}\n${scope.nifEmisor}\n${payload}`)
      .digest('base64url')
      .slice(0, 32);
  }
}

export const BILLING_LIST_DEFAULT = 100;
export const BILLING_LIST_MAX = 500;

/**
 * `limite` on billing lists: absent or empty → default; above the max → cut to the max;
 * non-integer or below 1 → 400 INVALID_PARAMETER.
 */
export function parseBillingLimite(raw: string | undefined): number {
  if (raw === undefined || raw === '') return BILLING_LIST_DEFAULT;
  if (!/^-?\d+$/.test(raw)) throw invalidParameter('limite', 'limite debe ser un entero ≥ 1');
  const n = Number(raw);
  if (n < 1) throw invalidParameter('limite', 'limite debe ser un entero ≥ 1');
  return Math.min(n, BILLING_LIST_MAX);
}
