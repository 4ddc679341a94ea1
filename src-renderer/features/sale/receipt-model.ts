// The customer's ticket as data (src-shared/bridge.ts `Receipt`): the same object drives the
// on-screen preview, the browser print and the Electron print (HTML or ESC/POS in main). Its words
// follow the shop's document language (Ajustes: Spanish by default, Basque or bilingual), never
// the staff's UI language.
import type { Receipt, ReceiptQr } from '../../../src-shared/bridge';
import type { IdiomaTicket } from '../../app/session';
import { translate, type MessageKey } from '../../i18n';
import { formatFechaMotor } from '../../i18n/format';
import { computeTotals, DESCRIPCION_MAX, lineImporte, type SaleLine } from './cart';

/** A word of the ticket in the document language; bilingual tickets print Spanish / Basque. */
export function ticketWord(idioma: IdiomaTicket, key: MessageKey, vars: Record<string, string> = {}): string {
  return idioma === 'es-eu' ? `${translate('es', key, vars)} / ${translate('eu', key, vars)}` : translate(idioma, key, vars);
}

export function ticketTitle(idioma: IdiomaTicket, tipoFactura: Receipt['tipoFactura']): string {
  return ticketWord(idioma, tipoFactura === 'F2' ? 'recibo.simplificada' : tipoFactura.startsWith('R') ? 'recibo.rectificativa' : 'recibo.completa');
}

export function ticketLabels(idioma: IdiomaTicket): NonNullable<Receipt['etiquetas']> {
  return {
    cliente: ticketWord(idioma, 'recibo.cliente'),
    base: ticketWord(idioma, 'venta.base'),
    cuota: ticketWord(idioma, 'venta.cuota'),
    total: ticketWord(idioma, 'venta.total'),
    copia: ticketWord(idioma, 'recibo.copia'),
    fecha: ticketWord(idioma, 'recibo.fecha'),
  };
}

export interface ReceiptInput {
  ancho: 80 | 58;
  idioma: IdiomaTicket;
  emisor: { nif: string; nombre: string };
  numeroFactura: string;
  fechaExpedicion: string;
  hora?: string | undefined;
  tipoFactura: Receipt['tipoFactura'];
  lines: readonly SaleLine[];
  destinatario?: { nif: string; nombre: string; direccion?: string | undefined } | undefined;
  /** The invoice a rectifying ticket corrects. */
  rectificada?: { numeroFactura: string; fechaExpedicion: string } | undefined;
  qr: ReceiptQr;
  /** Prints the thanks line (a sale's ticket; a reprint without lines prints its description). */
  gracias?: boolean | undefined;
  copia?: boolean | undefined;
  caja?: string | undefined;
}

export function buildReceipt(input: ReceiptInput): Receipt {
  const totals = computeTotals(input.lines);
  const { direccion, ...destinatario } = input.destinatario ?? { nif: '', nombre: '' };
  return {
    ancho: input.ancho,
    emisor: input.emisor,
    titulo: ticketTitle(input.idioma, input.tipoFactura),
    numeroFactura: input.numeroFactura,
    fechaExpedicion: input.fechaExpedicion,
    ...(input.hora ? { hora: input.hora } : {}),
    tipoFactura: input.tipoFactura,
    ...(input.destinatario ? { destinatario: { ...destinatario, ...(direccion?.trim() ? { direccion: direccion.trim().slice(0, 200) } : {}) } } : {}),
    ...(input.rectificada
      ? { rectifica: ticketWord(input.idioma, 'recibo.rectifica', { n: input.rectificada.numeroFactura, fecha: formatFechaMotor(input.rectificada.fechaExpedicion) }).slice(0, 200) }
      : {}),
    etiquetas: ticketLabels(input.idioma),
    lineas: input.lines.map((l) => ({
      descripcion: l.descripcion.slice(0, DESCRIPCION_MAX),
      cantidad: l.cantidad,
      precio: l.precio,
      importe: lineImporte(l),
      tipoIva: l.tipoIva,
    })),
    desglose: totals.desglose.map((r) => ({ tipoIva: r.tipoIva, base: r.base, cuota: r.cuota })),
    cuotaTotal: totals.cuotaTotal,
    importeTotal: totals.importeTotal,
    qr: input.qr,
    ...(input.copia ? { copia: true } : {}),
    // A refund's ticket does not thank for a purchase.
    ...(input.gracias ? { pie: ticketWord(input.idioma, input.tipoFactura.startsWith('R') ? 'recibo.graciasDevolucion' : 'recibo.gracias') } : {}),
    ...(input.caja ? { caja: input.caja } : {}),
  };
}

/** Characters per line of a thermal printer in font A: 48 on 80 mm, 32 on 58 mm. */
export function columnsFor(ancho: 80 | 58): number {
  return ancho === 80 ? 48 : 32;
}

/** A reprint of an invoice the till has no lines for: the totals the engine keeps, and the QR. */
export function buildReceiptFromTotals(input: Omit<ReceiptInput, 'lines'> & { descripcion?: string | undefined; importeTotal: string; cuotaTotal: string }): Receipt {
  return {
    ...buildReceipt({ ...input, lines: [] }),
    ...(input.descripcion ? { pie: input.descripcion.slice(0, 500) } : {}),
    cuotaTotal: input.cuotaTotal,
    importeTotal: input.importeTotal,
  };
}
