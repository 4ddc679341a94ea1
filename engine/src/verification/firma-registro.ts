import { verifyTicketBai, type VerificacionFirma } from '../regimes/ticketbai/record/xades';

/** The end of an event record: its signature sits before it (no-verifactu/firma.ts signs so). */
export const FIN_EVENTO = '</sf:Evento>';

/** The signature of a stored record or event, verified from its XML alone (key from KeyInfo). */
export function verificarFirma(xml: string): VerificacionFirma {
  // The TicketBAI verifier wants the Signature as the root's child: an event's is moved back there
  // (the enveloped transform leaves it out of what is signed wherever it sits).
  const inicio = xml.indexOf('<ds:Signature ');
  const finEvento = xml.lastIndexOf(FIN_EVENTO);
  if (inicio < 0 || finEvento < 0 || inicio > finEvento) return verifyTicketBai(xml);
  const fin = xml.indexOf('</ds:Signature>', inicio) + '</ds:Signature>'.length;
  const firma = xml.slice(inicio, fin);
  const sinFirma = xml.slice(0, inicio) + xml.slice(fin);
  const raizFin = sinFirma.lastIndexOf('</');
  return verifyTicketBai(sinFirma.slice(0, raizFin) + firma + sinFirma.slice(raizFin));
}
