// The receipt as ESC/POS bytes for a thermal printer, with the printer's native QR (GS ( k) sized
// to 30–40 mm, "QR tributario:" above and "VERI*FACTU" (or the TicketBAI id) below.
import ReceiptPrinterEncoder from '@point-of-sale/receipt-printer-encoder';
import type { Receipt } from '../../src-shared/bridge';
import { leyendaQr } from '../../src-shared/qr-leyenda';
import { escposModuleSize } from './qr-size';

export interface EscposOptions {
  /** Dots per mm of the print head: 8 for the usual 203 dpi. */
  dotsPerMm?: number;
  /** A printer model known to the encoder (sets the code page mapping and columns). */
  modelo?: string;
}

const money = (v: string) => v.replace('.', ',');

export function receiptEscpos(receipt: Receipt, options: EscposOptions = {}): { bytes: Uint8Array; qrMm: number } {
  const dotsPerMm = options.dotsPerMm ?? 8;
  const columns = receipt.ancho === 80 ? 48 : 32;
  const known = ReceiptPrinterEncoder.printerModels.some((m) => m.id === options.modelo);
  const encoder = new ReceiptPrinterEncoder({
    language: 'esc-pos',
    columns,
    ...(known ? { printerModel: options.modelo as never } : { codepageMapping: 'epson' }),
  });
  const { size, mm } = escposModuleSize(receipt.qr.url, dotsPerMm);
  const pad = (left: string, right: string) => {
    const room = Math.max(1, columns - right.length);
    return `${left.slice(0, room - 1).padEnd(room, ' ')}${right}`;
  };

  let e = encoder.initialize().codepage('auto');
  if (receipt.copia) e = e.align('center').bold(true).line(`*** ${receipt.etiquetas?.copia ?? 'COPIA'} ***`).bold(false);
  e = e
    .align('center')
    .bold(true)
    .line(receipt.emisor.nombre)
    .bold(false)
    .line(`NIF ${receipt.emisor.nif}`)
    .newline()
    .bold(true)
    .line('QR tributario:')
    .bold(false)
    .qrcode(receipt.qr.url, { model: 2, size, errorlevel: 'm' })
    .bold(true)
    .line(leyendaQr(receipt.qr) ?? '')
    .bold(false)
    .newline()
    .bold(true)
    .line(receipt.titulo)
    .bold(false)
    .align('left')
    .line(pad(receipt.numeroFactura, `${receipt.fechaExpedicion} ${receipt.hora ?? ''}`.trim()));
  if (receipt.rectifica) e = e.line(receipt.rectifica);
  if (receipt.destinatario) e = e.line(`${receipt.etiquetas?.cliente ?? 'Cliente'}: ${receipt.destinatario.nombre}`).line(`NIF ${receipt.destinatario.nif}`);
  if (receipt.destinatario?.direccion) e = e.line(receipt.destinatario.direccion);
  e = e.rule();
  for (const l of receipt.lineas) {
    e = e.line(pad(l.descripcion, money(l.importe))).line(`  ${l.cantidad.replace('.', ',')} x ${money(l.precio)}  ${l.tipoIva}%`);
  }
  e = e.rule();
  for (const d of receipt.desglose) e = e.line(pad(`${d.tipoIva}% ${receipt.etiquetas?.base ?? 'Base'} ${money(d.base)}`, `${receipt.etiquetas?.cuota ?? 'Cuota'} ${money(d.cuota)}`));
  e = e.bold(true).line(pad((receipt.etiquetas?.total ?? 'Total').toUpperCase(), `${money(receipt.importeTotal)} EUR`)).bold(false);
  if (receipt.pie) e = e.newline().align('center').line(receipt.pie);
  if (receipt.caja) e = e.align('center').line(receipt.caja);
  const bytes = e.newline(3).cut('partial').encode();
  return { bytes, qrMm: mm };
}
