import type { FastifyRequest } from 'fastify';
import type { Entorno } from '../../../src-shared/api/common';
import type { AccountsTable } from '../db/schema/accounts';
import { GatewayForbidden } from './errors';

export interface RateLimits {
  /** Sustained requests per second. */
  rps: number;
  /** Token-bucket capacity. */
  burst: number;
  /** Requests per calendar month (Europe/Madrid). */
  monthlyQuota: number;
}

/** Who is calling: resolved from `x-api-key` once per request (http/auth's key gate). */
export interface Caller {
  keyId: string;
  entorno: Entorno;
  account: AccountsTable;
  limits: RateLimits;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** Served without a key (OpenAPI, the published declaration). */
    public?: boolean;
  }
}

/** The caller of a keyed route (the key gate guarantees it is set). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new GatewayForbidden();
  return request.caller;
}
