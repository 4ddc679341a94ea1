// «NO VERI*FACTU» (issue 32) in the sync view: nothing is sent, records are signed and kept, and an
// event log is chained and signed. Read here: the issuer's event log (GET /v1/clientes/{nif}/eventos
// through the management relay, newest first, paged) and anomaly detection on demand
// (POST /panel/v1/sync/anomalias), each said in words.
import type { z } from 'zod';
import { create } from 'zustand';
import { deteccionAnomaliasSchema, eventosListResponseSchema, type EventosListResponse } from '../../../src-shared/api/eventos';
import type { Entorno } from '../../../src-shared/api/common';
import type { Problem } from '../../api/problems';
import { engineChanged, onEngineChange } from '../../app/engine-events';
import { useSession } from '../../app/session';
import type { MessageKey } from '../../i18n';

export type EventoSif = EventosListResponse['eventos'][number];
export type DeteccionAnomalias = z.infer<typeof deteccionAnomaliasSchema>;

/** Events per page of the log. */
export const EVENTOS_POR_PAGINA = 20;

/** TipoEvento of EventosSIF.xsd in the staff's words. */
const TIPO_EVENTO: Record<EventoSif['tipoEvento'], MessageKey> = {
  '01': 'evento.tipo.01',
  '02': 'evento.tipo.02',
  '03': 'evento.tipo.03',
  '04': 'evento.tipo.04',
  '05': 'evento.tipo.05',
  '06': 'evento.tipo.06',
  '07': 'evento.tipo.07',
  '08': 'evento.tipo.08',
  '09': 'evento.tipo.09',
  '10': 'evento.tipo.10',
  '90': 'evento.tipo.90',
};

export function tipoEventoClave(tipo: EventoSif['tipoEvento']): MessageKey {
  return TIPO_EVENTO[tipo];
}

/** TipoAnomalia of EventosSIF.xsd in the staff's words (a code the XSD does not list: «other»). */
const TIPO_ANOMALIA: Record<string, MessageKey> = {
  '01': 'anomalia.tipo.01',
  '02': 'anomalia.tipo.02',
  '03': 'anomalia.tipo.03',
  '04': 'anomalia.tipo.04',
  '05': 'anomalia.tipo.05',
  '06': 'anomalia.tipo.06',
  '07': 'anomalia.tipo.07',
  '08': 'anomalia.tipo.08',
  '09': 'anomalia.tipo.09',
  '10': 'anomalia.tipo.10',
  '11': 'anomalia.tipo.11',
  '12': 'anomalia.tipo.12',
  '13': 'anomalia.tipo.13',
  '14': 'anomalia.tipo.14',
  '15': 'anomalia.tipo.15',
};

export function tipoAnomaliaClave(tipo: string): MessageKey {
  return TIPO_ANOMALIA[tipo] ?? 'anomalia.tipo.90';
}

/** A huella (64 hex characters) short enough for a table: its start and end. */
export function huellaCorta(huella: string): string {
  return huella.length > 16 ? `${huella.slice(0, 8)}…${huella.slice(-6)}` : huella;
}

export interface NoVerifactuState {
  /** The issuer and environment the log below belongs to. */
  nif: string | undefined;
  entorno: Entorno | undefined;
  eventos: EventoSif[];
  total: number;
  proximaPagina: string | null;
  cargando: boolean;
  deteccion: DeteccionAnomalias | undefined;
  detectando: boolean;
  error: Problem | undefined;
  /** Reads the first page of the issuer's log (again). */
  cargar(nif: string, entorno: Entorno): Promise<void>;
  /** Appends the next page. */
  masEventos(): Promise<void>;
  /** One anomaly-detection run; its run and each anomaly become events, so the log is read again. */
  detectar(): Promise<void>;
}

export const useNoVerifactu = create<NoVerifactuState>((set, get) => {
  // Any mutation (an invoice issued, a detection run): the log has new events.
  onEngineChange(async () => {
    const { nif, entorno } = get();
    if (nif && entorno) await get().cargar(nif, entorno);
  });
  const client = () => useSession.getState().client;
  const fail = (error: unknown) => set({ error: useSession.getState().problem(error) });
  const pagina = (nif: string, cursor: string | null) =>
    `/v1/clientes/${encodeURIComponent(nif)}/eventos?limite=${EVENTOS_POR_PAGINA}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  return {
    nif: undefined,
    entorno: undefined,
    eventos: [],
    total: 0,
    proximaPagina: null,
    cargando: false,
    deteccion: undefined,
    detectando: false,
    error: undefined,

    async cargar(nif, entorno) {
      const c = client();
      if (!c) return;
      // Another issuer or environment: nothing of the previous one stays on screen.
      if (nif !== get().nif || entorno !== get().entorno) set({ nif, entorno, eventos: [], total: 0, proximaPagina: null, deteccion: undefined });
      set({ cargando: true });
      try {
        const r = await c.manage.get(pagina(nif, null), eventosListResponseSchema);
        set({ eventos: r.eventos, total: r.total, proximaPagina: r.proximaPagina, error: undefined });
      } catch (error) {
        fail(error);
      } finally {
        set({ cargando: false });
      }
    },

    async masEventos() {
      const c = client();
      const { nif, proximaPagina } = get();
      if (!c || !nif || !proximaPagina) return;
      set({ cargando: true });
      try {
        const r = await c.manage.get(pagina(nif, proximaPagina), eventosListResponseSchema);
        const vistos = new Set(get().eventos.map((e) => e.idEvento));
        set({ eventos: [...get().eventos, ...r.eventos.filter((e) => !vistos.has(e.idEvento))], total: r.total, proximaPagina: r.proximaPagina, error: undefined });
      } catch (error) {
        fail(error);
      } finally {
        set({ cargando: false });
      }
    },

    async detectar() {
      const c = client();
      const { nif, entorno } = get();
      if (!c || !nif || !entorno) return;
      set({ detectando: true });
      try {
        set({ deteccion: await c.panel.post('/panel/v1/sync/anomalias', { entorno, nif }, deteccionAnomaliasSchema), error: undefined });
      } catch (error) {
        fail(error);
        return;
      } finally {
        set({ detectando: false });
      }
      // The run and each anomaly were recorded as events.
      engineChanged();
    },
  };
});
