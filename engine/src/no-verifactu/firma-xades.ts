// The XAdES signing of «NO VERI*FACTU» records as a pure function of its inputs (no clock, no
// database): what issuing runs on the worker pool ahead of its transaction (pure-work/) and in the
// transaction when the chain head moved under a signature made ahead. firma.ts says which
// document prescribes it and who signs.
import type { PoliticaFirma } from '../regimes/ticketbai/politicas';
import { signTicketBai } from '../regimes/ticketbai/record/xades';
import { FIN_EVENTO } from '../verification/firma-registro';

/** The AGE policy the AEAT's signature document names (section 4). */
export const POLITICA_FIRMA_AGE: PoliticaFirma = {
  identificador: 'urn:oid:2.16.724.1.3.1.1.2.1.9',
  digestSha256: 'G7roucf600+f03r/o0bAOQ6WAs0=',
  algoritmoDigest: 'http://www.w3.org/2000/09/xmldsig#sha1',
  spuri: 'https://sede.administracion.gob.es/politica_de_firma_anexo_1.pdf',
};

export interface IdentidadFirma {
  privateKeyPem: string;
  certificatePem: string;
  chainPem?: readonly string[] | undefined;
}

/**
 * Signs a billing record (the Signature as the root's last child) or an event record (the
 * Signature as Evento's last child: the reference is URI="" with the enveloped transform, so
 * where it sits inside the document does not change what is signed).
 */
export function firmarRegistro(xml: string, identidad: IdentidadFirma, signingTime: Date): string {
  const opts = {
    privateKeyPem: identidad.privateKeyPem,
    certificatePem: identidad.certificatePem,
    chainPem: identidad.chainPem,
    policy: POLITICA_FIRMA_AGE,
    signingTime,
  };
  if (!xml.includes(FIN_EVENTO)) {
    // Billing records sign on the issuing path: their canonical form is digested as text (no DOM,
    // ≈ 3× cheaper). The record builders write C14N but for three text entities, which C14N
    // writes otherwise; the stored document is that canonical form (the same infoset). Anything
    // else not canonical makes signTicketBai refuse, and the general path signs it.
    const canonica = xml.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#13;/g, '&#xD;');
    try {
      return signTicketBai(canonica, { ...opts, canonicalInput: true }).signedXml;
    } catch {
      return signTicketBai(xml, opts).signedXml;
    }
  }
  const { signedXml } = signTicketBai(xml, opts);
  const inicio = signedXml.indexOf('<ds:Signature ');
  const fin = signedXml.lastIndexOf('</ds:Signature>') + '</ds:Signature>'.length;
  const firma = signedXml.slice(inicio, fin);
  const sinFirma = signedXml.slice(0, inicio) + signedXml.slice(fin);
  const corte = sinFirma.lastIndexOf(FIN_EVENTO);
  return sinFirma.slice(0, corte) + firma + sinFirma.slice(corte);
}
