import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './address-policy';

export type AttemptOutcome =
  | { ok: true; statusCode: number; latencyMs: number }
  | { ok: false; statusCode: number | null; latencyMs: number; error: string };

/** Answer bytes read before the connection is dropped (the content is never used). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * One delivery attempt: POST the exact bytes, no redirects followed, no connection reuse. The
 * status line must arrive within `timeoutMs` (a later answer counts as a failure); only 2xx is a
 * delivery. Never throws.
 */
export function postWebhook(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  options: { timeoutMs: number; now?: () => number; signal?: AbortSignal; pinned?: ResolvedAddress },
): Promise<AttemptOutcome> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const latency = () => Math.max(0, Math.round(now() - started));
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ ok: false, statusCode: null, latencyMs: 0, error: 'URL no válida' });
  }
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    const deadline = setTimeout(() => {
      finish({ ok: false, statusCode: null, latencyMs: latency(), error: `sin respuesta en ${options.timeoutMs} ms` });
      req?.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish({ ok: false, statusCode: null, latencyMs: latency(), error: 'interrumpida: el motor se detiene' });
      req?.destroy();
    };
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    if (options.signal?.aborted) {
      onAbort();
      return;
    }
    options.signal?.addEventListener('abort', onAbort);
    try {
      req = lib.request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'Content-Length': String(body.length) },
          agent: false,
          // The address the policy vetted: the name is not resolved again (DNS rebinding).
          ...(options.pinned ? { lookup: pinnedLookup(options.pinned) } : {}),
        },
        (res) => {
          const statusCode = res.statusCode ?? 0;
          const ms = latency();
          // Drain a little of the answer, then let the socket go.
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) res.destroy();
          });
          res.on('error', () => undefined);
          // A receiver that never finishes its answer does not keep the socket forever.
          const linger = setTimeout(() => res.destroy(), options.timeoutMs);
          linger.unref();
          res.on('close', () => clearTimeout(linger));
          if (statusCode >= 200 && statusCode < 300) finish({ ok: true, statusCode, latencyMs: ms });
          else {
            const redirect = statusCode >= 300 && statusCode < 400 ? ' (las redirecciones no se siguen)' : '';
            finish({ ok: false, statusCode, latencyMs: ms, error: `HTTP ${statusCode}${redirect}` });
          }
        },
      );
    } catch (error) {
      finish({ ok: false, statusCode: null, latencyMs: latency(), error: error instanceof Error ? error.message : String(error) });
      return;
    }
    req.on('error', (error: NodeJS.ErrnoException) => {
      finish({ ok: false, statusCode: null, latencyMs: latency(), error: error.code ? `${error.code}: ${error.message}` : error.message });
    });
    req.end(body);
  });
}

/** A `lookup` that answers one fixed address, in the callback form the caller asks for (`all` or not). */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (err: null, addresses: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}
