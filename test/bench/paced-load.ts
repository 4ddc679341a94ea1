import http from 'node:http';

/**
 * Open-loop load at a fixed rate, requests spread evenly over time (one every 1000/rate ms), the
 * way tills sell. autocannon's `overallRate` does something else: every connection sends its
 * share of the second back to back at the start of the second and then pauses, so its "latency
 * at 250 req/s" is the latency of a burst through 10 connections. Latency is measured from the
 * moment a request was due, not when a socket was free, so a stalled server is not flattered
 * (coordinated omission).
 */
export interface PacedResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface PacedOptions {
  url: string;
  /** Several servers: request `seq` goes to `urls[seq % urls.length]` (`url` is then ignored). */
  urls?: string[];
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: ((i: number) => string) | undefined;
  rate: number;
  seconds: number;
  /** Sockets kept alive; a request due while all are busy waits for one (and that wait counts). */
  connections: number;
  /**
   * Bench trace (tail.ts): each request carries its body's index in this header, and its due,
   * send and end times (monotonic ms, as tail-trace.ts records the engine's) are pushed here.
   */
  trace?: { header: string; requests: ClientMoments[] } | undefined;
}

export interface ClientMoments {
  seq: number;
  due: number;
  sent: number;
  end: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, index)] ?? 0) * 100) / 100;
}

export async function pacedLoad(options: PacedOptions, counter: { next: number }): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const targets = (options.urls ?? [options.url]).map((url) => new URL(url));
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const total = Math.round(options.rate * options.seconds);
  const intervalMs = 1000 / options.rate;
  // performance.now() counts from timeOrigin; the trace's times are process.hrtime's (monotonic).
  const toMonotonic = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const send = (dueAt: number) =>
    new Promise<void>((resolve) => {
      const seq = counter.next++;
      const target = targets[seq % targets.length]!;
      const body = options.body ? options.body(seq) : undefined;
      const traced = options.trace ? { seq, due: dueAt + toMonotonic, sent: performance.now() + toMonotonic, end: 0 } : undefined;
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: options.method,
          headers: {
            ...options.headers,
            ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}),
            ...(options.trace ? { [options.trace.header]: String(seq) } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const end = performance.now();
            latencies.push(end - dueAt);
            if (traced && options.trace) options.trace.requests.push({ ...traced, end: end + toMonotonic });
            if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      while (sent < total && started + sent * intervalMs <= now) {
        inFlight.push(send(started + sent * intervalMs));
        sent++;
      }
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await Promise.all(inFlight);
  const elapsedSeconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(latencies.length / elapsedSeconds),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    non2xx,
    errors,
  };
}
