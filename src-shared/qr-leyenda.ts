import type { ReceiptQr } from './bridge';

/**
 * The text printed under the receipt's QR. «VERI*FACTU» only for a system that sends its records
 * (RD 1619/2012 art. 6.5, the QR specification's section 5.1); an invoice of a «NO VERI*FACTU»
 * installation carries the QR of section 5.2 (…/ValidarQRNoVerifactu) and no legend (issue 32).
 * TicketBAI: its identifier.
 */
export function leyendaQr(qr: ReceiptQr): string | undefined {
  if (qr.sistema === 'ticketbai') return qr.idTbai;
  return qr.url.includes('/ValidarQRNoVerifactu?') ? undefined : 'VERI*FACTU';
}
