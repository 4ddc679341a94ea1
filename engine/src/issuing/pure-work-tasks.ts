// The pure work issuing hands to the worker pool: functions of their input only (no clock, no
// database, no I/O), so a worker thread computes exactly what the main thread would.
import { qrPng } from '../qr/png';
import { firmarAlta, type AltaAFirmar } from '../ticketbai/alta-firmada';
import type { SignedTicketBai } from '../ticketbai/xades';

export const pureWorkTasks = {
  /** The invoice QR (VeriFactu urlValidacion, TicketBAI QR URL) as the PNG's base64. */
  qrPngBase64: (url: string): string => qrPng(url).toString('base64'),
  /** A TicketBAI alta built and signed (XAdES-EPES), chained to `anterior`. */
  firmarAltaTbai: (input: AltaAFirmar): SignedTicketBai => firmarAlta(input),
};
