// «NO VERI*FACTU» (issue 32) in the sync view: nothing is sent, records are signed and kept, and an
// event log is chained and signed. Read here: the issuer's event log (GET /v1/clientes/{nif}/eventos
// through the management relay, newest first, paged) and anomaly detection on demand
// (POST /panel/v1/sync/anomalias), each said in words; the administrator exports a period's records
// and events (POST /panel/v1/clientes/{nif}/exportacion, the files downloaded by name) and sends them
// on the AEAT's requirement (POST …/requerimiento), each logged as an event.
import type { z } from 'zod';
import { create } from 'zustand';
import {
  deteccionAnomaliasSchema,
  eventosListResponseSchema,
  exportacionResponseSchema,
  requerimientoResponseSchema,
  type EventosListResponse,
  type ExportacionResponse,
  type RequerimientoResponse,
} from '../../../src-shared/api/eventos';
import type { Entorno } from '../../../src-shared/api/common';
import { ApiError } from '../../api/engine-client';
import type { Problem } from '../../api/problems';
import { engineChanged, onEngineChange } from '../../app/engine-events';
import { useSession } from '../../app/session';
import { translate, type MessageKey } from '../../i18n';
import { DEFAULT_TIME_ZONE } from '../../i18n/format';

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

/** A requirement's reference as the AEAT accepts it (4133: letters and digits, 1–18). */
export const REFERENCIA_REQUERIMIENTO = /^[A-Za-z0-9]{1,18}$/;

/** The UTC offset of `timeZone` at `instant`, as ±hh:mm. */
function desfase(instant: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT([+-]\d{2}:\d{2})$/.exec(name);
  return m?.[1] ?? '+00:00';
}

/**
 * A period of whole days in the shop's zone (yyyy-mm-dd, as a date field gives them) as the
 * instants the engine takes: from the first day's 00:00:00 to the last day's 23:59:59, each with
 * that day's offset; undefined when it is not a period.
 */
export function periodoDeDias(desde: string, hasta: string, timeZone: string = DEFAULT_TIME_ZONE): { desde: string; hasta: string } | undefined {
  const dia = /^\d{4}-\d{2}-\d{2}$/;
  if (!dia.test(desde) || !dia.test(hasta) || desde > hasta) return undefined;
  // Spain changes its clocks at 01:00 UTC: midnight there has the offset of 00:00 UTC, 23:59 that of 23:00 UTC.
  return {
    desde: `${desde}T00:00:00${desfase(new Date(`${desde}T00:00:00Z`), timeZone)}`,
    hasta: `${hasta}T23:59:59${desfase(new Date(`${hasta}T23:00:00Z`), timeZone)}`,
  };
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
  exportacion: ExportacionResponse | undefined;
  exportando: boolean;
  requerimiento: RequerimientoResponse | undefined;
  remitiendo: boolean;
  /** Exports the period's records and events (events 08/09); the files are downloaded by name. */
  exportar(periodo: { desde: string; hasta: string }): Promise<void>;
  /** Sends the period's kept records on the AEAT's requirement `ref` (an event of its own). */
  remitir(ref: string, periodo: { desde: string; hasta: string }): Promise<void>;
  /** An exported file's text. */
  fichero(nombre: string): Promise<string | undefined>;
}

export const useNoVerifactu = create<NoVerifactuState>((set, get) => {
  // Any mutation (an invoice issued, a detection run): the log has new events.
  onEngineChange(async () => {
    const { nif, entorno } = get();
    if (nif && entorno) await get().cargar(nif, entorno);
  });
  const client = () => useSession.getState().client;
  const fail = (error: unknown) => set({ error: useSession.getState().problem(error) });
  // A period with no kept records (404 naming `desde`) is said as such, not «not found in the engine».
  const failPeriodo = (error: unknown) => {
    if (error instanceof ApiError && error.status === 404 && error.body?.campo === 'desde') {
      const lang = useSession.getState().lang;
      set({ error: { mensaje: translate(lang, 'noVerifactu.periodoVacio'), detalle: `${error.body.code} · ${error.body.message}` } });
    } else fail(error);
  };
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
    exportacion: undefined,
    exportando: false,
    requerimiento: undefined,
    remitiendo: false,

    async cargar(nif, entorno) {
      const c = client();
      if (!c) return;
      // Another issuer or environment: nothing of the previous one stays on screen.
      if (nif !== get().nif || entorno !== get().entorno) {
        set({ nif, entorno, eventos: [], total: 0, proximaPagina: null, deteccion: undefined, exportacion: undefined, requerimiento: undefined });
      }
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

    async exportar(periodo) {
      const c = client();
      const { nif, entorno } = get();
      if (!c || !nif || !entorno) return;
      set({ exportando: true, exportacion: undefined });
      try {
        const hecho = await c.panel.post(`/panel/v1/clientes/${encodeURIComponent(nif)}/exportacion`, { entorno, ...periodo }, exportacionResponseSchema);
        set({ exportacion: hecho, error: undefined });
      } catch (error) {
        failPeriodo(error);
        return;
      } finally {
        set({ exportando: false });
      }
      // Events 08/09 were written.
      engineChanged();
    },

    async remitir(ref, periodo) {
      const c = client();
      const { nif, entorno } = get();
      if (!c || !nif || !entorno) return;
      set({ remitiendo: true, requerimiento: undefined });
      try {
        const hecho = await c.panel.post(`/panel/v1/clientes/${encodeURIComponent(nif)}/requerimiento`, { entorno, refRequerimiento: ref, ...periodo }, requerimientoResponseSchema);
        set({ requerimiento: hecho, error: undefined });
      } catch (error) {
        failPeriodo(error);
        return;
      } finally {
        set({ remitiendo: false });
      }
      // The sending was recorded as an event.
      engineChanged();
    },

    async fichero(nombre) {
      const c = client();
      const { nif, entorno } = get();
      if (!c || !nif || !entorno) return undefined;
      try {
        return await c.panelText(`/panel/v1/clientes/${encodeURIComponent(nif)}/exportaciones/${encodeURIComponent(nombre)}?entorno=${entorno}`);
      } catch (error) {
        fail(error);
        return undefined;
      }
    },
  };
});
