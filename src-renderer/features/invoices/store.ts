// Invoices of the till's issuer: the list with filters, one invoice's detail with its records and
// the authority's replies, and the actions on it (cancel, correct, refund, reprint).
import { z } from 'zod';
import { create } from 'zustand';
import { facturaEnvelopeSchema, facturasListResponseSchema } from '../../../src-shared/api/facturas';
import { loteDetalleSchema } from '../../../src-shared/api/sync';
import { ticketbaiAnularResponse } from '../../../src-shared/api/ticketbai';
import { verifactuAnularResponse } from '../../../src-shared/api/verifactu';
import { ApiError } from '../../api/engine-client';
import type { Problem } from '../../api/problems';
import { useSession, type Emisor } from '../../app/session';
import { todayInMadrid } from '../../platform/dates';
import { rechazoPrevioDe } from '../sale/rechazo-previo';
import { SalesCache, type CachedSale } from '../sale/sales-cache';
import { useSale, type Original } from '../sale/store';
import { engineChanged, onEngineChange } from '../../app/engine-events';
import { estadoAnulacion, estadoDe, estadoMostrado, type ConEstado } from './estado';

export { estadoAnulacion, estadoDe } from './estado';

export type FacturaItem = z.infer<typeof facturasListResponseSchema>['facturas'][number];
export type FacturaEnvelope = z.infer<typeof facturaEnvelopeSchema>;
export type LoteDetalle = z.infer<typeof loteDetalleSchema>;

const qrJsonSchema = z.object({ qrBase64: z.string(), urlValidacion: z.string() });

/** Filters the engine applies (`estado` of GET /v1/facturas) and two the till derives from the rows. */
export type FiltroEstado = '' | 'registrada' | 'anulada' | 'rectificada' | 'pendiente' | 'rechazada';
const FILTRO_MOTOR: ReadonlySet<FiltroEstado> = new Set(['registrada', 'anulada', 'rectificada']);

export interface Filtros {
  estado: FiltroEstado;
  /** yyyy-mm-dd (date inputs) or ''. */
  desde: string;
  hasta: string;
  texto: string;
  /** Issue date of the number searched in the engine, yyyy-mm-dd; '' = today. */
  fecha: string;
}

/** Rows per page; the derived filters look at more rows per call, since they filter here. */
const PAGINA = 50;
const PAGINA_DERIVADA = 500;

export interface InvoicesState {
  filtros: Filtros;
  facturas: FacturaItem[];
  proximaPagina: string | null;
  /** The issuer as the list answers it (the engine's record of its name). */
  emisorLista: { nif: string; nombre: string } | undefined;
  /** The invoice the engine found for the searched number (shown first while the search stands). */
  encontrada: FacturaItem | undefined;
  /** Why the searched number was not found, or the engine's error. */
  busqueda: Problem | undefined;
  loading: boolean;
  error: Problem | undefined;
  cursor: number;
  detalle: FacturaEnvelope | undefined;
  detalleError: Problem | undefined;
  /** Invoices whose cancellation this till sent and the authority has not answered yet. */
  anulacionesPendientes: Record<string, true>;
  lote: LoteDetalle | undefined;
  reimpresion: { qrBase64: string; urlValidacion: string; sale: CachedSale | undefined } | undefined;
  mensaje: string | undefined;
  /** The clock of "today" for a search without a date (injected for tests). */
  now: () => Date;
  setFiltros(patch: Partial<Filtros>): void;
  load(reset?: boolean): Promise<void>;
  /** Live refresh: reloads every row already loaded (the pages of "más" included). */
  refresh(): Promise<void>;
  /** Looks the searched number up in the engine (GET /v1/facturas/buscar) and opens it. */
  buscar(): Promise<void>;
  moveCursor(delta: number): void;
  open(idFactura: string): Promise<void>;
  refreshDetail(): Promise<void>;
  closeDetail(): void;
  openLote(idLote: string): Promise<void>;
  anular(): Promise<void>;
  reprint(): Promise<void>;
  startCorrection(kind: 'subsanar' | 'devolucion'): void;
}


/** What a row or the detail shows: a cancellation on its way wins over «Registrada». */
export function estadoVisible(f: ConEstado & { idFactura: string }, pendientes: Record<string, true>): string {
  const estado = estadoDe(f);
  return estado === 'registrada' && pendientes[f.idFactura] ? 'anulacion_pendiente' : estado;
}

/**
 * The filter group of a row. The list shows `estadoEnvio` only while there is no `estadoFactura`
 * (spec): `rechazada` there is a rejection; any other (queued, sending, unknown) is pending.
 */
export function grupoDe(f: ConEstado): Exclude<FiltroEstado, ''> {
  if (f.estadoFactura === 'registrada' || f.estadoFactura === 'anulada' || f.estadoFactura === 'rectificada') return f.estadoFactura;
  return f.estadoEnvio === 'rechazada' ? 'rechazada' : 'pendiente';
}

export function visibleFacturas(s: Pick<InvoicesState, 'facturas' | 'filtros' | 'encontrada'>): FacturaItem[] {
  const q = s.filtros.texto.trim().toUpperCase();
  const estado = s.filtros.estado;
  let rows = estado && !FILTRO_MOTOR.has(estado) ? s.facturas.filter((f) => grupoDe(f) === estado) : s.facturas;
  if (q) rows = rows.filter((f) => f.numeroFactura.toUpperCase().includes(q));
  const found = s.encontrada;
  return found && !rows.some((f) => f.idFactura === found.idFactura) ? [found, ...rows] : rows;
}

/**
 * The searched text as the engine's search wants it: series and number apart (never joined). The
 * till's own series is recognised; a bare number is taken as this till's; otherwise the series is
 * everything up to the last "-" (the default series end in "-", serie.ts), or none.
 */
export function parseBusqueda(texto: string, serieCaja: string): { serie?: string; numero: string } | undefined {
  const t = texto.trim();
  if (!t) return undefined;
  const serie = serieCaja.trim();
  // The till's series only when a number follows it ("T1XVK-1" is not series "T1X" + "VK-1").
  if (serie && t.toUpperCase().startsWith(serie.toUpperCase()) && /^\d+$/.test(t.slice(serie.length))) return { serie, numero: t.slice(serie.length) };
  if (/^\d+$/.test(t)) return serie ? { serie, numero: t } : { numero: t };
  const dash = t.lastIndexOf('-');
  if (dash > 0 && dash < t.length - 1) return { serie: t.slice(0, dash + 1), numero: t.slice(dash + 1) };
  return { numero: t };
}

/** yyyy-mm-dd (date input) → dd-mm-aaaa (the engine's date). */
function fechaMotor(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${d}-${m}-${y}`;
}

/** A detail envelope's invoice as a list row. */
function filaDe(f: FacturaEnvelope['factura']): FacturaItem {
  const { serie: _s, numero: _n, fechaExpedicion: _f, urlValidacion: _u, provincia: _p, idMaquina: _m, descripcion: _d, destinatario: _t, estadoFactura, ...rest } = f;
  return { ...rest, ...(estadoFactura && estadoFactura !== 'procesando' ? { estadoFactura } : {}) };
}

/**
 * The issuer's name for a reprint: the engine's record (from the list) first, then the session's
 * issuer; its NIF only when neither knows the name.
 */
export function nombreEmisorPara(nif: string, lista: { nif: string; nombre: string } | undefined, emisor: Emisor | undefined): string {
  if (lista?.nif === nif && lista.nombre) return lista.nombre;
  if (emisor?.nif === nif && emisor.nombre) return emisor.nombre;
  return nif;
}

/** The pending-cancellation marks after reading a detail: its records say where the cancellation stands. */
function conAnulacion(pendientes: Record<string, true>, detalle: FacturaEnvelope): Record<string, true> {
  const id = detalle.factura.idFactura;
  const { [id]: _old, ...rest } = pendientes;
  return estadoAnulacion(detalle) === 'anulacion_pendiente' ? { ...rest, [id]: true } : rest;
}

export const useInvoices = create<InvoicesState>((set, get) => {
  // Any mutation anywhere in the till (a sale, a correction, a refund, a cancellation, a retry):
  // the rows on screen and the open detail are read again at once.
  onEngineChange(async () => {
    if (get().facturas.length > 0 || get().encontrada) await get().refresh();
    await get().refreshDetail();
  });

  /**
   * Shows a detail just read. When it shows the cancellation answered, the list is read again at
   * once: its row must not go on reading «Registrada» beside an «Anulada» detail until the list's
   * next slow refresh (15 s when nothing on screen is being filed).
   */
  const showDetalle = async (detalle: FacturaEnvelope): Promise<void> => {
    const id = detalle.factura.idFactura;
    const wasPending = get().anulacionesPendientes[id] === true;
    const before = get().detalle;
    const changed = before?.factura.idFactura === id && estadoMostrado(before) !== estadoMostrado(detalle);
    const anulacionesPendientes = conAnulacion(get().anulacionesPendientes, detalle);
    set({ detalle, anulacionesPendientes });
    // The detail moved on (answered, corrected, cancelled): its row must say the same at once.
    if ((wasPending && !anulacionesPendientes[id]) || changed) await get().refresh();
  };

  const session = () => useSession.getState();

  /** Every list call; only the newest one started may write the rows (no stale page wins). */
  let seq = 0;
  const pagina = () => (get().filtros.estado && !FILTRO_MOTOR.has(get().filtros.estado) ? PAGINA_DERIVADA : PAGINA);

  const query = (cursor?: string, limite = pagina()) => {
    const { emisor } = session();
    const f = get().filtros;
    const params = new URLSearchParams({ nifEmisor: emisor?.nif ?? '', limite: String(limite) });
    if (f.estado && FILTRO_MOTOR.has(f.estado)) params.set('estado', f.estado);
    if (f.desde) params.set('fechaInicio', f.desde);
    if (f.hasta) params.set('fechaFin', f.hasta);
    if (cursor) params.set('cursor', cursor);
    return `/v1/facturas?${params.toString()}`;
  };

  return {
    filtros: { estado: '', desde: '', hasta: '', texto: '', fecha: '' },
    facturas: [],
    proximaPagina: null,
    emisorLista: undefined,
    encontrada: undefined,
    busqueda: undefined,
    anulacionesPendientes: {},
    now: () => new Date(),
    loading: false,
    error: undefined,
    cursor: 0,
    detalle: undefined,
    detalleError: undefined,
    lote: undefined,
    reimpresion: undefined,
    mensaje: undefined,

    setFiltros(patch) {
      const filtros = { ...get().filtros, ...patch };
      // A new search text or date drops the previous search's answer.
      const nuevaBusqueda = 'texto' in patch || 'fecha' in patch;
      set({ filtros, cursor: 0, ...(nuevaBusqueda ? { encontrada: undefined, busqueda: undefined } : {}) });
      const listChanged = 'estado' in patch || 'desde' in patch || 'hasta' in patch;
      if (listChanged) void get().load(true);
    },

    async load(reset = true) {
      const { client, emisor } = session();
      if (!client || !emisor) return;
      const mine = ++seq;
      set({ loading: true, error: undefined });
      try {
        const cursor = reset ? undefined : (get().proximaPagina ?? undefined);
        if (!reset && !cursor) {
          set({ loading: false });
          return;
        }
        const res = await client.billing.get(query(cursor), facturasListResponseSchema);
        if (mine !== seq) return;
        const known = new Set(get().facturas.map((f) => f.idFactura));
        set({
          facturas: reset ? res.facturas : [...get().facturas, ...res.facturas.filter((f) => !known.has(f.idFactura))],
          proximaPagina: res.proximaPagina,
          emisorLista: { nif: res.nifEmisor, nombre: res.nombreEmisor },
          loading: false,
        });
      } catch (error) {
        if (mine === seq) set({ loading: false, error: session().problem(error) });
      }
    },

    async refresh() {
      const { client, emisor } = session();
      if (!client || !emisor) return;
      const mine = ++seq;
      // Walking the pages from the newest, down to the oldest row on screen: new sales push nothing
      // off the list. Bounded, should that row have left the filter (e.g. registrada → anulada).
      const want = Math.max(pagina(), get().facturas.length);
      const oldest = get().facturas.at(-1)?.idFactura;
      try {
        const rows: FacturaItem[] = [];
        let cursor: string | undefined;
        let next: string | null = null;
        let nombre: { nif: string; nombre: string } | undefined;
        const covered = () => rows.length >= want && (oldest === undefined || rows.some((f) => f.idFactura === oldest) || rows.length >= want + PAGINA_DERIVADA);
        do {
          const res = await client.billing.get(query(cursor, Math.min(PAGINA_DERIVADA, Math.max(pagina(), want - rows.length))), facturasListResponseSchema);
          rows.push(...res.facturas);
          nombre = { nif: res.nifEmisor, nombre: res.nombreEmisor };
          next = res.proximaPagina;
          cursor = next ?? undefined;
        } while (next && !covered());
        if (mine !== seq) return;
        const found = get().encontrada;
        const fresh = found ? rows.find((f) => f.idFactura === found.idFactura) : undefined;
        // A cancellation the authority has concluded (accepted: anulada; refused: still registered
        // with no record pending) is no longer "pending" here; the detail refresh clears refusals.
        const anulacionesPendientes = Object.fromEntries(
          Object.keys(get().anulacionesPendientes)
            .filter((id) => rows.find((f) => f.idFactura === id)?.estadoFactura !== 'anulada')
            .map((id) => [id, true as const]),
        );
        set({ facturas: rows, proximaPagina: next, emisorLista: nombre, error: undefined, anulacionesPendientes, ...(fresh ? { encontrada: fresh } : {}) });
      } catch (error) {
        if (mine === seq) set({ error: session().problem(error) });
      }
    },

    async buscar() {
      const { client, emisor, settings, t } = session();
      const texto = get().filtros.texto.trim().toUpperCase();
      // A number already in the list opens from it: the engine is asked only for what is not here.
      const enLista = get().facturas.find((f) => f.numeroFactura.toUpperCase() === texto);
      if (enLista) {
        set({ busqueda: undefined, cursor: Math.max(0, visibleFacturas(get()).indexOf(enLista)) });
        await get().open(enLista.idFactura);
        return;
      }
      const q = parseBusqueda(get().filtros.texto, settings.serie);
      if (!client || !emisor || !q) return;
      const fecha = get().filtros.fecha ? fechaMotor(get().filtros.fecha) : todayInMadrid(get().now(), session().settings.zonaHoraria);
      const params = new URLSearchParams({ nifEmisor: emisor.nif, ...(q.serie ? { serie: q.serie } : {}), numero: q.numero, fechaExpedicion: fecha });
      set({ busqueda: undefined });
      try {
        const detalle = await client.billing.get(`/v1/facturas/buscar?${params.toString()}`, facturaEnvelopeSchema);
        set({ encontrada: filaDe(detalle.factura), cursor: 0, detalle, detalleError: undefined, lote: undefined, reimpresion: undefined, mensaje: undefined });
      } catch (error) {
        const notFound = error instanceof ApiError && error.status === 404;
        // Rows of the list that contain the text stay the answer: no "not found" above them.
        if (notFound && visibleFacturas(get()).length > 0) {
          set({ encontrada: undefined, busqueda: undefined });
          return;
        }
        set({
          encontrada: undefined,
          busqueda: notFound ? { mensaje: t('facturas.noEncontrada', { n: `${q.serie ?? ''}${q.numero}`, fecha: fecha.replaceAll('-', '/') }) } : session().problem(error),
        });
      }
    },

    moveCursor(delta) {
      const n = visibleFacturas(get()).length;
      if (n === 0) return;
      set({ cursor: Math.max(0, Math.min(n - 1, get().cursor + delta)) });
    },

    async open(idFactura) {
      set({ detalle: undefined, detalleError: undefined, lote: undefined, reimpresion: undefined, mensaje: undefined });
      const { client, emisor } = session();
      if (!client || !emisor) return;
      try {
        const detalle = await client.billing.get(`/v1/facturas/${encodeURIComponent(idFactura)}?nifEmisor=${encodeURIComponent(emisor.nif)}`, facturaEnvelopeSchema);
        await showDetalle(detalle);
      } catch (error) {
        set({ detalleError: session().problem(error) });
      }
    },

    async refreshDetail() {
      const id = get().detalle?.factura.idFactura;
      const { client, emisor } = session();
      if (!id || !client || !emisor) return;
      try {
        const detalle = await client.billing.get(`/v1/facturas/${encodeURIComponent(id)}?nifEmisor=${encodeURIComponent(emisor.nif)}`, facturaEnvelopeSchema);
        if (get().detalle?.factura.idFactura === id) await showDetalle(detalle);
      } catch {
        // Keep what is shown; the next refresh tries again.
      }
    },

    closeDetail() {
      set({ detalle: undefined, detalleError: undefined, lote: undefined, reimpresion: undefined, mensaje: undefined });
    },

    async openLote(idLote) {
      const { client } = session();
      if (!client) return;
      try {
        set({ lote: await client.panel.get(`/panel/v1/sync/lotes/${encodeURIComponent(idLote)}`, loteDetalleSchema) });
      } catch (error) {
        set({ detalleError: session().problem(error) });
      }
    },

    async anular() {
      const detalle = get().detalle;
      const { client, emisor, idMaquina } = session();
      if (!detalle || !client || !emisor) return;
      const f = detalle.factura;
      try {
        if (f.sistemaFiscal === 'ticketbai') {
          await client.billing.post(
            '/v1/ticketbai/anular',
            { nifEmisor: f.nifEmisor, ...(f.serie ? { serie: f.serie } : {}), numero: f.numero, fechaExpedicion: f.fechaExpedicion, provincia: f.provincia, ...(idMaquina ? { idMaquina } : {}) },
            ticketbaiAnularResponse,
          );
        } else {
          await client.billing.post(
            '/v1/verifactu/anular',
            {
              version: '1.0',
              facturaAnulada: { nifEmisor: f.nifEmisor, nombreEmisor: emisor.nombre, ...(f.serie ? { serie: f.serie } : {}), numero: f.numero, fechaExpedicion: f.fechaExpedicion },
              ...(idMaquina ? { idMaquina } : {}),
            },
            verifactuAnularResponse,
          );
        }
        // Sent, not yet accepted: the invoice stays registered until the authority answers; every
        // open view (this detail, the list, the sale's result, the sync view) reads it again.
        set({ anulacionesPendientes: { ...get().anulacionesPendientes, [f.idFactura]: true } });
        engineChanged();
        await get().refreshDetail();
      } catch (error) {
        set({ detalleError: session().problem(error) });
      }
    },

    async reprint() {
      const detalle = get().detalle;
      const { client, emisor, store } = session();
      if (!detalle || !client || !emisor) return;
      try {
        const qr = await client.billing.get(`/v1/facturas/${encodeURIComponent(detalle.factura.idFactura)}/qr?nifEmisor=${encodeURIComponent(emisor.nif)}`, qrJsonSchema);
        set({ reimpresion: { ...qr, sale: new SalesCache(store).get(detalle.factura.idFactura) } });
      } catch (error) {
        set({ detalleError: session().problem(error) });
      }
    },

    startCorrection(kind) {
      const detalle = get().detalle;
      const { store, setScreen } = session();
      if (!detalle) return;
      const f = detalle.factura;
      const tipo = f.tipoFactura === 'F1' ? 'F1' : 'F2';
      // A VeriFactu correction states what AEAT holds (annex 5.1), as the engine works it out.
      const rechazoPrevio = kind === 'subsanar' && f.sistemaFiscal === 'verifactu' ? rechazoPrevioDe(detalle.registros) : undefined;
      // Why the authority refused it: the correction screen says it (and what to do) above the lines.
      const rechazado = kind === 'subsanar' ? detalle.registros.filter((r) => r.estado === 'rechazada' || r.estadoEnvioFinal === 'rechazada').at(-1) : undefined;
      const codigo = rechazado?.codigoRespuestaAeat ?? rechazado?.codigoRespuestaTbai;
      const original: Original = {
        idFactura: f.idFactura,
        numeroFactura: f.numeroFactura,
        serie: f.serie ?? '',
        numero: f.numero,
        fechaExpedicion: f.fechaExpedicion,
        tipoFactura: tipo,
        ...(rechazoPrevio ? { rechazoPrevio } : {}),
        ...(rechazado
          ? { rechazo: { sistema: f.sistemaFiscal === 'ticketbai' ? ('ticketbai' as const) : ('verifactu' as const), codigo, descripcion: rechazado.descripcionRespuestaAeat ?? rechazado.mensajeRespuestaTbai } }
          : {}),
      };
      const cached = new SalesCache(store).get(f.idFactura);
      useSale.getState().startCorrection(kind, original, cached?.lines ?? [], cached?.destinatario);
      setScreen('venta');
    },
  };
});
