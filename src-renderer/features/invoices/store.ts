// Invoices of the till's issuer: the list with filters, one invoice's detail with its records and
// the authority's replies, and the actions on it (cancel, correct, refund, reprint).
import { z } from 'zod';
import { create } from 'zustand';
import { facturaEnvelopeSchema, facturasListResponseSchema } from '../../../src-shared/api/facturas';
import { loteDetalleSchema } from '../../../src-shared/api/sync';
import { ticketbaiAnularResponse } from '../../../src-shared/api/ticketbai';
import { verifactuAnularResponse } from '../../../src-shared/api/verifactu';
import { describeError } from '../../api/engine-client';
import { useSession } from '../../app/session';
import { SalesCache, type CachedSale } from '../sale/sales-cache';
import { useSale, type Original } from '../sale/store';

export type FacturaItem = z.infer<typeof facturasListResponseSchema>['facturas'][number];
export type FacturaEnvelope = z.infer<typeof facturaEnvelopeSchema>;
export type LoteDetalle = z.infer<typeof loteDetalleSchema>;

const qrJsonSchema = z.object({ qrBase64: z.string(), urlValidacion: z.string() });

export interface Filtros {
  estado: '' | 'registrada' | 'anulada' | 'rectificada';
  /** yyyy-mm-dd (date inputs) or ''. */
  desde: string;
  hasta: string;
  texto: string;
}

export interface InvoicesState {
  filtros: Filtros;
  facturas: FacturaItem[];
  proximaPagina: string | null;
  loading: boolean;
  error: string | undefined;
  cursor: number;
  detalle: FacturaEnvelope | undefined;
  detalleError: string | undefined;
  lote: LoteDetalle | undefined;
  reimpresion: { qrBase64: string; urlValidacion: string; sale: CachedSale | undefined } | undefined;
  mensaje: string | undefined;
  setFiltros(patch: Partial<Filtros>): void;
  load(reset?: boolean): Promise<void>;
  moveCursor(delta: number): void;
  open(idFactura: string): Promise<void>;
  refreshDetail(): Promise<void>;
  closeDetail(): void;
  openLote(idLote: string): Promise<void>;
  anular(): Promise<void>;
  reprint(): Promise<void>;
  startCorrection(kind: 'subsanar' | 'devolucion'): void;
}

export function visibleFacturas(s: Pick<InvoicesState, 'facturas' | 'filtros'>): FacturaItem[] {
  const q = s.filtros.texto.trim().toUpperCase();
  return q ? s.facturas.filter((f) => f.numeroFactura.toUpperCase().includes(q)) : s.facturas;
}

export const useInvoices = create<InvoicesState>((set, get) => {
  const session = () => useSession.getState();

  const query = (cursor?: string) => {
    const { emisor } = session();
    const f = get().filtros;
    const params = new URLSearchParams({ nifEmisor: emisor?.nif ?? '', limite: '50' });
    if (f.estado) params.set('estado', f.estado);
    if (f.desde) params.set('fechaInicio', f.desde);
    if (f.hasta) params.set('fechaFin', f.hasta);
    if (cursor) params.set('cursor', cursor);
    return `/v1/facturas?${params.toString()}`;
  };

  return {
    filtros: { estado: '', desde: '', hasta: '', texto: '' },
    facturas: [],
    proximaPagina: null,
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
      set({ filtros, cursor: 0 });
      if (!('texto' in patch) || Object.keys(patch).length > 1) void get().load(true);
    },

    async load(reset = true) {
      const { client, emisor } = session();
      if (!client || !emisor) return;
      set({ loading: true, error: undefined });
      try {
        const cursor = reset ? undefined : (get().proximaPagina ?? undefined);
        const res = await client.billing.get(query(cursor), facturasListResponseSchema);
        set({ facturas: reset ? res.facturas : [...get().facturas, ...res.facturas], proximaPagina: res.proximaPagina, loading: false });
      } catch (error) {
        set({ loading: false, error: describeError(error) });
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
        set({ detalle });
      } catch (error) {
        set({ detalleError: describeError(error) });
      }
    },

    async refreshDetail() {
      const id = get().detalle?.factura.idFactura;
      const { client, emisor } = session();
      if (!id || !client || !emisor) return;
      try {
        const detalle = await client.billing.get(`/v1/facturas/${encodeURIComponent(id)}?nifEmisor=${encodeURIComponent(emisor.nif)}`, facturaEnvelopeSchema);
        if (get().detalle?.factura.idFactura === id) set({ detalle });
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
        set({ detalleError: describeError(error) });
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
        set({ mensaje: session().t('facturas.anulada') });
        await get().refreshDetail();
        void get().load(true);
      } catch (error) {
        set({ detalleError: describeError(error) });
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
        set({ detalleError: describeError(error) });
      }
    },

    startCorrection(kind) {
      const detalle = get().detalle;
      const { store, setScreen } = session();
      if (!detalle) return;
      const f = detalle.factura;
      const tipo = f.tipoFactura === 'F1' ? 'F1' : 'F2';
      const original: Original = { idFactura: f.idFactura, numeroFactura: f.numeroFactura, serie: f.serie ?? '', numero: f.numero, fechaExpedicion: f.fechaExpedicion, tipoFactura: tipo };
      const cached = new SalesCache(store).get(f.idFactura);
      useSale.getState().startCorrection(kind, original, cached?.lines ?? [], cached?.destinatario);
      setScreen('venta');
    },
  };
});
