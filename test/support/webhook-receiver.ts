// A real HTTP receiver for webhook tests: node:http on 127.0.0.1, port 0. It keeps every request
// with its raw body bytes and answers as the test says (status, delay).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The parsed body (parse only after checking the signature over `raw`). */
  json: { evento: string; idEntrega: string; timestamp: string; datos: Record<string, unknown> };
}

export interface Answer {
  status: number;
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Requests whose connection is open and not answered yet (a sender killed now leaves them cut). */
  open: number;
  /** Decides each answer; default 200 at once. */
  answer: (request: ReceivedDelivery) => Answer;
  byPath(path: string): ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const receiver: Receiver = {
    url: '',
    received: [],
    open: 0,
    answer: () => ({ status: 200 }),
    byPath: (p) => receiver.received.filter((r) => r.path === p),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    receiver.open += 1;
    res.once('close', () => (receiver.open -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: ReceivedDelivery['json'];
      try {
        json = JSON.parse(raw.toString('utf8')) as ReceivedDelivery['json'];
      } catch {
        json = { evento: '', idEntrega: '', timestamp: '', datos: {} };
      }
      const delivery: ReceivedDelivery = { path: req.url ?? '/', headers: req.headers, raw, json };
      receiver.received.push(delivery);
      const { status, delayMs = 0 } = receiver.answer(delivery);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** The receiver's side of the signature check: HMAC-SHA256 of the raw bytes, compared in constant time. */
export function signatureValid(raw: Buffer, header: string | string[] | undefined, secreto: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secreto).update(raw).digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The idEntrega the engine gives the delivery of `evento` of one record to one webhook: UUIDv5 of
 * "webhook\nrecord\nevento" in the product's namespace, computed here apart from the engine's code.
 */
export function expectedIdEntrega(idWebhook: string, registroId: string, evento: string): string {
  const h = createHash('sha1')
    .update(Buffer.from('3f8e2a615c0d4b7e9a146d2f0c8b7e53', 'hex'))
    .update(`${idWebhook}\n${registroId}\n${evento}`)
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
