// The sync view for support staff: the queue by estadoEnvio, batches with replies, next attempts,
// reachability, retry now, pause, and (TEST) the AEAT emulator's fault controls. Polled while open;
// every call here is a panel route (token-guarded, not metered against the till's API key).
import { z } from 'zod';
import { create } from 'zustand';
import { loteDetalleSchema, loteSchema, pausaBodySchema, syncResumenSchema } from '../../../src-shared/api/sync';
import type { Entorno } from '../../../src-shared/api/common';
import { ApiError, describeError } from '../../api/engine-client';
import { colasReintentadasSchema, faultsSchema, type Faults } from '../../api/panel-schemas';
import { useSession } from '../../app/session';

export type SyncResumen = z.infer<typeof syncResumenSchema>;
export type Lote = z.infer<typeof loteSchema>;
export type LoteDetalle = z.infer<typeof loteDetalleSchema>;

export interface SyncState {
  resumen: SyncResumen | undefined;
  lotes: Lote[];
  lote: LoteDetalle | undefined;
  faults: Faults | undefined;
  /** false when the emulators are not running (real endpoints): no fault controls. */
  emuladores: boolean;
  error: string | undefined;
  actualizadoEn: Date | undefined;
  busy: boolean;
  refresh(): Promise<void>;
  refreshLotes(): Promise<void>;
  refreshFaults(): Promise<void>;
  reintentar(): Promise<void>;
  pausa(entorno: Entorno, pausado: boolean): Promise<void>;
  setFaults(patch: Record<string, unknown>): Promise<void>;
  openLote(idLote: string): Promise<void>;
}

/** Records still in flight for an environment (everything not concluded). */
export function enVuelo(resumen: SyncResumen | undefined, entorno: Entorno): number {
  const estados = resumen?.porEstadoEnvio[entorno] ?? {};
  return Object.entries(estados).reduce((n, [estado, count]) => (estado === 'rechazada' ? n : n + count), 0);
}

export const useSync = create<SyncState>((set, get) => {
  const client = () => useSession.getState().client;
  const guard = async (fn: () => Promise<void>) => {
    try {
      await fn();
      set({ error: undefined });
    } catch (error) {
      set({ error: describeError(error) });
    }
  };
  return {
    resumen: undefined,
    lotes: [],
    lote: undefined,
    faults: undefined,
    emuladores: true,
    error: undefined,
    actualizadoEn: undefined,
    busy: false,

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
      if (!c || !get().emuladores) return;
      try {
        set({ faults: await c.panel.get('/panel/v1/emuladores/aeat/faults', faultsSchema) });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) set({ emuladores: false, faults: undefined });
      }
    },

    reintentar: () =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ busy: true });
        try {
          await c.panel.post('/panel/v1/sync/reintentar', {}, colasReintentadasSchema);
        } finally {
          set({ busy: false });
        }
        await get().refresh();
      }),

    pausa: (entorno, pausado) =>
      guard(async () => {
        const c = client();
        if (!c) return;
        await c.panel.post('/panel/v1/sync/pausa', { entorno, pausado }, pausaBodySchema);
        await get().refresh();
      }),

    setFaults: (patch) =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ faults: await c.panel.put('/panel/v1/emuladores/aeat/faults', patch, faultsSchema) });
      }),

    openLote: (idLote) =>
      guard(async () => {
        const c = client();
        if (!c) return;
        set({ lote: await c.panel.get(`/panel/v1/sync/lotes/${encodeURIComponent(idLote)}`, loteDetalleSchema) });
      }),
  };
});
