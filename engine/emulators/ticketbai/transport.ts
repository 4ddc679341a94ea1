import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody } from '../http-util';
import type { TbaiFaults } from './faults';

// The transport half of every TicketBAI service: fault injection (same flow as
// the AEAT emulator), body reading, and writing the answer.

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

export interface TransportEnv {
  faults: TbaiFaults;
  maxBodyBytes: number;
  /** Responses parked by the timeout fault (destroyed on close). */
  held: Set<ServerResponse>;
  sleep(ms: number): Promise<void>;
  closed(): boolean;
  /** Records a request that a transport fault swallowed before processing. */
  logInjected(body: Buffer, mode: string): void;
}

export function send(res: ServerResponse, r: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  res.writeHead(r.status, { ...r.headers, 'content-length': String(body.length) });
  res.end(body);
}

export const HTTP500: Reply = {
  status: 500,
  headers: { 'content-type': 'text/html; charset=UTF-8' },
  body: '<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>',
};

export async function runService(
  env: TransportEnv,
  req: IncomingMessage,
  res: ServerResponse,
  serve: (body: Buffer) => Promise<Reply>,
  malformed: (processed: Reply | null) => Reply,
): Promise<void> {
  const fault = env.faults.takeTransport();
  if (fault?.mode === 'down') {
    env.logInjected(Buffer.alloc(0), 'down');
    const s = req.socket;
    try {
      s.resetAndDestroy();
    } catch {
      s.destroy();
    }
    return;
  }
  let body: Buffer;
  try {
    body = await readBody(req, env.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) {
      send(res, { status: 413, headers: { 'content-type': 'text/plain' }, body: 'Request Entity Too Large' });
      return;
    }
    throw err;
  }
  const hold = (): void => {
    env.held.add(res);
    res.on('close', () => env.held.delete(res));
  };
  if (fault && !fault.afterProcessing) {
    if (fault.mode === 'slow') {
      await env.sleep(fault.delayMs);
    } else {
      env.logInjected(body, fault.mode);
      if (fault.mode === 'timeout') return hold();
      send(res, fault.mode === 'http500' ? HTTP500 : malformed(null));
      return;
    }
  }
  if (env.closed()) return;
  const reply = await serve(body);
  if (fault?.afterProcessing) {
    if (fault.mode === 'slow') await env.sleep(fault.delayMs);
    else if (fault.mode === 'timeout') return hold();
    else {
      send(res, fault.mode === 'http500' ? HTTP500 : malformed(reply));
      return;
    }
  }
  send(res, reply);
}
