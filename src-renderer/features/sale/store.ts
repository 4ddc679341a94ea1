// The sale in progress and the last sale's result. Issues through the billing API (via the panel
// relay), then follows the invoice's status until the authority has answered.
import { create } from 'zustand';
import { facturaEnvelopeSchema } from '../../../src-shared/api/facturas';
import { nifValidarResponseSchema, type EstadoNif } from '../../../src-shared/api/nif';
import { ticketbaiEmisionResponse } from '../../../src-shared/api/ticketbai';
import { verifactuEmisionResponse } from '../../../src-shared/api/verifactu';
import type { PrintResult, Receipt } from '../../../src-shared/bridge';
import { validateNif } from '../../../src-shared/nif';
import { describeError } from '../../api/engine-client';
import { nifProblem, type Problem } from '../../api/problems';
import { useSession } from '../../app/session';
import { engineChanged, onEngineChange } from '../../app/engine-events';
import { esFinal, estadoMostrado } from '../invoices/estado';
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
import { loadSaleDraft, saveSaleDraft } from './sale-draft';
import { nombreCaja } from '../device/names';

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
  /** A correction: why the authority refused the invoice (its code and text), shown with what to do. */
  rechazo?: { sistema: 'verifactu' | 'ticketbai'; codigo?: string | undefined; descripcion?: string | undefined } | undefined;
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
  /** Why the authority rejected it (explained with what to do on screen). */
  rechazo?: Original['rechazo'];
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
  /** The VAT rate the entry line took over from the previous line (said on screen); undefined once changed. */
  ivaHeredado: string | undefined;
  setDraft(patch: Partial<Draft>): void;
  /** Checks one field of the entry line as Enter leaves it; false (and `draftError`) when it is not valid. */
  checkField(field: keyof Draft): boolean;
  /** The sale being built, as kept for this till before a reload (restored once the till knows which till it is). */
  restore(): void;
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

  /**
   * Follows the invoice as the invoices screen does (its detail, the same state vocabulary) until
   * it shows a final state. Any mutation in the
   * till (e.g. this invoice cancelled from the invoices screen) starts it again (onEngineChange).
   */
  const follow = (idFactura: string, nifEmisor: string, attempt = 0) => {
    if (pollTimer) clearTimeout(pollTimer);
    // Every second for the first two minutes (a state shown is a state reached, within 2 s; these
    // calls go to the till's own panel, unmetered), then every 5 s.
    const delay = attempt < 120 ? 1000 : 5000;
    pollTimer = setTimeout(async () => {
      const { client } = session();
      const last = get().last;
      if (!client || !last || last.sale.idFactura !== idFactura) return;
      try {
        const detalle = await client.billing.get(`/v1/facturas/${encodeURIComponent(idFactura)}?nifEmisor=${encodeURIComponent(nifEmisor)}`, facturaEnvelopeSchema);
        const value = estadoMostrado(detalle);
        const concluded = esFinal(value);
        const rechazado = detalle.registros.filter((r) => r.estado === 'rechazada' || r.estadoEnvioFinal === 'rechazada').at(-1);
        const rechazo =
          value === 'rechazada' && rechazado
            ? {
                sistema: detalle.factura.sistemaFiscal === 'ticketbai' ? ('ticketbai' as const) : ('verifactu' as const),
                codigo: rechazado.codigoRespuestaAeat ?? rechazado.codigoRespuestaTbai,
                descripcion: rechazado.descripcionRespuestaAeat ?? rechazado.mensajeRespuestaTbai,
              }
            : undefined;
        const current = get().last;
        if (current?.sale.idFactura === idFactura) set({ last: { ...current, estado: value, concluded, rechazo } });
        if (!concluded && attempt < 200) follow(idFactura, nifEmisor, attempt + 1);
      } catch {
        if (attempt < 200) follow(idFactura, nifEmisor, attempt + 1);
      }
    }, attempt === 0 ? 0 : delay);
  };

  onEngineChange(() => {
    const last = get().last;
    if (last) follow(last.sale.idFactura, last.sale.nifEmisor);
  });

  /** Why one field of the entry line is refused (undefined: valid), with the value it reads as. */
  const fieldProblem = (field: keyof Draft): { key: MessageKey; vars?: Record<string, string | number> } | undefined => {
    const { draft, mode } = get();
    if (field === 'descripcion') return draft.descripcion.trim() ? undefined : { key: 'campo.descripcionVacia' };
    if (field === 'cantidad') {
      // Read with its sign, so a negative quantity in a sale is told apart from a typo.
      const cantidad = readAmount(draft.cantidad || '1', 3, true);
      if (!cantidad.ok) return { key: `campo.${cantidad.problem}`, vars: { n: 3 } };
      if (Number(cantidad.value) === 0) return { key: 'campo.cantidadCero' };
      if (mode.kind !== 'devolucion' && cantidad.value.startsWith('-')) return { key: 'campo.cantidadPositiva' };
      return undefined;
    }
    if (field === 'precio') {
      const precio = readAmount(draft.precio, 2);
      return precio.ok ? undefined : { key: `campo.${precio.problem}`, vars: { n: 2 } };
    }
    const tipoIva = readAmount(draft.tipoIva || TIPO_IVA_POR_DEFECTO, 2);
    return !tipoIva.ok || !(TIPOS_IVA as readonly string[]).includes(String(Number(tipoIva.value))) ? { key: 'campo.ivaNoValido' } : undefined;
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
    ivaHeredado: undefined,

    setDraft(patch) {
      set({ draft: { ...get().draft, ...patch }, draftError: undefined, draftMotivo: undefined, ...('tipoIva' in patch ? { ivaHeredado: undefined } : {}) });
    },

    checkField(field) {
      const problem = fieldProblem(field);
      if (!problem) return true;
      set({ draftError: field, draftMotivo: session().t(problem.key, problem.vars ?? {}) });
      return false;
    },

    addLine() {
      for (const field of ['descripcion', 'cantidad', 'precio', 'tipoIva'] as const) if (!get().checkField(field)) return false;
      const { draft } = get();
      const cantidad = readAmount(draft.cantidad || '1', 3, true);
      const precio = readAmount(draft.precio, 2);
      const tipoIva = readAmount(draft.tipoIva || TIPO_IVA_POR_DEFECTO, 2);
      if (!cantidad.ok || !precio.ok || !tipoIva.ok) return false;
      lineSeq += 1;
      const rate = String(Number(tipoIva.value));
      const line: SaleLine = { id: `l${Date.now()}-${lineSeq}`, descripcion: draft.descripcion.trim().slice(0, DESCRIPCION_MAX), cantidad: cantidad.value, precio: precio.value, tipoIva: rate };
      // The next line starts with this line's rate (a café sells at 10 % line after line): said on
      // screen whenever it is not the usual 21 %, so nobody charges a rate they did not choose.
      set({
        lines: [...get().lines, line],
        draft: { ...EMPTY_DRAFT, tipoIva: rate },
        ivaHeredado: rate === TIPO_IVA_POR_DEFECTO ? undefined : rate,
        draftError: undefined,
        draftMotivo: undefined,
        error: undefined,
      });
      return true;
    },

    restore() {
      const kept = loadSaleDraft(session().store, session().idMaquina);
      if (!kept || get().lines.length > 0) return;
      set({ ...kept, draftError: undefined, draftMotivo: undefined, error: undefined, censo: undefined, aviso: session().t('venta.recuperada') });
    },

    removeLine(id) {
      set({ lines: get().lines.filter((l) => l.id !== id) });
    },

    removeLast() {
      set({ lines: get().lines.slice(0, -1) });
    },

    clear() {
      set({
        lines: [],
        draft: { ...EMPTY_DRAFT },
        draftError: undefined,
        draftMotivo: undefined,
        error: undefined,
        tipoFactura: 'F2',
        clienteAbierto: false,
        cliente: { nif: '', nombre: '', direccion: '' },
        censo: undefined,
        ivaHeredado: undefined,
      });
    },

    toggleCliente(open) {
      const clienteAbierto = open ?? !get().clienteAbierto;
      // A full invoice answers the F2 limit: its refusal is no longer the point.
      const error = clienteAbierto && get().error?.campo === 'limiteF2' ? undefined : get().error;
      set({ clienteAbierto, tipoFactura: clienteAbierto ? 'F1' : 'F2', error });
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
        set({ error: { mensaje: t('error.limiteF2'), campo: 'limiteF2' } });
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
        // Every open view of the engine reads it again (the corrected invoice's detail and row…).
        engineChanged();
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
      set({ last: { sale, estado, concluded: esFinal(estado), avisos: [], sistema, idTbai } });
    },
  };
});

// The sale being built is kept for this till as it changes (sale-draft.ts), and dropped once
// completed or cleared; restored when the till starts (App.tsx).
useSale.subscribe((s, prev) => {
  if (s.lines === prev.lines && s.draft === prev.draft && s.cliente === prev.cliente && s.mode === prev.mode && s.clienteAbierto === prev.clienteAbierto && s.tipoFactura === prev.tipoFactura) return;
  const { store, idMaquina, state } = useSession.getState();
  if (state !== 'ready') return;
  saveSaleDraft(store, idMaquina, { lines: s.lines, draft: s.draft, tipoFactura: s.tipoFactura, clienteAbierto: s.clienteAbierto, cliente: s.cliente, mode: s.mode });
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
    caja: sale.idMaquina ? nombreCaja(sale.idMaquina) : undefined,
  });
}
