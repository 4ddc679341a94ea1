import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Parking } from '../common/transport';
import { HTTP500_HTML, serveWithFaults } from '../common/transport';
import type { TbaiFaults } from './faults';

// The transport half of every TicketBAI service: fault injection (the same flow
// as the AEAT emulator, shared/transport.ts), body reading, and writing the answer.

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

export interface TransportEnv {
  faults: TbaiFaults;
  maxBodyBytes: number;
  /** Responses parked by the timeout fault and timers of the slow one (released on close). */
  parking: Parking;
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
  body: HTTP500_HTML,
};

const TOO_LARGE: Reply = { status: 413, headers: { 'content-type': 'text/plain' }, body: 'Request Entity Too Large' };

export function runService(
  env: TransportEnv,
  req: IncomingMessage,
  res: ServerResponse,
  serve: (body: Buffer) => Promise<Reply>,
  malformed: (processed: Reply | null) => Reply,
): Promise<void> {
  return serveWithFaults(
    {
      takeTransport: () => env.faults.takeTransport(),
      maxBodyBytes: env.maxBodyBytes,
      parking: env.parking,
      closed: env.closed,
      logInjected: env.logInjected,
      send,
      tooLarge: TOO_LARGE,
      broken: (mode, processed) => (mode === 'http500' ? HTTP500 : malformed(processed)),
    },
    req,
    res,
    serve,
  );
}
