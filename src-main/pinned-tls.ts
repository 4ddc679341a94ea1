// A till of a shop-server engine talks to it over HTTPS and trusts exactly one certificate: the one
// whose SHA-256 fingerprint its engine.json pins (the engine's certificate comes from the engine's
// own local CA, which no till trusts). Nothing is sent before the fingerprint is checked.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';

/** `AA:BB:…` upper case, from `aa:bb…`, `AABB…` or `sha256/…`-less hex. */
export function normalizeFingerprint(value: string): string {
  const hex = value.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
  return hex.match(/.{2}/g)?.join(':') ?? '';
}

export const FINGERPRINT_PATTERN = /^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$/;

export class PinnedCertificateError extends Error {
  constructor(readonly presented: string) {
    super(`the engine presented a certificate (SHA-256 ${presented}) that is not the one engine.json pins: refused`);
    this.name = 'PinnedCertificateError';
  }
}

/**
 * An HTTPS agent that accepts one certificate, by fingerprint, whatever CA signed it. The socket is
 * handed to the request only after the check, so no byte of the request leaves on a wrong one.
 */
export class PinnedAgent extends https.Agent {
  private readonly pinned: string;

  constructor(fingerprint256: string) {
    super({ keepAlive: true });
    this.pinned = normalizeFingerprint(fingerprint256);
  }

  override createConnection(options: tls.ConnectionOptions, callback?: (error: Error | null, socket: Duplex) => void): Duplex | undefined {
    const socket = tls.connect({ ...options, rejectUnauthorized: false });
    const done = callback ?? (() => {});
    socket.once('secureConnect', () => {
      const presented = socket.getPeerCertificate().fingerprint256 ?? '';
      if (normalizeFingerprint(presented) !== this.pinned) {
        const error = new PinnedCertificateError(presented);
        socket.destroy(error);
        done(error, socket);
        return;
      }
      done(null, socket);
    });
    socket.once('error', (error) => done(error, socket));
    return undefined;
  }
}

/** A `fetch` for the till's calls to the shop's engine: HTTPS only, the pinned certificate only. */
export function pinnedFetch(fingerprint256: string): typeof fetch {
  const agent = new PinnedAgent(fingerprint256);
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:') throw new Error(`refused: ${url.origin} is not https`);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = typeof init?.body === 'string' ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(url, { method: init?.method ?? 'GET', headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
          resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: responseHeaders }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;
}

/** What Electron's `session.setCertificateVerifyProc` hands over (the part used here). */
export interface CertificateVerifyRequest {
  hostname: string;
  certificate: { data: string };
}

/**
 * The till window's certificate check: for the shared engine's host, the pinned certificate only
 * (0 accepts, -2 refuses); any other host keeps Chromium's own verdict (-3).
 */
export function pinnedCertificateVerifier(host: string, fingerprint256: string): (request: CertificateVerifyRequest, callback: (verdict: number) => void) => void {
  const pinned = normalizeFingerprint(fingerprint256);
  return (request, callback) => {
    if (request.hostname.toLowerCase() !== host.toLowerCase()) {
      callback(-3);
      return;
    }
    let presented = '';
    try {
      presented = new X509Certificate(request.certificate.data).fingerprint256;
    } catch {
      // Not a certificate: refused below.
    }
    callback(presented !== '' && normalizeFingerprint(presented) === pinned ? 0 : -2);
  };
}
