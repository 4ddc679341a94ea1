import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  loteDetalleSchema,
  loteSchema,
  pausaBodySchema,
  reintentarBodySchema,
  syncResumenSchema,
} from '../../../src-shared/api/sync';
import type { SubmissionBatchesTable } from '../db/schema/submission';
import { mountEmulatorFaultRelay } from '../core/emulator-relay';
import { notFound } from '../core/errors';
import { bloqueoOf } from './blocked';
import type { Clock } from '../platform/clock';
import type { SyncViewStore } from './sync-view-store';

const lote = (b: SubmissionBatchesTable) => ({
  idLote: b.id,
  queueKey: b.queueKey,
  entorno: b.entorno,
  autoridad: b.autoridad,
  obligado: b.obligado,
  numRegistros: b.numRegistros,
  incidencia: b.incidencia === 1,
  estado: b.estado,
  intentos: b.intentos,
  csv: b.csv,
  estadoEnvio: b.estadoEnvio,
  creadoEn: b.creadoEn,
  enviadoEn: b.enviadoEn,
  respondidoEn: b.respondidoEn,
  ultimoError: b.ultimoError,
});

export interface SyncPanelDeps {
  view: SyncViewStore;
  /** The workers, on the filing thread or here: `wakeSubmissions` is a message to it. */
  filing: { wakeSubmissions(): void };
  /** The emulators' control base URL, when the authorities are played by them. */
  emulatorUrl: () => string | undefined;
  /** The engine's clock: a next attempt already due reads as now. */
  clock: Clock;
}

/** Sync view for support staff: the queue, its batches and replies, retry now, pause, faults. */
export function syncPanelRoutes(app: FastifyInstance, deps: SyncPanelDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { view } = deps;

  api.get('/panel/v1/sync', { schema: { tags: ['sync'], response: { 200: syncResumenSchema } } }, async () => {
    const paused = new Set(view.pausedEntornos());
    const inFlight = view.inFlightByEstadoEnvio();
    const porEstadoEnvio: Record<string, Record<string, number>> = { test: {}, live: {} };
    for (const row of inFlight) (porEstadoEnvio[row.entorno] ??= {})[row.estadoEnvio] = Number(row.n);
    // Rejections still standing: a rejected record that a later record of its invoice (the
    // correction, the cancellation) has not superseded. A corrected invoice no longer counts.
    const rechazadosRows = view.standingRejections();
    const rechazados: Record<string, number> = { test: 0, live: 0 };
    for (const row of rechazadosRows) rechazados[row.entorno] = Number(row.n);
    // Per queue: how many records wait and since when (the oldest one's creation).
    const esperando = new Map(view.waitingByQueue().map((r) => [r.queueKey, r]));
    const now = deps.clock.now().toISOString();
    const colas = view.queues().map((q) => {
      // When the worker tries next: the later of the authority's wait and the back-off; with records
      // waiting, not paused and neither ahead (after «Reintentar ahora», say), now — never a time already past.
      const times = [q.siguienteEnvioEn, q.reintentoEn].filter((x): x is string => x !== null).sort();
      const proximo = times[times.length - 1] ?? null;
      const pendientes = esperando.get(q.queueKey)?.n ?? 0;
      return {
        queueKey: q.queueKey,
        entorno: q.entorno,
        autoridad: q.autoridad,
        obligado: q.obligado,
        pendientes,
        masAntiguoEn: esperando.get(q.queueKey)?.desde ?? null,
        siguienteEnvioEn: q.siguienteEnvioEn,
        reintentoEn: q.reintentoEn,
        proximoIntentoEn: pendientes > 0 && !paused.has(q.entorno) && (proximo === null || proximo < now) ? now : proximo,
        fallosSeguidos: q.fallosSeguidos,
        alcanzable: q.alcanzable === null ? null : q.alcanzable === 1,
        ultimoError: q.ultimoError,
        ultimoErrorEn: q.ultimoErrorEn,
        bloqueo: bloqueoOf(q) ?? null,
      };
    });
    // An authority is reachable when its last answer (any queue, per environment) came back.
    const autoridades = new Map<string, { autoridad: string; entorno: 'test' | 'live'; alcanzable: boolean | null }>();
    for (const c of colas) {
      const key = `${c.autoridad}|${c.entorno}`;
      const prev = autoridades.get(key);
      const alcanzable = prev?.alcanzable === false || c.alcanzable === false ? false : (c.alcanzable ?? prev?.alcanzable ?? null);
      autoridades.set(key, { autoridad: c.autoridad, entorno: c.entorno, alcanzable });
    }
    // What waits per till (device), so support sees which till's records are still out (a «NO
    // VERI*FACTU» record is kept, never sent: SyncViewStore.waitingByDevice leaves it out).
    const porDispositivo = view
      .waitingByDevice()
      .map((r) => ({ entorno: r.entorno, nif: r.nifEmisor, idMaquina: r.idMaquina, pendientes: Number(r.n) }));
    return {
      pausado: { test: paused.has('test'), live: paused.has('live') },
      porDispositivo,
      porEstadoEnvio,
      rechazados,
      colas,
      autoridades: [...autoridades.values()],
    };
  });

  api.get(
    '/panel/v1/sync/lotes',
    { schema: { tags: ['sync'], querystring: z.object({ limite: z.coerce.number().int().min(1).max(500).optional() }), response: { 200: z.object({ lotes: z.array(loteSchema) }) } } },
    async (request) => ({
      lotes: view.latestBatches(request.query.limite ?? 50).map(lote),
    }),
  );

  api.get(
    '/panel/v1/sync/lotes/:idLote',
    { schema: { tags: ['sync'], params: z.object({ idLote: z.string() }), response: { 200: loteDetalleSchema } } },
    async (request) => {
      const b = view.batchWithRequest(request.params.idLote);
      if (!b) throw notFound('Lote no encontrado');
      return { ...lote(b), peticion: b.peticion, respuesta: b.respuesta };
    },
  );

  api.post(
    '/panel/v1/sync/reintentar',
    { schema: { tags: ['sync'], body: reintentarBodySchema, response: { 200: z.object({ colas: z.number().int() }) } } },
    async (request) => {
      // "Retry now" lifts the back-off after failures; the authority's own wait (TiempoEsperaEnvio) stays.
      const colas = view.clearBackoff(request.body.queueKey);
      deps.filing.wakeSubmissions();
      return { colas };
    },
  );

  api.post(
    '/panel/v1/sync/pausa',
    { schema: { tags: ['sync'], body: pausaBodySchema, response: { 200: pausaBodySchema } } },
    async (request) => {
      const { entorno, pausado } = request.body;
      view.setPaused(entorno, pausado);
      if (!pausado) deps.filing.wakeSubmissions();
      return { entorno, pausado };
    },
  );

  // The emulators' fault controls, relayed so the till UI can rehearse an outage of each authority.
  mountEmulatorFaultRelay(app, deps.emulatorUrl, '/panel/v1/emuladores/aeat/faults', '/__control/aeat/faults');
  for (const provincia of ['araba', 'bizkaia', 'gipuzkoa'] as const) {
    mountEmulatorFaultRelay(app, deps.emulatorUrl, `/panel/v1/emuladores/tbai/${provincia}/faults`, `/__control/tbai/${provincia}/faults`);
  }
}
