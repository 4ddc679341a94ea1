// The sale in progress and the last sale's result. Issues through the billing API (via the panel
// relay), then follows the invoice's status until the authority has answered.
import { create } from 'zustand';
import { estadoFacturaResponseSchema } from '../../../src-shared/api/facturas';
import { nifValidarResponseSchema, type EstadoNif } from '../../../src-shared/api/nif';
import { ticketbaiEmisionResponse } from '../../../src-shared/api/ticketbai';
import { verifactuEmisionResponse } from '../../../src-shared/api/verifactu';
import type { PrintResult, Receipt } from '../../../src-shared/bridge';
import { validateNif } from '../../../src-shared/nif';
import { describeError } from '../../api/engine-client';
import { nifProblem, type Problem } from '../../api/problems';
import { useSession } from '../../app/session';
import { estadoDe } from '../invoices/estado';
import { tillBridge } from '../../platform/bridge';
import { printPage } from '../../platform/page';
import { timeInMadrid, todayInMadrid } from '../../platform/dates';
import type { MessageKey } from '../../i18n';
import {
  buildTicketbaiBody,
  buildVerifactuBody,
  computeTotals,
  DESCRIPCION_MAX,
  readAmount,
  superaLimiteF2,
  TIPO_IVA_POR_DEFECTO,
  TIPOS_IVA,
  type SaleDocument,
  type SaleLine,
} from './cart';
import { SaleIssuer, type EmisionAnswer } from './issuing';
import { Numbering } from './numbering';
import type { RechazoPrevio } from './rechazo-previo';
import { buildReceipt } from './receipt-model';
import { SalesCache, type CachedSale } from './sales-cache';

export interface Draft {
  descripcion: string;
  cantidad: string;
  precio: string;
  tipoIva: string;
}

const EMPTY_DRAFT: Draft = { descripcion: '', cantidad: '1', precio: '', tipoIva: TIPO_IVA_POR_DEFECTO };

/** The invoice a correction or a refund refers to. */
export interface Original {
  idFactura: string;
  numeroFactura: string;
  serie: string;
  numero: string;
  fechaExpedicion: string;
  tipoFactura: 'F1' | 'F2';
  /** VeriFactu correction: what AEAT holds for it (rechazo-previo.ts); absent = the engine decides. */
  rechazoPrevio?: RechazoPrevio | undefined;
}

export type SaleMode = { kind: 'venta' } | { kind: 'subsanar'; original: Original } | { kind: 'devolucion'; original: Original };

export interface LastSale {
  sale: CachedSale;
  estado: string;
  concluded: boolean;
  avisos: string[];
  sistema: 'verifactu' | 'ticketbai';
  idTbai?: string | undefined;
  printed?: PrintResult | undefined;
}

export interface SaleState {
  lines: SaleLine[];
  draft: Draft;
  draftError: keyof Draft | undefined;
  /** Why the field in `draftError` was refused, in the staff's language (shown next to it). */
  draftMotivo: string | undefined;
  tipoFactura: 'F2' | 'F1';
  clienteAbierto: boolean;
  cliente: { nif: string; nombre: string; direccion: string };
  censo: { nif: string; estado: EstadoNif; nombreCenso: string | null } | undefined;
  mode: SaleMode;
  busy: boolean;
  error: Problem | undefined;
  aviso: string | undefined;
  last: LastSale | undefined;
  setDraft(patch: Partial<Draft>): void;
  /** Adds the draft as a line; false (and `draftError`) when a field is not valid. */
  addLine(): boolean;
  removeLine(id: string): void;
  removeLast(): void;
  clear(): void;
  toggleCliente(open?: boolean): void;
  setCliente(patch: Partial<{ nif: string; nombre: string; direccion: string }>): void;
  checkCenso(): Promise<void>;
  complete(): Promise<void>;
  print(copia?: boolean): Promise<void>;
  startCorrection(kind: 'subsanar' | 'devolucion', original: Original, lines: SaleLine[], cliente?: { nif: string; nombre: string; direccion?: string | undefined }): void;
  exitMode(): void;
  showSale(sale: CachedSale, estado: string, sistema?: 'verifactu' | 'ticketbai', idTbai?: string): void;
}

let lineSeq = 0;
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let saleIssuer: SaleIssuer | undefined;

export const useSale = create<SaleState>((set, get) => {
  const session = () => useSession.getState();
  const issuer = () => (saleIssuer ??= new SaleIssuer(new Numbering(session().store)));
  const cache = () => new SalesCache(session().store);

  /** Follows the invoice's status with a gentle back-off (every call counts against the key's limits). */
  const follow = (idFactura: string, nifEmisor: string, attempt = 0) => {
    if (pollTimer) clearTimeout(pollTimer);
    const delay = Math.min(500 * 2 ** Math.min(attempt, 4), 8000);
    pollTimer = setTimeout(async () => {
      const { client } = session();
      const last = get().last;
      if (!client || !last || last.sale.idFactura !== idFactura) return;
      try {
        const estado = await client.billing.get(
          `/v1/facturas/${encodeURIComponent(idFactura)}/estado?nifEmisor=${encodeURIComponent(nifEmisor)}`,
          estadoFacturaResponseSchema,
        );
        const value = estadoDe(estado);
        const concluded = estado.estadoFactura !== null || estado.estadoEnvio === 'rechazada';
        const current = get().last;
        if (current?.sale.idFactura === idFactura) set({ last: { ...current, estado: value, concluded } });
        if (!concluded && attempt < 200) follow(idFactura, nifEmisor, attempt + 1);
      } catch {
        if (attempt < 200) follow(idFactura, nifEmisor, attempt + 1);
      }
    }, delay);
  };

  return {
    lines: [],
    draft: { ...EMPTY_DRAFT },
    draftError: undefined,
    draftMotivo: undefined,
    tipoFactura: 'F2',
    clienteAbierto: false,
    cliente: { nif: '', nombre: '', direccion: '' },
    censo: undefined,
    mode: { kind: 'venta' },
    busy: false,
    error: undefined,
    aviso: undefined,
    last: undefined,

    setDraft(patch) {
      set({ draft: { ...get().draft, ...patch }, draftError: undefined, draftMotivo: undefined });
    },

    addLine() {
      const { draft, mode } = get();
      const t = session().t;
      const refuse = (field: keyof Draft, key: MessageKey, vars: Record<string, string | number> = {}) => {
        set({ draftError: field, draftMotivo: t(key, vars) });
        return false;
      };
      const negative = mode.kind === 'devolucion';
      const descripcion = draft.descripcion.trim();
      if (!descripcion) return refuse('descripcion', 'campo.descripcionVacia');
      // Read with its sign, so a negative quantity in a sale is told apart from a typo.
      const cantidad = readAmount(draft.cantidad || '1', 3, true);
      if (!cantidad.ok) return refuse('cantidad', `campo.${cantidad.problem}`, { n: 3 });
      if (Number(cantidad.value) === 0) return refuse('cantidad', 'campo.cantidadCero');
      if (!negative && cantidad.value.startsWith('-')) return refuse('cantidad', 'campo.cantidadPositiva');
      const precio = readAmount(draft.precio, 2);
      if (!precio.ok) return refuse('precio', `campo.${precio.problem}`, { n: 2 });
      const tipoIva = readAmount(draft.tipoIva || TIPO_IVA_POR_DEFECTO, 2);
      if (!tipoIva.ok || !(TIPOS_IVA as readonly string[]).includes(String(Number(tipoIva.value)))) return refuse('tipoIva', 'campo.ivaNoValido');
      lineSeq += 1;
      const line: SaleLine = { id: `l${Date.now()}-${lineSeq}`, descripcion: descripcion.slice(0, DESCRIPCION_MAX), cantidad: cantidad.value, precio: precio.value, tipoIva: String(Number(tipoIva.value)) };
      set({ lines: [...get().lines, line], draft: { ...EMPTY_DRAFT, tipoIva: draft.tipoIva || TIPO_IVA_POR_DEFECTO }, draftError: undefined, draftMotivo: undefined, error: undefined });
      return true;
    },

    removeLine(id) {
      set({ lines: get().lines.filter((l) => l.id !== id) });
    },

    removeLast() {
      set({ lines: get().lines.slice(0, -1) });
    },

    clear() {
      set({ lines: [], draft: { ...EMPTY_DRAFT }, draftError: undefined, draftMotivo: undefined, error: undefined, tipoFactura: 'F2', clienteAbierto: false, cliente: { nif: '', nombre: '', direccion: '' }, censo: undefined });
    },

    toggleCliente(open) {
      const clienteAbierto = open ?? !get().clienteAbierto;
      set({ clienteAbierto, tipoFactura: clienteAbierto ? 'F1' : 'F2' });
    },

    setCliente(patch) {
      set({ cliente: { ...get().cliente, ...patch } });
    },

    async checkCenso() {
      const { cliente } = get();
      const check = validateNif(cliente.nif);
      const { client } = session();
      if (!check.valid || !client || !cliente.nombre.trim()) return;
      try {
        const res = await client.manage.post('/v1/nif/validar', { nifs: [{ nif: check.normalized, nombre: cliente.nombre.trim() }] }, nifValidarResponseSchema);
        const r = res.resultados[0];
        if (r) set({ censo: { nif: check.normalized, estado: r.estado, nombreCenso: r.nombreCenso } });
      } catch {
        // The census check is advice: the sale goes ahead without it (AEAT answers 2001 at worst).
        set({ censo: undefined });
      }
    },

    async complete() {
      const state = get();
      if (state.busy || state.lines.length === 0) return;
      const { client, emisor, entorno, idMaquina, settings } = session();
      if (!client || !emisor) return;
      const t = session().t;
      const mode = state.mode;
      const tipoFactura: SaleDocument['tipoFactura'] = mode.kind === 'devolucion' ? 'R5' : mode.kind === 'subsanar' ? mode.original.tipoFactura : state.tipoFactura;
      // The F2 limit (AEAT 1150) is known here: say it before the engine refuses it.
      if (tipoFactura === 'F2' && superaLimiteF2(computeTotals(state.lines).importeTotal)) {
        set({ error: { mensaje: t('error.limiteF2') } });
        return;
      }
      let destinatario: { nif: string; nombre: string } | undefined;
      if (tipoFactura === 'F1') {
        const check = validateNif(state.cliente.nif);
        if (!check.valid) {
          set({ error: { mensaje: `${t('venta.nifInvalido')}: ${nifProblem(session().lang, state.cliente.nif) ?? ''}` } });
          return;
        }
        if (!state.cliente.nombre.trim()) {
          set({ error: { mensaje: t('venta.faltaNombre') } });
          return;
        }
        destinatario = { nif: check.normalized, nombre: state.cliente.nombre.trim() };
      }
      const direccion = tipoFactura === 'F1' ? state.cliente.direccion.trim() : '';
      set({ busy: true, error: undefined, aviso: undefined });
      const tbai = emisor.hacienda !== 'verifactu';
      const scope = { entorno, nifEmisor: emisor.nif, serie: mode.kind === 'subsanar' ? mode.original.serie : settings.serie };
      const hora = timeInMadrid(new Date(), settings.zonaHoraria);
      const fecha = mode.kind === 'subsanar' ? mode.original.fechaExpedicion : todayInMadrid(new Date(), settings.zonaHoraria);
      const key = JSON.stringify([scope, fecha, tipoFactura, destinatario ?? null, state.lines.map((l) => [l.descripcion, l.cantidad, l.precio, l.tipoIva])]);
      const doc = (numero: string): SaleDocument => ({
        emisor: { nif: emisor.nif, nombre: emisor.nombre },
        serie: scope.serie,
        numero,
        fechaExpedicion: fecha,
        tipoFactura,
        lines: state.lines,
        destinatario,
        idMaquina: idMaquina || undefined,
        rectificada: mode.kind === 'devolucion' ? mode.original : undefined,
      });
      const send = async (numero: string): Promise<EmisionAnswer> => {
        if (tbai) {
          const provincia = emisor.hacienda.replace('tbai-', '') as 'araba' | 'bizkaia' | 'gipuzkoa';
          const body = buildTicketbaiBody(doc(numero), provincia, hora);
          return mode.kind === 'subsanar'
            ? client.billing.put('/v1/ticketbai/subsanar', { ...body, subsanacion: true }, ticketbaiEmisionResponse)
            : client.billing.post('/v1/ticketbai/crear', body, ticketbaiEmisionResponse);
        }
        const body = buildVerifactuBody(doc(numero));
        return mode.kind === 'subsanar'
          ? client.billing.put(
              '/v1/verifactu/subsanar',
              { ...body, subsanacion: true, ...(mode.original.rechazoPrevio ? { rechazoPrevio: mode.original.rechazoPrevio } : {}) },
              verifactuEmisionResponse,
            )
          : client.billing.post('/v1/verifactu/crear', body, verifactuEmisionResponse);
      };
      try {
        const { answer, numero, renumbered } = await issuer().issue({ scope, key, fixedNumero: mode.kind === 'subsanar' ? mode.original.numero : undefined, send });
        if (renumbered) set({ aviso: t('venta.numeroLibre') });
        const sale: CachedSale = {
          idFactura: answer.idFactura,
          entorno,
          nifEmisor: emisor.nif,
          nombreEmisor: emisor.nombre,
          serie: scope.serie,
          numero,
          numeroFactura: answer.numeroFactura,
          fechaExpedicion: fecha,
          hora,
          tipoFactura,
          lines: state.lines,
          ...(destinatario ? { destinatario: { ...destinatario, ...(direccion ? { direccion } : {}) } } : {}),
          ...(mode.kind === 'devolucion' ? { rectificada: { numeroFactura: mode.original.numeroFactura, fechaExpedicion: mode.original.fechaExpedicion } } : {}),
          urlValidacion: answer.urlValidacion,
          qrBase64: answer.qrBase64,
          ...(answer.huella ? { huella: answer.huella } : {}),
          ...(idMaquina ? { idMaquina } : {}),
        };
        cache().put(sale);
        set({
          last: { sale, estado: 'pendiente_envio', concluded: false, avisos: answer.avisos ?? [], sistema: tbai ? 'ticketbai' : 'verifactu', idTbai: answer.idTbai },
          busy: false,
          mode: { kind: 'venta' },
        });
        get().clear();
        follow(answer.idFactura, emisor.nif);
        if (session().settings.imprimirAlCobrar) void get().print();
      } catch (error) {
        const problem = session().problem(error);
        set({ busy: false, error: { ...problem, mensaje: `${t('venta.error')}: ${problem.mensaje}` } });
      }
    },

    async print(copia = false) {
      const last = get().last;
      if (!last) return;
      const receipt = receiptOf(last, copia);
      const bridge = tillBridge();
      if (bridge) {
        const printed = await bridge.print(receipt).catch((e: unknown) => ({ ok: false as const, error: describeError(e) }));
        const current = get().last;
        if (current) set({ last: { ...current, printed } });
      } else {
        // A browser till prints the preview itself (the print stylesheet shows only the ticket).
        printPage();
      }
    },

    startCorrection(kind, original, lines, cliente) {
      if (pollTimer) clearTimeout(pollTimer);
      set({
        mode: { kind, original },
        lines: kind === 'devolucion' ? lines.map((l, i) => ({ ...l, id: `r${i}-${l.id}`, cantidad: l.cantidad.startsWith('-') ? l.cantidad : `-${l.cantidad}` })) : lines,
        draft: { ...EMPTY_DRAFT, cantidad: kind === 'devolucion' ? '-1' : '1' },
        draftError: undefined,
        draftMotivo: undefined,
        error: undefined,
        // A refund of an invoice from another till: its lines are not here (the engine keeps no lines); say so.
        aviso: kind === 'devolucion' && lines.length === 0 ? session().t('venta.sinLineasOtraCaja') : undefined,
        tipoFactura: original.tipoFactura === 'F1' && kind === 'subsanar' ? 'F1' : 'F2',
        clienteAbierto: kind === 'subsanar' && original.tipoFactura === 'F1',
        cliente: { nif: cliente?.nif ?? '', nombre: cliente?.nombre ?? '', direccion: cliente?.direccion ?? '' },
      });
    },

    exitMode() {
      set({ mode: { kind: 'venta' } });
      get().clear();
    },

    showSale(sale, estado, sistema = 'verifactu', idTbai) {
      set({ last: { sale, estado, concluded: estado === 'registrada' || estado === 'anulada' || estado === 'rectificada' || estado === 'rechazada', avisos: [], sistema, idTbai } });
    },
  };
});

/** The receipt of a sale, in the till's paper width and the shop's document language. */
export function receiptOf(last: LastSale, copia = false): Receipt {
  const { settings } = useSession.getState();
  const { sale } = last;
  return buildReceipt({
    ancho: settings.ancho,
    idioma: settings.idiomaTicket,
    emisor: { nif: sale.nifEmisor, nombre: sale.nombreEmisor },
    numeroFactura: sale.numeroFactura,
    fechaExpedicion: sale.fechaExpedicion,
    hora: sale.hora,
    tipoFactura: sale.tipoFactura,
    lines: sale.lines,
    destinatario: sale.destinatario,
    rectificada: sale.rectificada,
    qr: last.sistema === 'ticketbai' && last.idTbai ? { sistema: 'ticketbai', url: sale.urlValidacion, idTbai: last.idTbai } : { sistema: 'verifactu', url: sale.urlValidacion },
    gracias: true,
    copia,
    caja: sale.idMaquina,
  });
}
