// The pure work issuing hands to the worker pool: functions of their input only (no clock, no
// database, no I/O), so a worker thread computes exactly what the main thread would.
import { firmarRegistro, type IdentidadFirma } from '../no-verifactu/firma-xades';
import { qrPng } from '../qr/png';
import { firmarCadena, type AltaAFirmar } from '../regimes/ticketbai/record/alta-firmada';
import type { SignedTicketBai } from '../regimes/ticketbai/record/xades';
import type { FacturaAnteriorTbai } from '../regimes/ticketbai/record/xml';

export const pureWorkTasks = {
  /** The invoice QR (VeriFactu urlValidacion, TicketBAI QR URL) as the PNG's base64. */
  qrPngBase64: (url: string): string => qrPng(url).toString('base64'),
  /** TicketBAI altas of one chain built and signed (XAdES-EPES) in order, each chained to the one before: one round trip for all. */
  firmarCadenaTbai: (input: { anterior: FacturaAnteriorTbai | null; altas: Omit<AltaAFirmar, 'anterior'>[] }): SignedTicketBai[] =>
    firmarCadena(input.anterior, input.altas),
  /**
   * «NO VERI*FACTU» billing records signed (XAdES-EPES), each on its own: their chain is the huella
   * inside the record, not the signature, so records of one chain sign in any order or thread.
   */
  firmarRegistrosSif: (input: { identidad: IdentidadFirma; signingTime: Date; xmls: string[] }): string[] =>
    input.xmls.map((xml) => firmarRegistro(xml, input.identidad, input.signingTime)),
};
