import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { BodyTooLargeError, readBody } from '../http-util';

// The transport half shared by the emulators' services: transport fault
// injection around the service proper, and the responses and timers it parks.

/** Responses parked by the `timeout` fault and timers of the `slow` one, all released on close. */
export class Parking {
  private readonly held = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });

  /** Keeps the response open, unanswered, until the client gives up or the emulator closes. */
  hold(res: ServerResponse): void {
    this.held.add(res);
    res.on('close', () => this.held.delete(res));
  }

  release(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const r of this.held) r.destroy();
    this.held.clear();
  }
}

/** Body of the `http500` fault: a broken proxy, not a service answer. */
export const HTTP500_HTML =
  '<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>';

/** The `malformed` fault: a real answer (or the start of one) cut in the middle. */
export const cutAnswer = (whole: string): string => whole.slice(0, Math.max(40, Math.floor(whole.length * 0.6)));

/** NIF of the client certificate (Spanish certificates carry e.g. IDCES-12345678Z or VATES-B12345674). */
export function certNif(req: IncomingMessage): string | null {
  const sock = req.socket as Partial<TLSSocket>;
  if (typeof sock.getPeerCertificate !== 'function') return null;
  const serial = (sock.getPeerCertificate()?.subject as Record<string, unknown> | undefined)?.serialNumber;
  if (typeof serial !== 'string') return null;
  const nif = serial.replace(/^(IDCES|VATES|PNOES)-/, '').toUpperCase();
  return /^[0-9A-Z]{9}$/.test(nif) ? nif : null;
}

export interface FaultedService<R> {
  /** Takes one use of the transport fault (see shared/faults.ts). */
  takeTransport(): { mode: string; delayMs: number; afterProcessing: boolean } | null;
  maxBodyBytes: number;
  parking: Parking;
  closed(): boolean;
  /** Records a request that a transport fault swallowed before processing (`down`: an empty body); awaited before answering. */
  logInjected(body: Buffer, mode: string): void | Promise<void>;
  send(res: ServerResponse, reply: R): void;
  /** 413 answer for a body over maxBodyBytes. */
  tooLarge: R;
  /** The answer of a fault that breaks it (http500, malformed…); `processed` is the real one after processing. */
  broken(mode: string, processed: R | null): R;
}

/**
 * Serves one request through the transport fault in force: `down` resets the
 * socket, `slow` delays, `timeout` never answers, the others break the answer;
 * with afterProcessing the request is served first and only the answer suffers.
 */
export async function serveWithFaults<R>(
  env: FaultedService<R>,
  req: IncomingMessage,
  res: ServerResponse,
  serve: (body: Buffer) => Promise<R>,
): Promise<void> {
  const fault = env.takeTransport();
  if (fault?.mode === 'down') {
    // Reset without a byte of answer: to the client this is an unreachable host.
    await env.logInjected(Buffer.alloc(0), 'down');
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
      env.send(res, env.tooLarge);
      return;
    }
    throw err;
  }
  if (fault && !fault.afterProcessing) {
    if (fault.mode === 'slow') {
      await env.parking.sleep(fault.delayMs);
    } else {
      await env.logInjected(body, fault.mode);
      if (fault.mode === 'timeout') return env.parking.hold(res);
      env.send(res, env.broken(fault.mode, null));
      return;
    }
  }
  if (env.closed()) return;
  const reply = await serve(body);
  if (fault?.afterProcessing) {
    if (fault.mode === 'slow') await env.parking.sleep(fault.delayMs);
    else if (fault.mode === 'timeout') return env.parking.hold(res);
    else {
      env.send(res, env.broken(fault.mode, reply));
      return;
    }
  }
  env.send(res, reply);
}
