// The signed TicketBAI alta as one pure function of its inputs (no clock, no database): what the
// issuing service runs in the worker pool before its transaction, and in the transaction when the
// chain head moved under a signature made in advance.
import type { FacturaTicketbai } from '../../../../../src-shared/api/ticketbai';
import type { PoliticaFirma } from '../politicas';
import { signTicketBai, type SignedTicketBai } from './xades';
import { buildTicketBaiAlta, type FacturaAnteriorTbai, type SoftwareTbai } from './xml';

export interface AltaAFirmar {
  /** The invoice as the XML declares it (idMaquina: only the routed device, or none). */
  factura: FacturaTicketbai;
  emisorNombre: string;
  /** The previous invoice of the chain (its SignatureValue is chained); null for the first. */
  anterior: FacturaAnteriorTbai | null;
  software: SoftwareTbai;
  /** Generation time: the XML's hour when the request has none, and SigningTime. */
  generadoEn: Date;
  firma: { privateKeyPem: string; certificatePem: string; chainPem?: string[] | undefined; policy: PoliticaFirma };
}

/** What the next alta of the chain chains to (its EncadenamientoFacturaAnterior). */
export function linkOf(factura: Pick<FacturaTicketbai, 'serie' | 'numero' | 'fechaExpedicion'>, signatureValue: string): FacturaAnteriorTbai {
  return {
    ...(factura.serie !== undefined ? { serie: factura.serie } : {}),
    numero: factura.numero,
    fechaExpedicion: factura.fechaExpedicion,
    signatureValue,
  };
}

/** Several altas of one chain, in order: the first chained to `anterior`, each next one to the one before. */
export function firmarCadena(anterior: FacturaAnteriorTbai | null, altas: Omit<AltaAFirmar, 'anterior'>[]): SignedTicketBai[] {
  const signed: SignedTicketBai[] = [];
  let previous = anterior;
  for (const alta of altas) {
    const s = firmarAlta({ ...alta, anterior: previous });
    signed.push(s);
    previous = linkOf(alta.factura, s.signatureValue);
  }
  return signed;
}

export function firmarAlta(input: AltaAFirmar): SignedTicketBai {
  const xml = buildTicketBaiAlta({
    factura: input.factura,
    emisorNombre: input.emisorNombre,
    anterior: input.anterior,
    software: input.software,
    generadoEn: input.generadoEn,
  });
  return signTicketBai(xml, { ...input.firma, signingTime: input.generadoEn, canonicalInput: true });
}
