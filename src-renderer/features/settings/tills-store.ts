// «Cajas de la tienda» (issue 30): on a shop-server engine the administrator gives each till its
// own credential (POST /panel/v1/cajas → the till's engine.json, shown once), lists them and revokes
// one (DELETE /panel/v1/cajas/{idMaquina}: its token and keys refused at once). Administrator-only
// routes: a till's own credential never sees this panel.
import { z } from 'zod';
import { create } from 'zustand';
import type { Problem } from '../../api/problems';
import { engineChanged } from '../../app/engine-events';
import type { MessageKey } from '../../i18n';
import { useSession } from '../../app/session';

const cajaSchema = z.object({
  idCredencial: z.string(),
  idMaquina: z.string(),
  etiqueta: z.string(),
  nifEmisor: z.string(),
  creadoEn: z.string(),
  revocadoEn: z.string().nullable(),
});
export type CajaTienda = z.infer<typeof cajaSchema>;

const cajasSchema = z.object({ cajas: z.array(cajaSchema) });

const resultadoDispositivo = z.enum(['registrado', 'reactivado', 'ya_registrado', 'sin_alta_capacidad', 'sin_emisor']);
export type ResultadoDispositivo = z.infer<typeof resultadoDispositivo>;

/** POST /panel/v1/cajas (201). The keys and the token travel inside engineJson too: only that is shown. */
export const cajaNuevaSchema = z.object({
  idMaquina: z.string(),
  etiqueta: z.string(),
  nifEmisor: z.string(),
  dispositivo: z.object({ test: resultadoDispositivo.catch('registrado'), live: resultadoDispositivo.catch('registrado') }),
  engineJson: z.record(z.string(), z.string()),
});
export type CajaNueva = z.infer<typeof cajaNuevaSchema>;

const revocadaSchema = z.object({ idMaquina: z.string(), revocada: z.literal(true) });

/** Whether the till was registered as a device of the issuer in an environment, in words. */
export const DISPOSITIVO: Record<ResultadoDispositivo, MessageKey> = {
  registrado: 'cajas.dispositivo.registrado',
  reactivado: 'cajas.dispositivo.reactivado',
  ya_registrado: 'cajas.dispositivo.ya_registrado',
  sin_alta_capacidad: 'cajas.dispositivo.sin_alta_capacidad',
  sin_emisor: 'cajas.dispositivo.sin_emisor',
};

/** The engine.json to copy to the till, as the file's text. */
export function engineJsonTexto(nueva: Pick<CajaNueva, 'engineJson'>): string {
  return `${JSON.stringify(nueva.engineJson, null, 2)}\n`;
}

/** A till's name as staff wrote it; the label is required by the route, the id is the fallback. */
export function nombreCajaTienda(c: Pick<CajaTienda, 'etiqueta' | 'idMaquina'>): string {
  return c.etiqueta.trim() || c.idMaquina;
}

export const ETIQUETA_MAX = 120;

export interface TillsState {
  cajas: CajaTienda[] | undefined;
  /** The till just added, with its engine.json: held in memory only, until staff say it is copied. */
  nueva: CajaNueva | undefined;
  busy: boolean;
  error: Problem | undefined;
  cargar(): Promise<void>;
  /** Adds a till; false when the label is not valid or the engine refused. */
  anadir(etiqueta: string): Promise<boolean>;
  /** Revokes a till (the screen confirms first); false when the engine refused. */
  revocar(idMaquina: string): Promise<boolean>;
  /** Staff copied the engine.json: it is forgotten (it cannot be shown again). */
  olvidarNueva(): void;
}

export const useTills = create<TillsState>((set, get) => {
  const client = () => useSession.getState().client;
  const fail = (error: unknown) => set({ error: useSession.getState().problem(error) });
  return {
    cajas: undefined,
    nueva: undefined,
    busy: false,
    error: undefined,

    async cargar() {
      const c = client();
      if (!c) return;
      try {
        set({ cajas: (await c.panel.get('/panel/v1/cajas', cajasSchema)).cajas, error: undefined });
      } catch (error) {
        fail(error);
      }
    },

    async anadir(etiqueta) {
      const c = client();
      const limpia = etiqueta.trim();
      if (!c || limpia === '' || limpia.length > ETIQUETA_MAX) return false;
      set({ busy: true });
      try {
        set({ nueva: await c.panel.post('/panel/v1/cajas', { etiqueta: limpia }, cajaNuevaSchema), error: undefined });
      } catch (error) {
        fail(error);
        return false;
      } finally {
        set({ busy: false });
      }
      engineChanged();
      await get().cargar();
      return true;
    },

    async revocar(idMaquina) {
      const c = client();
      if (!c) return false;
      set({ busy: true });
      try {
        await c.panel.delete(`/panel/v1/cajas/${encodeURIComponent(idMaquina)}`, revocadaSchema);
        set({ error: undefined });
      } catch (error) {
        fail(error);
        return false;
      } finally {
        set({ busy: false });
      }
      engineChanged();
      await get().cargar();
      return true;
    },

    olvidarNueva() {
      set({ nueva: undefined });
    },
  };
});
