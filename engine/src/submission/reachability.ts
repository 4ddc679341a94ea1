import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { entornoSchema, type Entorno } from '../../../src-shared/api/common';
import type { Clock } from '../platform/clock';

/**
 * A cheap reachability probe of the authorities, so the till can say one is unreachable before
 * the first send fails (the queues' `alcanzable` is only known after a send). A TCP connect to
 * each endpoint's host and port, nothing sent (no request reaches an authority, no fault count is
 * used up); where the shipped emulators play the authority, their transport fault stands for the
 * outage they rehearse (`down`/`timeout` reset or hold every request, which a connect cannot see).
 * Answers are kept a few seconds: the UI polls it.
 */
export interface ReachabilityDeps {
  clock: Clock;
  /** Endpoint URL per authority id (`aeat`, `tbai-araba`, …) and environment. */
  endpoints: () => { autoridad: string; entorno: Entorno; url: string }[];
  emulatorUrl: () => string | undefined;
  timeoutMs?: number;
  cacheMs?: number;
}

export const alcanceResponseSchema = z.object({
  entorno: entornoSchema,
  autoridades: z.array(z.object({ autoridad: z.string(), entorno: entornoSchema, alcanzable: z.boolean(), comprobadoEn: z.string() })),
});

const CONTROL: Record<string, string> = {
  aeat: '/__control/aeat/faults',
  'tbai-araba': '/__control/tbai/araba/faults',
  'tbai-bizkaia': '/__control/tbai/bizkaia/faults',
  'tbai-gipuzkoa': '/__control/tbai/gipuzkoa/faults',
};

function tcpReachable(url: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      resolve(false);
      return;
    }
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    const socket = connect({ host: u.hostname, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function emulatorDown(emulatorUrl: string, autoridad: string, timeoutMs: number): Promise<boolean> {
  const path = CONTROL[autoridad];
  if (!path) return false;
  try {
    const res = await fetch(`${emulatorUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const mode = ((await res.json()) as { mode?: unknown }).mode;
    return mode === 'down' || mode === 'timeout';
  } catch {
    return false;
  }
}

export function reachabilityRoute(app: FastifyInstance, deps: ReachabilityDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const timeoutMs = deps.timeoutMs ?? 2000;
  const cacheMs = deps.cacheMs ?? 2000;
  const cache = new Map<string, { at: number; answer: Promise<z.infer<typeof alcanceResponseSchema>> }>();

  const probe = async (entorno: Entorno, autoridad: string | undefined) => {
    const emulator = deps.emulatorUrl();
    const emulatorOrigin = emulator ? new URL(emulator).origin : undefined;
    const autoridades = await Promise.all(
      deps
        .endpoints()
        .filter((e) => e.entorno === entorno && (autoridad === undefined || e.autoridad === autoridad))
        .map(async (e) => {
          let alcanzable = await tcpReachable(e.url, timeoutMs);
          if (alcanzable && emulator && new URL(e.url).origin === emulatorOrigin) alcanzable = !(await emulatorDown(emulator, e.autoridad, timeoutMs));
          return { autoridad: e.autoridad, entorno, alcanzable, comprobadoEn: deps.clock.now().toISOString() };
        }),
    );
    return { entorno, autoridades };
  };

  api.get(
    '/panel/v1/sync/alcance',
    {
      schema: {
        tags: ['sync'],
        // `autoridad`: only the one the till's issuer files with (a till never probes endpoints it does not use).
        querystring: z.object({ entorno: entornoSchema.optional(), autoridad: z.enum(['aeat', 'tbai-araba', 'tbai-bizkaia', 'tbai-gipuzkoa']).optional() }),
        response: { 200: alcanceResponseSchema },
      },
    },
    async (request) => {
      const entorno = request.query.entorno ?? 'test';
      const key = `${entorno}|${request.query.autoridad ?? ''}`;
      const now = deps.clock.now().getTime();
      const hit = cache.get(key);
      if (hit && now - hit.at < cacheMs) return hit.answer;
      const answer = probe(entorno, request.query.autoridad);
      cache.set(key, { at: now, answer });
      return answer;
    },
  );
}
