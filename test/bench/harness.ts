import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { aTicketTbai } from '../fixtures/ticketbai';
import { pacedLoad, type PacedOptions } from './paced-load';

export interface ServerHandle {
  /** `devices`: the tills registered in phase `activa` (mode `engine-devices`; empty otherwise). */
  info: { url: string; key?: string; nif?: string; dataDir?: string; manageUrl?: string; panelUrl?: string; panelToken?: string; devices?: string[] };
  /** The server's process id (its CPU is read from /proc: postgres.ts). */
  pid: number | undefined;
  stop(): Promise<void>;
}

const here = import.meta.dirname;

/**
 * Cold start: from spawning `server-process.ts <mode>` to the first 200 of `path` (with the
 * engine's key), the way a till finds the engine after a reboot. Stops the server after.
 */
export async function coldStart(mode: 'echo' | 'engine', path: string, method: 'GET' | 'POST' = 'GET'): Promise<{ firstLineMs: number; first200Ms: number }> {
  const t0 = performance.now();
  const server = await startServer(mode);
  const firstLineMs = performance.now() - t0;
  try {
    for (;;) {
      const res = await fetch(`${server.info.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': server.info.key ?? '' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      await res.arrayBuffer();
      if (res.status === 200) return { firstLineMs: Math.round(firstLineMs), first200Ms: Math.round(performance.now() - t0) };
    }
  } finally {
    await server.stop();
  }
}

/** Starts `server-process.ts <mode>` and waits for its first line. */
export async function startServer(
  mode: 'echo' | 'engine' | 'engine-devices' | 'engine-backlog',
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<ServerHandle> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(here, 'server-process.ts'), mode, ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } },
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return {
    info: JSON.parse(first) as ServerHandle['info'],
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  /**
   * Several servers of one service (engine nodes on one PostgreSQL): requests spread over them
   * round-robin (`url` is then ignored). Saturated: autocannon's connections divided among them.
   */
  urls?: string[];
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A body per request (varied so issuing never replays). */
  body?: (i: number) => string;
  connections?: number;
  seconds?: number;
  /**
   * Fixed offered load in req/s, evenly paced (paced-load.ts), for latency at a given rate;
   * saturation (autocannon, closed loop) when absent.
   */
  rate?: number;
  /**
   * Load first run and thrown away (default 1 s), for every server alike: JIT warm-up and
   * first-use work (e.g. the TicketBAI TEST certificate an install generates on its first invoice).
   */
  warmupSeconds?: number;
  /** Paced only: the measured requests' moments (tail.ts); the warm-up's are not kept. */
  trace?: PacedOptions['trace'];
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.rate) {
    const counter = { next: 0 };
    const paced = (seconds: number, trace?: PacedOptions['trace']) =>
      pacedLoad(
        {
          url: options.url,
          ...(options.urls ? { urls: options.urls } : {}),
          method: options.method ?? 'GET',
          headers: { 'content-type': 'application/json', ...options.headers },
          body: options.body,
          rate: options.rate!,
          seconds,
          connections: options.connections ?? 50,
          trace,
        },
        counter,
      );
    if ((options.warmupSeconds ?? 1) > 0) await paced(options.warmupSeconds ?? 1);
    return paced(options.seconds ?? 5, options.trace);
  }
  let counter = 0;
  const run = (duration: number) => autocannon({
    url: options.urls ?? options.url,
    method: options.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...options.headers },
    connections: options.connections ?? 50,
    duration,
    ...(options.body
      ? {
          requests: [
            {
              setupRequest: (req: Record<string, unknown>) => ({ ...req, body: options.body!(counter++) }),
            },
          ],
        }
      : {}),
  } as autocannon.Options);
  const warmup = options.warmupSeconds ?? 1;
  if (warmup > 0) await run(warmup);
  const result = await run(options.seconds ?? 5);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

/**
 * The till a request comes from: none (the issuer's single chain), or one of the registered
 * devices round-robin, each on a series of its own (in `activa` a series belongs to one device).
 */
export function writerOf(devices: readonly string[], run: string, i: number): { serie: string; idMaquina?: string } {
  const idMaquina = devices.length > 0 ? devices[i % devices.length] : undefined;
  return idMaquina === undefined ? { serie: `B${run}-` } : { serie: `B${run}-${idMaquina}-`, idMaquina };
}

/** A distinct simplified invoice per request, so every request is a new chained record. */
export function facturaBody(nif: string, run: string, devices: readonly string[]) {
  return (i: number) => {
    const { serie, idMaquina } = writerOf(devices, run, i);
    return JSON.stringify({
      version: '1.0',
      emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
      cabecera: { serie, numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
      detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21.00', cuotaRepercutida: '2.10' }],
      totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
      ...(idMaquina ? { idMaquina } : {}),
    });
  };
}

/** A distinct TicketBAI simplified invoice (Gipuzkoa) per request, on the issuer's chain or a device's. */
export function ticketbaiBody(run: string, devices: readonly string[]) {
  return (i: number) => {
    const { serie, idMaquina } = writerOf(devices, run, i);
    // The tests' ticket, without its descripción: the body every earlier round measured.
    const { descripcion: _descripcion, ...ticket } = aTicketTbai('gipuzkoa', { nif: 'A58818501', nombre: 'EMISOR GIPUZKOA SL' }, serie, String(i));
    return JSON.stringify({ ...ticket, ...(idMaquina ? { idMaquina } : {}) });
  };
}
