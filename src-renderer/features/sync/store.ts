// The sync view for support staff: the queue by estadoEnvio, batches with replies, next attempts,
// reachability, retry now, pause, and (TEST) the emulators' fault controls. Polled while open;
// every call here is a panel route (token-guarded, not metered against the till's API key).
import { z } from 'zod';
import { create } from 'zustand';
import { loteDetalleSchema, loteSchema, pausaBodySchema, syncResumenSchema } from '../../../src-shared/api/sync';
import type { Entorno } from '../../../src-shared/api/common';
import { ApiError } from '../../api/engine-client';
import type { Hacienda } from '../../../src-shared/api/common';
import type { Problem } from '../../api/problems';
import { verificacionCadenasSchema, type VerificacionCadenas } from '../../../src-shared/api/verificacion';
import { alcanceSchema, colasReintentadasSchema, faultsSchema, type Alcance, type Faults } from '../../api/panel-schemas';
import { engineChanged, onEngineChange } from '../../app/engine-events';
import { useSession } from '../../app/session';

export type SyncResumen = z.infer<typeof syncResumenSchema>;
export type Lote = z.infer<typeof loteSchema>;
export type LoteDetalle = z.infer<typeof loteDetalleSchema>;

export type EmuladorId = 'aeat' | 'tbai-araba' | 'tbai-bizkaia' | 'tbai-gipuzkoa' | 'censo';

export interface Emulador {
  id: EmuladorId;
  /** Panel route relaying the emulator's `…/faults` control. */
  ruta: string;
  /** Code of "reject the next record"; absent when the emulator gives no per-record verdicts (census). */
  rechazo?: number | string;
}

/**
 * The emulators the till can rehearse with. AEAT and the census are relayed by the panel today
 * (engine/src/submission/panel-routes.ts, engine/src/clients/panel-routes.ts); the TicketBAI routes
 * mirror the emulator's `/__control/tbai/<provincia>/faults` and show up once the panel relays them.
 */
export const EMULADORES: readonly Emulador[] = [
  { id: 'aeat', ruta: '/panel/v1/emuladores/aeat/faults', rechazo: 1100 },
  { id: 'tbai-araba', ruta: '/panel/v1/emuladores/tbai/araba/faults', rechazo: '002' },
  { id: 'tbai-bizkaia', ruta: '/panel/v1/emuladores/tbai/bizkaia/faults', rechazo: 'B4_2000000' },
  { id: 'tbai-gipuzkoa', ruta: '/panel/v1/emuladores/tbai/gipuzkoa/faults', rechazo: '002' },
  { id: 'censo', ruta: '/panel/v1/emuladores/censo/faults' },
];

/** How long "slow" holds each answer: past the engine's patience for a fast answer, short of a timeout. */
export const LENTO_MS = 5000;

export type Falla = 'caida' | 'normal' | 'lento' | 'http500' | 'rechazarSiguiente';

/** The fault patch of one control of an emulator's card. */
export function parcheDe(emulador: Emulador, falla: Falla): Record<string, unknown> {
  switch (falla) {
    case 'caida':
      return { mode: 'down' };
    case 'normal':
      return { mode: 'none' };
    case 'lento':
      return { mode: 'slow', delayMs: LENTO_MS };
    case 'http500':
      return { mode: 'http500' };
    case 'rechazarSiguiente':
      if (emulador.rechazo === undefined) throw new Error(`${emulador.id}: no per-record verdicts`);
      return { rejectNext: { count: 1, codigo: emulador.rechazo } };
  }
}

export interface SyncState {
  resumen: SyncResumen | undefined;
  lotes: Lote[];
  lote: LoteDetalle | undefined;
  /** Fault state of each emulator the panel relays (absent: not relayed or not read yet). */
  faults: Partial<Record<EmuladorId, Faults>>;
  /** Emulators whose control the panel does not relay (its route answered 404). */
  sinControles: EmuladorId[];
  /** false when the emulators are not running (real endpoints): no fault controls. */
  emuladores: boolean;
  error: Problem | undefined;
  actualizadoEn: Date | undefined;
  busy: boolean;
  /** The last «Verificar cadenas» answer, and whether one is running. */
  verificacion: VerificacionCadenas | undefined;
  verificando: boolean;
  /** The authorities' reachability now (GET /panel/v1/sync/alcance), known before any send fails. */
  alcance: Alcance | undefined;
  /** The last «Reintentar ahora»: when, and how many queues it woke (said on screen). */
  reintentado: { en: Date; colas: number } | undefined;
  verificarCadenas(): Promise<void>;
  refresh(): Promise<void>;
  refreshAlcance(): Promise<void>;
  refreshLotes(): Promise<void>;
  refreshFaults(): Promise<void>;
  reintentar(): Promise<void>;
  pausa(entorno: Entorno, pausado: boolean): Promise<void>;
  setFaults(id: EmuladorId, patch: Record<string, unknown>): Promise<void>;
  falla(id: EmuladorId, falla: Falla): Promise<void>;
  openLote(idLote: string): Promise<void>;
}

/** One authority in one environment, summed over its queues (one per issuer). */
export interface AutoridadVista {
  autoridad: string;
  entorno: Entorno;
  alcanzable: boolean | null;
  pendientes: number;
  masAntiguoEn: string | null;
  proximoIntentoEn: string | null;
  ultimoError: string | null;
  ultimoErrorEn: string | null;
}

/** A queue's last error still stands: sends keep failing, or the authority is unreachable. */
export function errorVigente(c: Pick<SyncResumen['colas'][number], 'fallosSeguidos' | 'alcanzable'>): boolean {
  return c.fallosSeguidos > 0 || c.alcanzable === false;
}

/** What the sync view leads with, per authority: reachable, backlog, oldest, next attempt, last error. */
export function autoridadesVista(r: SyncResumen | undefined): AutoridadVista[] {
  if (!r) return [];
  return r.autoridades.map((a) => {
    const colas = r.colas.filter((c) => c.autoridad === a.autoridad && c.entorno === a.entorno);
    const min = (xs: (string | null | undefined)[]) => xs.filter((x): x is string => !!x).sort()[0] ?? null;
    // An error the queue has since got past (its last send went well: no failures in a row) is history, not news.
    const conError = colas.filter((c) => c.ultimoError && errorVigente(c)).sort((x, y) => (y.ultimoErrorEn ?? '').localeCompare(x.ultimoErrorEn ?? ''))[0];
    return {
      autoridad: a.autoridad,
      entorno: a.entorno,
      alcanzable: a.alcanzable,
      pendientes: colas.reduce((n, c) => n + c.pendientes, 0),
      masAntiguoEn: min(colas.map((c) => c.masAntiguoEn)),
      proximoIntentoEn: min(colas.filter((c) => c.pendientes > 0).map((c) => c.proximoIntentoEn)),
      ultimoError: conError?.ultimoError ?? null,
      ultimoErrorEn: conError?.ultimoErrorEn ?? null,
    };
  });
}

/**
 * The authorities of an environment that are unreachable, for the sale screen's banner: the probe
 * (it knows before the first send fails) where it has answered for the environment, else the
 * queues' last attempt.
 */
export function autoridadesCaidas(resumen: SyncResumen | undefined, entorno: Entorno, alcance?: Alcance): string[] {
  if (alcance?.entorno === entorno) {
    const probadas = new Set(alcance.autoridades.map((a) => a.autoridad));
    const caidasSonda = alcance.autoridades.filter((a) => !a.alcanzable).map((a) => a.autoridad);
    // Queues of an authority the probe does not cover still count.
    const otras = (resumen?.autoridades ?? []).filter((a) => a.entorno === entorno && a.alcanzable === false && !probadas.has(a.autoridad)).map((a) => a.autoridad);
    return [...caidasSonda, ...otras];
  }
  return (resumen?.autoridades ?? []).filter((a) => a.entorno === entorno && a.alcanzable === false).map((a) => a.autoridad);
}

/**
 * The emulators the till's issuers use: AEAT for VeriFactu, the province for TicketBAI, the census
 * for every till (its NIF check). No card for an authority nobody here files with.
 */
export function emuladoresDeEmisores(haciendas: readonly Hacienda[]): EmuladorId[] {
  const ids = new Set<EmuladorId>(['censo']);
  for (const h of haciendas) ids.add(h === 'verifactu' ? 'aeat' : h);
  return EMULADORES.map((e) => e.id).filter((id) => ids.has(id));
}

/** Whole-request AEAT faults that hold the queue for a person (engine/src/submission/blocked.ts). */
const CODIGOS_BLOQUEO: ReadonlySet<string> = new Set(['4104', '4105', '4112']);

/** A batch's state as a message key: a batch whose send could not connect is not «waiting for the answer». */
export function estadoLote(l: Pick<Lote, 'estado' | 'ultimoError' | 'respondidoEn'>): string {
  if (l.estado === 'pendiente_respuesta' && l.ultimoError && !l.respondidoEn) {
    // The AEAT answered the whole request with a fault (Codigo[4xxx]): it was reached, nothing was rejected.
    const codigo = /Codigo\[(\d{4})\]/.exec(l.ultimoError)?.[1];
    if (codigo) return CODIGOS_BLOQUEO.has(codigo) ? 'lote.detenido' : 'lote.rehusado';
    return 'lote.sinConexion';
  }
  return `lote.${l.estado}`;
}

/** With nothing left to send: «todo enviado» only when no rejected invoice of the environment still waits for a correction. */
export function avisoSinPendientes(resumen: SyncResumen | undefined, entorno: Entorno): 'sync.vacia' | 'sync.vaciaConRechazos' {
  return (resumen?.rechazados[entorno] ?? 0) > 0 ? 'sync.vaciaConRechazos' : 'sync.vacia';
}

/**
 * Records still in flight for an environment (everything not concluded). A «NO VERI*FACTU» record
 * (`no_remitida`) is signed and kept, never sent: it waits for nothing, so it is not counted here.
 */
export function enVuelo(resumen: SyncResumen | undefined, entorno: Entorno): number {
  const estados = resumen?.porEstadoEnvio[entorno] ?? {};
  return Object.entries(estados).reduce((n, [estado, count]) => (estado === 'rechazada' || estado === 'no_remitida' ? n : n + count), 0);
}

/** «NO VERI*FACTU» records of an environment: signed and kept, not sent (the AEAT asks for them if it wants them). */
export function conservadasSinEnvio(resumen: SyncResumen | undefined, entorno: Entorno): number {
  return resumen?.porEstadoEnvio[entorno]?.no_remitida ?? 0;
}

/** The emulators with a card: relayed by the panel and read at least once. */
export function emuladoresVisibles(s: Pick<SyncState, 'faults' | 'sinControles' | 'emuladores'>): Emulador[] {
  if (!s.emuladores) return [];
  return EMULADORES.filter((e) => s.faults[e.id] !== undefined && !s.sinControles.includes(e.id));
}

export const useSync = create<SyncState>((set, get) => {
  // Any mutation in the till: the queue, its counts and the batches are read again at once.
  onEngineChange(async () => {
    if (!get().resumen) return;
    await get().refresh();
    await get().refreshLotes();
  });
  const client = () => useSession.getState().client;
  const guard = async (fn: () => Promise<void>) => {
    try {
      await fn();
      set({ error: undefined });
    } catch (error) {
      set({ error: useSession.getState().problem(error) });
    }
  };
  /** A 404 says either "no emulators at all" or "the panel has no such relay". */
  const notRelayed = (id: EmuladorId, error: unknown): boolean => {
    if (!(error instanceof ApiError) || error.status !== 404) return false;
    if (error.code === 'EMULATORS_NOT_RUNNING') set({ emuladores: false, faults: {} });
    else set({ sinControles: [...new Set([...get().sinControles, id])] });
    return true;
  };
  return {
    resumen: undefined,
    lotes: [],
    lote: undefined,
    faults: {},
    sinControles: [],
    emuladores: true,
    error: undefined,
    actualizadoEn: undefined,
    busy: false,
    verificacion: undefined,
    verificando: false,
    alcance: undefined,
    reintentado: undefined,

    async refreshAlcance() {
      const c = client();
      if (!c) return;
      const { entorno, emisor } = useSession.getState();
      // Only the authority this till's issuer files with.
      const autoridad = !emisor || emisor.hacienda === 'verifactu' ? 'aeat' : emisor.hacienda;
      try {
        set({ alcance: await c.panel.get(`/panel/v1/sync/alcance?entorno=${entorno}&autoridad=${autoridad}`, alcanceSchema) });
      } catch {
        // An engine without the probe: the queues' last attempt says it instead.
        set({ alcance: undefined });
      }
    },

    verificarCadenas: () =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ verificando: true });
        try {
          set({ verificacion: await c.panel.post('/panel/v1/sync/verificar-cadenas', {}, verificacionCadenasSchema) });
        } finally {
          set({ verificando: false });
        }
      }),

    refresh: () =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ resumen: await c.panel.get('/panel/v1/sync', syncResumenSchema), actualizadoEn: new Date() });
      }),

    refreshLotes: () =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ lotes: (await c.panel.get('/panel/v1/sync/lotes?limite=20', z.object({ lotes: z.array(loteSchema) }))).lotes });
      }),

    async refreshFaults() {
      const c = client();
      if (!c) return;
      for (const e of EMULADORES) {
        if (!get().emuladores) return;
        if (get().sinControles.includes(e.id)) continue;
        try {
          const state = await c.panel.get(e.ruta, faultsSchema);
          set({ faults: { ...get().faults, [e.id]: state } });
        } catch (error) {
          // Anything else (a relay 502 while the emulator restarts): keep the last state shown.
          notRelayed(e.id, error);
        }
      }
    },

    reintentar: () =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ busy: true });
        try {
          const { colas } = await c.panel.post('/panel/v1/sync/reintentar', {}, colasReintentadasSchema);
          set({ reintentado: { en: new Date(), colas } });
        } finally {
          set({ busy: false });
        }
        engineChanged();
        await get().refresh();
      }),

    pausa: (entorno, pausado) =>
      guard(async () => {
        const c = client();
        if (!c) return;
        await c.panel.post('/panel/v1/sync/pausa', { entorno, pausado }, pausaBodySchema);
        engineChanged();
        await get().refresh();
      }),

    setFaults: (id, patch) =>
      guard(async () => {
        const c = client();
        const e = EMULADORES.find((x) => x.id === id);
        if (!c || !e) return;
        try {
          const state = await c.panel.put(e.ruta, patch, faultsSchema);
          set({ faults: { ...get().faults, [id]: state } });
          // A rehearsed outage (or its end) shows in the sale screen's banner at once.
          await get().refreshAlcance();
        } catch (error) {
          if (!notRelayed(id, error)) throw error;
        }
      }),

    falla: (id, falla) => {
      const e = EMULADORES.find((x) => x.id === id);
      return e ? get().setFaults(id, parcheDe(e, falla)) : Promise.resolve();
    },

    openLote: (idLote) =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ lote: await c.panel.get(`/panel/v1/sync/lotes/${encodeURIComponent(idLote)}`, loteDetalleSchema) });
      }),
  };
});
