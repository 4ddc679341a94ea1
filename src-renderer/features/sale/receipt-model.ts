// The customer's ticket as data (src-shared/bridge.ts `Receipt`): the same object drives the
// on-screen preview, the browser print and the Electron print (HTML or ESC/POS in main).
import type { Receipt, ReceiptQr } from '../../../src-shared/bridge';
import { computeTotals, lineImporte, type SaleLine } from './cart';

export interface ReceiptInput {
  ancho: 80 | 58;
  emisor: { nif: string; nombre: string };
  numeroFactura: string;
  fechaExpedicion: string;
  hora?: string | undefined;
  tipoFactura: Receipt['tipoFactura'];
  lines: readonly SaleLine[];
  destinatario?: { nif: string; nombre: string } | undefined;
  qr: ReceiptQr;
  titulo: string;
  pie?: string | undefined;
  copia?: boolean | undefined;
  caja?: string | undefined;
}

export function buildReceipt(input: ReceiptInput): Receipt {
  const totals = computeTotals(input.lines);
  return {
    ancho: input.ancho,
    emisor: input.emisor,
    titulo: input.titulo,
    numeroFactura: input.numeroFactura,
    fechaExpedicion: input.fechaExpedicion,
    ...(input.hora ? { hora: input.hora } : {}),
    tipoFactura: input.tipoFactura,
    ...(input.destinatario ? { destinatario: input.destinatario } : {}),
    lineas: input.lines.map((l) => ({
      descripcion: l.descripcion.slice(0, 120),
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
    ...(input.pie ? { pie: input.pie } : {}),
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
