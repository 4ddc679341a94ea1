// The till as a device of the engine (spec: Devices): which till this is, registered once with an
// identity the till generates (staff never type an id) and the name staff give it; reactivated
// if it was deactivated; its phase, chain mode, installation number, series and chain.
import { z } from 'zod';
import { create } from 'zustand';
import { dispositivoEnvelopeSchema, dispositivosResponseSchema, type Dispositivo, type DispositivosResponse } from '../../../src-shared/api/dispositivos';
import { ApiError, type EngineClient } from '../../api/engine-client';
import type { Problem } from '../../api/problems';
import { useSession } from '../../app/session';
import { nombreLibre } from '../../../src-shared/nombre-caja';

/** GET /panel/v1/cadena: the chain the till writes to (engine/src/devices/chain-panel-route.ts). */
export const cadenaCajaSchema = z.object({
  propia: z.boolean(),
  sistemaFiscal: z.string(),
  longitud: z.number(),
  ultimaHuella: z.string().nullable(),
  ultimaVentaEn: z.string().nullable().optional(),
});
export type CadenaCaja = z.infer<typeof cadenaCajaSchema>;

/** A till's identity as the web till generates it: `WEB-` and 10 random characters (never typed). */
export function newTillId(): string {
  const bytes = new Uint8Array(10);
  crypto.getRandomValues(bytes);
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return `WEB-${[...bytes].map((b) => alphabet[b % 32]).join('')}`;
}

// Names unique per issuer, and a free one offered (shared with the desktop app's registration).
export { nombreLibre, nombreUsado } from '../../../src-shared/nombre-caja';

const ruta = (nif: string) => `/v1/clientes/${encodeURIComponent(nif)}/dispositivos`;

/** The issuer has no high-capacity mode: the identity is kept as the invoices' metadata only. */
const sinAltaCapacidad = (error: unknown) => error instanceof ApiError && error.code === 'SHARDING_NOT_ENABLED';

/**
 * Registers the till (POST): new, or reactivated when it was deactivated. Already active is fine,
 * and so is an issuer without the mode (nothing to register; the identity still goes on every sale).
 */
export async function registrarCaja(client: EngineClient, nif: string, idMaquina: string, etiqueta: string): Promise<void> {
  try {
    await client.manage.post(ruta(nif), { idMaquina, ...(etiqueta ? { etiqueta: etiqueta.slice(0, 120) } : {}) }, dispositivoEnvelopeSchema);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'MACHINE_ALREADY_REGISTERED') return;
    if (sinAltaCapacidad(error)) return;
    throw error;
  }
}

/** Registers the till when the engine does not have it active (first run in this environment, or deactivated). */
export async function asegurarRegistro(client: EngineClient, nif: string, idMaquina: string, etiqueta: string): Promise<DispositivosResponse> {
  const lista = await client.manage.get(ruta(nif), dispositivosResponseSchema);
  const propio = lista.dispositivos.find((d) => d.idMaquina === idMaquina);
  if (lista.faseAltaCapacidad !== 'no_contratada' && (!propio || !propio.activo)) {
    const nombre = propio?.etiqueta || etiqueta;
    try {
      await registrarCaja(client, nif, idMaquina, nombre);
    } catch (error) {
      // Registered silently, so nobody is there to pick another name: the next free one like it.
      if (!(error instanceof ApiError && error.code === 'DEVICE_LABEL_TAKEN')) throw error;
      await registrarCaja(client, nif, idMaquina, nombreLibre(lista.dispositivos, nombre));
    }
    return client.manage.get(ruta(nif), dispositivosResponseSchema);
  }
  return lista;
}

export interface DeviceState {
  lista: DispositivosResponse | undefined;
  /** When each known till last sold (GET /panel/v1/cadena), for the first-run choice. */
  ultimasVentas: Record<string, string | null>;
  cadena: CadenaCaja | undefined;
  busy: boolean;
  error: Problem | undefined;
  /** The engine's devices of the issuer (for the first-run question and the settings card). */
  load(): Promise<void>;
  /** First run: a new till with this name. */
  registrarNueva(nombre: string): Promise<void>;
  /** First run: this is a till the engine already knows (reactivated when it was deactivated). */
  elegir(dispositivo: Dispositivo): Promise<void>;
  /** Every start and every change of environment: the till registered (again) if it is not. */
  asegurar(): Promise<void>;
}

export const useDevice = create<DeviceState>((set, get) => {
  const session = () => useSession.getState();
  const done = async (idMaquina: string, etiqueta: string) => {
    session().identify(idMaquina, etiqueta);
    await get().load();
  };
  return {
    lista: undefined,
    ultimasVentas: {},
    cadena: undefined,
    busy: false,
    error: undefined,

    async load() {
      const { client, emisor, entorno, idMaquina } = session();
      if (!client || !emisor) return;
      try {
        const lista = await client.manage.get(ruta(emisor.nif), dispositivosResponseSchema);
        const params = new URLSearchParams({ entorno, nif: emisor.nif, ...(idMaquina ? { idMaquina } : {}) });
        const cadena = await client.panel.get(`/panel/v1/cadena?${params.toString()}`, cadenaCajaSchema).catch(() => undefined);
        set({ lista, cadena, error: undefined });
        // On the first run, what tells the known tills apart includes their last sale.
        if (!idMaquina) {
          const ultimas = await Promise.all(
            lista.dispositivos.map(async (d) => {
              const q = new URLSearchParams({ entorno, nif: emisor.nif, idMaquina: d.idMaquina });
              const c = await client.panel.get(`/panel/v1/cadena?${q.toString()}`, cadenaCajaSchema).catch(() => undefined);
              return [d.idMaquina, c?.ultimaVentaEn ?? null] as const;
            }),
          );
          set({ ultimasVentas: Object.fromEntries(ultimas) });
        }
      } catch (error) {
        set({ error: session().problem(error) });
      }
    },

    async registrarNueva(nombre) {
      const { client, emisor } = session();
      const etiqueta = nombre.trim();
      if (!client || !emisor || !etiqueta || get().busy) return;
      set({ busy: true, error: undefined });
      try {
        const idMaquina = newTillId();
        await registrarCaja(client, emisor.nif, idMaquina, etiqueta);
        await done(idMaquina, etiqueta);
      } catch (error) {
        set({ error: session().problem(error) });
      } finally {
        set({ busy: false });
      }
    },

    async elegir(dispositivo) {
      const { client, emisor } = session();
      if (!client || !emisor || get().busy) return;
      set({ busy: true, error: undefined });
      try {
        if (!dispositivo.activo) await registrarCaja(client, emisor.nif, dispositivo.idMaquina, dispositivo.etiqueta);
        await done(dispositivo.idMaquina, dispositivo.etiqueta);
      } catch (error) {
        set({ error: session().problem(error) });
      } finally {
        set({ busy: false });
      }
    },

    async asegurar() {
      const { client, emisor, idMaquina, etiqueta } = session();
      if (!client || !emisor || !idMaquina) return;
      try {
        const lista = await asegurarRegistro(client, emisor.nif, idMaquina, etiqueta);
        set({ lista, error: undefined });
        // The engine's name for this till is the one every view shows (it may have picked a free one).
        const propio = lista.dispositivos.find((d) => d.idMaquina === idMaquina);
        if (propio?.etiqueta && propio.etiqueta !== etiqueta) session().rename(propio.etiqueta);
      } catch (error) {
        // Selling goes on (the identity travels with every sale); the settings card shows why.
        set({ error: session().problem(error) });
      }
    },
  };
});
