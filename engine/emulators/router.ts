import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { sendJson } from './http-util';

/**
 * One emulator (AEAT, TicketBAI, census...) or one of its control APIs,
 * mounted under a path prefix of the shared server.
 */
export interface SubHandler {
  /** Path prefix, e.g. `/wlpl/TIKE-CONT/ws/` or `/__control/aeat/`. */
  prefix: string;
  /** Which emulator owns it (shown by /__control/health). */
  owner: string;
  handle(req: IncomingMessage, res: ServerResponse, path: string): void | Promise<void>;
}

export interface TlsOptions {
  key: string | Buffer;
  cert: string | Buffer;
  /** CA(s) that sign accepted client certificates. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Ask for a client certificate (mutual TLS). Default true. */
  requestCert?: boolean;
  /**
   * Refuse the TLS handshake without a valid client certificate. Default true,
   * like AEAT. With false, sub-handlers decide (req.socket.authorized).
   */
  rejectUnauthorized?: boolean;
}

export interface EmulatorRouter {
  readonly server: http.Server | https.Server;
  readonly tls: boolean;
  mount(h: SubHandler): void;
  has(prefix: string): boolean;
  /** Starts listening; resolves with the real port (port 0 picks a free one). */
  listen(port?: number, host?: string): Promise<number>;
  /** Base URL once listening, e.g. `http://127.0.0.1:8790`. */
  url(): string;
  close(): Promise<void>;
}

/** The header that carries the per-launch control token. */
export const CONTROL_TOKEN_HEADER = 'x-control-token';

export interface ControlGuard {
  /** Per-launch secret every change under /__control/ must carry (CONTROL_TOKEN_HEADER). */
  token: string;
}

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/**
 * Whether a /__control/ request may go on (issue 30: the controls trusted any local page). The Host
 * must name the emulator itself with its port (no DNS rebinding); reads need nothing more (no CORS:
 * another origin cannot read them); every change needs `application/json` (no "simple" cross-site
 * form or no-cors POST) and the per-launch token, which a page never has.
 */
export function controlRefusal(
  req: IncomingMessage,
  guard: ControlGuard,
  bound: { host: string; port: number },
): { status: number; error: string } | undefined {
  const host = (req.headers.host ?? '').toLowerCase();
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', bound.host.includes(':') ? `[${bound.host}]` : bound.host]);
  const allowed = [...names].some((name) => host === `${name}:${bound.port}`);
  if (!allowed) return { status: 421, error: 'host_not_allowed' };
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/json')) return { status: 415, error: 'content_type_must_be_application_json' };
  const token = req.headers[CONTROL_TOKEN_HEADER];
  if (typeof token !== 'string' || !sameSecret(token, guard.token)) return { status: 403, error: 'control_token_required' };
  return undefined;
}

export function createRouter(opts: { tls?: TlsOptions; control?: ControlGuard } = {}): EmulatorRouter {
  const handlers: SubHandler[] = [];
  const sockets = new Set<Socket>();
  const startedAt = Date.now();
  let boundHost = '127.0.0.1';
  let boundPort = 0;

  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (opts.control && path.startsWith('/__control/')) {
      const refusal = controlRefusal(req, opts.control, { host: boundHost, port: boundPort });
      if (refusal) {
        sendJson(res, refusal.status, { error: refusal.error });
        return;
      }
    }
    if (path === '/__control/health') {
      sendJson(res, 200, {
        ok: true,
        emulators: [...new Set(handlers.map((h) => h.owner))],
        routes: handlers.map((h) => h.prefix),
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      });
      return;
    }
    // Longest prefix wins so specific routes can sit under generic ones.
    let best: SubHandler | undefined;
    for (const h of handlers) {
      if (path.startsWith(h.prefix) && (!best || h.prefix.length > best.prefix.length)) best = h;
    }
    if (!best) {
      sendJson(res, 404, { error: 'not_found', path });
      return;
    }
    const chosen = best;
    Promise.resolve()
      .then(() => chosen.handle(req, res, path))
      .catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: 'emulator_error', message: String(err) });
        else res.destroy();
      });
  };

  const server = opts.tls
    ? https.createServer(
        {
          key: opts.tls.key,
          cert: opts.tls.cert,
          ...(opts.tls.ca !== undefined ? { ca: opts.tls.ca } : {}),
          requestCert: opts.tls.requestCert ?? true,
          rejectUnauthorized: opts.tls.rejectUnauthorized ?? true,
        },
        dispatch,
      )
    : http.createServer(dispatch);
  // Large batches take a while to upload on slow links; never cut them short.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 5_000;
  server.on(opts.tls ? 'secureConnection' : 'connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  return {
    server,
    tls: Boolean(opts.tls),
    mount(h) {
      if (handlers.some((x) => x.prefix === h.prefix)) throw new Error(`route ${h.prefix} already mounted`);
      handlers.push(h);
    },
    has(prefix) {
      return handlers.some((x) => x.prefix === prefix);
    },
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const addr = server.address();
          boundHost = host;
          boundPort = typeof addr === 'object' && addr ? addr.port : port;
          resolve(boundPort);
        });
      });
    },
    url() {
      const h = boundHost.includes(':') ? `[${boundHost}]` : boundHost;
      return `${opts.tls ? 'https' : 'http'}://${h}:${boundPort}`;
    },
    close() {
      return new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        // Held (timeout-mode) and keep-alive connections would block close forever.
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      });
    },
  };
}
