import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { Logger } from '../platform/logger';
import { safeEqual } from '../platform/secrets';
import { adminRequired, EngineError } from '../core/errors';

/**
 * Who holds a panel token. The panel is not a master key of the account:
 * - `administrador`: the launch token (POS_PANEL_TOKEN or the generated one) on a connection from
 *   the server's own computer (loopback), or any connection while the engine itself listens on
 *   loopback only. It alone mints keys, changes phases, deletes issuers, switches the emulators'
 *   faults, pauses filing and reads the log.
 * - `caja`: a till's own credential (till-credentials.ts), bound to its `idMaquina`; revocable alone.
 */
export type PanelCaller = { rol: 'administrador' } | { rol: 'caja'; idMaquina: string; idCuenta: string; nifEmisor: string };

declare module 'fastify' {
  interface FastifyRequest {
    panelCaller: PanelCaller | null;
  }
}

/** What a till's token resolves to (undefined: unknown or revoked). */
export type TillTokenLookup = (token: string) => { idMaquina: string; idCuenta: string; nifEmisor: string } | undefined;

/**
 * Panel routes only the administrator may call (method + route pattern as Fastify registers it).
 * Listed here, in one place, so that a new admin route is a one-line change reviewed beside the
 * rest, and the features keep their route files untouched.
 */
export const ADMIN_ROUTES: ReadonlySet<string> = new Set([
  'POST /panel/v1/claves',
  'GET /panel/v1/registro',
  'PUT /panel/v1/cuentas/:idCuenta/clientes/:nif/fase',
  'POST /panel/v1/cuentas/:idCuenta/clientes/:nif/eliminar',
  'POST /panel/v1/cuentas/:idCuenta/clientes/:nif/restaurar',
  'POST /panel/v1/sync/pausa',
  'POST /panel/v1/sync/verificar-cadenas',
  'PUT /panel/v1/emuladores/aeat/faults',
  'PUT /panel/v1/emuladores/censo/faults',
  'PUT /panel/v1/emuladores/tbai/araba/faults',
  'PUT /panel/v1/emuladores/tbai/bizkaia/faults',
  'PUT /panel/v1/emuladores/tbai/gipuzkoa/faults',
  'POST /panel/v1/cajas',
  'GET /panel/v1/cajas',
  'DELETE /panel/v1/cajas/:idMaquina',
  // The installation's legal mode and sending records on the AEAT's requirement: the service team's.
  'PUT /panel/v1/clientes/:nif/modo-sif',
  'POST /panel/v1/clientes/:nif/requerimiento',
  // Exports of every record and event of a period (their files hold the customers' data).
  'POST /panel/v1/clientes/:nif/exportacion',
  'GET /panel/v1/clientes/:nif/exportaciones/:fichero',
]);

export function isAdminRoute(method: string, url: string | undefined): boolean {
  return url !== undefined && ADMIN_ROUTES.has(`${method} ${url}`);
}

const LOOPBACK_PEER = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** A connection from this computer (in-process `inject` calls report 127.0.0.1). */
export function isLoopbackPeer(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK_PEER.test(address);
}

/** Listening on loopback only: every caller is on this computer. */
export function isLoopbackBind(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export interface ThrottleOptions {
  /** Failed attempts allowed per address within a window. */
  maxFailures: number;
  windowMs: number;
  now: () => number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { maxFailures: 10, windowMs: 60_000, now: () => Date.now() };

/**
 * Failed token attempts per peer address, in fixed windows: past `maxFailures` in a window the
 * address gets 429 until the window ends, whatever it sends (a right token too: guessing must not
 * be told apart from waiting). Bounded: at most 10,000 addresses are remembered.
 */
export class FailureThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(private readonly options: ThrottleOptions) {}

  /** Seconds to wait, or 0 when the address may try. */
  retryAfter(address: string): number {
    const w = this.windows.get(address);
    if (!w) return 0;
    const elapsed = this.options.now() - w.start;
    if (elapsed >= this.options.windowMs) {
      this.windows.delete(address);
      return 0;
    }
    return w.failures >= this.options.maxFailures ? Math.ceil((this.options.windowMs - elapsed) / 1000) : 0;
  }

  /** Counts a failure; returns the failures of this window so far. */
  fail(address: string): number {
    const now = this.options.now();
    let w = this.windows.get(address);
    if (!w || now - w.start >= this.options.windowMs) {
      if (this.windows.size >= 10_000) this.windows.clear();
      w = { start: now, failures: 0 };
      this.windows.set(address, w);
    }
    w.failures++;
    return w.failures;
  }
}

export interface PanelGateDeps {
  /** The launch token (the administrator's). */
  adminToken: string;
  /** The address the panel listens on (POS_HOST). */
  host: string;
  tillToken?: TillTokenLookup;
  logger: Logger;
  throttle?: ThrottleOptions;
}

/**
 * The panel's admission, run in the API's onRequest hook (server.ts `gate`): throttle, token,
 * role; admin routes refused to a till with 403 ADMIN_REQUIRED. Nothing secret is logged.
 */
export function panelGate(deps: PanelGateDeps): (request: FastifyRequest, open: boolean) => void {
  const throttle = new FailureThrottle(deps.throttle ?? DEFAULT_THROTTLE);
  const loopbackOnly = isLoopbackBind(deps.host);
  return (request, open) => {
    request.panelCaller = null;
    if (open) return;
    const peer = request.socket.remoteAddress ?? 'desconocida';
    const wait = throttle.retryAfter(peer);
    if (wait > 0) {
      throw new EngineError(429, 'TOO_MANY_ATTEMPTS', 'Demasiados intentos con un token no válido; espere antes de reintentar', {}, { 'retry-after': String(wait) });
    }
    const header = request.headers.authorization;
    const bearer = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
    let caller: PanelCaller | undefined;
    if (bearer && safeEqual(bearer, deps.adminToken)) {
      // The launch token is the administrator's on the server's own computer only.
      if (loopbackOnly || isLoopbackPeer(request.socket.remoteAddress)) caller = { rol: 'administrador' };
    } else if (bearer) {
      const till = deps.tillToken?.(bearer);
      if (till) caller = { rol: 'caja', ...till };
    }
    if (!caller) {
      const failures = throttle.fail(peer);
      deps.logger.warn('panel token refused', { peer, url: request.routeOptions.url ?? 'unknown', failures, present: bearer !== '' });
      throw new EngineError(401, 'PANEL_TOKEN_REQUIRED', 'Token de panel ausente o no válido');
    }
    request.panelCaller = caller;
    if (caller.rol !== 'administrador' && isAdminRoute(request.method, request.routeOptions.url)) {
      throw adminRequired('Solo el administrador del servidor puede hacer esto (no con el token de una caja)');
    }
  };
}

// ---------------------------------------------------------------- the launch token

/** 128 bits: the least a panel token may carry. */
export const MIN_TOKEN_BITS = 128;

/**
 * A rough upper bound of a token's entropy: length × log2(distinct characters used). A random
 * base64url token of 32 characters scores ≈ 150; `1234` 8, `aaaa…` 0. Refuses short and
 * repetitive tokens; it cannot tell a memorable phrase from a random one, so it is a floor only.
 */
export function tokenBitsEstimate(token: string): number {
  const distinct = new Set(token).size;
  return distinct <= 1 ? 0 : token.length * Math.log2(distinct);
}

export class WeakTokenError extends Error {
  constructor(variable: string, bits: number) {
    super(
      `${variable} is too weak (about ${Math.floor(bits)} bits; at least ${MIN_TOKEN_BITS} are needed: 32 or more random characters, ` +
        `e.g. \`node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"\`), or leave it unset and the engine makes one`,
    );
    this.name = 'WeakTokenError';
  }
}

/** Throws WeakTokenError for a token under MIN_TOKEN_BITS (configured tokens: refused at start). */
export function assertStrongToken(variable: string, token: string): void {
  const bits = tokenBitsEstimate(token);
  if (bits < MIN_TOKEN_BITS) throw new WeakTokenError(variable, bits);
}

export const PANEL_TOKEN_FILE = 'panel-token';

/**
 * The administrator's token: POS_PANEL_TOKEN when set (refused when weak), else the one this data
 * dir already holds (`panel-token`, mode 0600), else 32 random bytes written there — so it survives
 * restarts and never has to be retyped or handed out again.
 */
export function resolvePanelToken(configured: string | undefined, dataDir: string, newSecret: () => string): string {
  if (configured !== undefined && configured !== '') {
    assertStrongToken('POS_PANEL_TOKEN', configured);
    return configured;
  }
  const file = path.join(dataDir, PANEL_TOKEN_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (tokenBitsEstimate(kept) >= MIN_TOKEN_BITS) return kept;
  } catch {
    // None yet: made below.
  }
  const token = newSecret();
  assertStrongToken('generated panel token', token);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}
