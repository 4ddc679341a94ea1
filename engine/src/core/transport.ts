import http from 'node:http';
import https from 'node:https';

export interface TlsClientConfig {
  /** PKCS#12 with the seal or representative certificate (mutual TLS). */
  pfx: Buffer;
  passphrase?: string;
  /** Extra trusted CA (the emulator's test CA). */
  ca?: Buffer;
}

export interface PostResult {
  status: number;
  body: string;
}

export class TransportError extends Error {}

/** POSTs a SOAP 1.1 document; any network failure or time-out is a TransportError (retried). */
export async function postSoap(
  url: string,
  body: string,
  options: { timeoutMs: number; tls?: TlsClientConfig | undefined; onWritten?: (() => void) | undefined },
): Promise<PostResult> {
  const res = await postHttp(url, body, { ...options, headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' } });
  return { status: res.status, body: res.body.toString('utf8') };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** POSTs bytes with the given headers; network failures and time-outs are TransportErrors. */
export function postHttp(
  url: string,
  body: Buffer | string,
  options: { headers: Record<string, string>; timeoutMs: number; tls?: TlsClientConfig | undefined; onWritten?: (() => void) | undefined },
): Promise<HttpResult> {
  const target = new URL(url);
  const lib = target.protocol === 'https:' ? https : http;
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      target,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': payload.length },
        ...(options.tls && target.protocol === 'https:'
          ? { pfx: options.tls.pfx, passphrase: options.tls.passphrase, ...(options.tls.ca ? { ca: options.tls.ca } : {}) }
          : {}),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
        res.on('error', (e) => reject(new TransportError(e.message)));
      },
    );
    req.setTimeout(options.timeoutMs, () => req.destroy(new TransportError(`sin respuesta en ${options.timeoutMs} ms`)));
    req.on('error', (e) => reject(e instanceof TransportError ? e : new TransportError(e.message)));
    if (options.onWritten) req.once('finish', options.onWritten);
    req.end(payload);
  });
}
