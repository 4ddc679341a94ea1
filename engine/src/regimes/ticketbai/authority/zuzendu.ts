// Zuzendu (Araba, Gipuzkoa): correction of an invoice the treasury rejected for its content
// (zuzendualta_ticketbaiv1-2-2.xsd, SubsanacionModificacionTicketBAI). The corrected data travel
// under the ORIGINAL invoice's identity and huella: same series, number, date and hour, the same
// HuellaTBAI (chaining, software, device) and the first 100 characters of the original's
// SignatureValue. Nothing is re-signed, so the idTbai and the QR the customer holds stay valid.
import type { Element as XElement } from '@xmldom/xmldom';
import type { FacturaTicketbai } from '../../../../../src-shared/api/ticketbai';
import { parsearXml, signatureValueDe } from '../record/xades';
import { facturaXml, huellaTbaiXml, NS_TBAI_EMISION, sujetosXml, type FacturaAnteriorTbai, type SoftwareTbai } from '../record/xml';

export const NS_ZUZENDU_ALTA = 'urn:ticketbai:zuzendu-alta';

export interface BuildZuzenduSubsanarInput {
  /** The corrected invoice (the subsanar body): its identity must be the original's. */
  factura: FacturaTicketbai;
  /** ApellidosNombreRazonSocial of the issuer; defaults to factura.emisor.nombre. */
  emisorNombre?: string | undefined;
  /** The original signed T:TicketBai, as stored and sent. */
  originalSignedXml: string;
  /** SUBSANAR: the treasury rejected it; MODIFICAR: it was received but needs a change. */
  accion?: 'SUBSANAR' | 'MODIFICAR' | undefined;
}

function hijo(e: XElement | undefined, local: string): XElement | undefined {
  if (e === undefined) return undefined;
  for (let n = e.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as XElement).localName === local) return n as XElement;
  }
  return undefined;
}

function texto(e: XElement | undefined, ...ruta: string[]): string | undefined {
  let cur = e;
  for (const local of ruta) cur = hijo(cur, local);
  return cur?.textContent ?? undefined;
}

interface Original {
  nif: string;
  serie?: string | undefined;
  numero: string;
  fechaExpedicion: string;
  horaExpedicion: string;
  anterior: FacturaAnteriorTbai | null;
  software: SoftwareTbai;
  dispositivo?: string | undefined;
  signatureValue: string;
}

function leerOriginal(signedXml: string): Original {
  const raiz = parsearXml(signedXml).doc?.documentElement ?? undefined;
  if (raiz === undefined || raiz.localName !== 'TicketBai' || raiz.namespaceURI !== NS_TBAI_EMISION) {
    throw new Error('the original is not a TicketBAI alta (T:TicketBai)');
  }
  const cab = hijo(hijo(raiz, 'Factura'), 'CabeceraFactura');
  const huella = hijo(raiz, 'HuellaTBAI');
  const enc = hijo(huella, 'EncadenamientoFacturaAnterior');
  const sw = hijo(huella, 'Software');
  const requerido = (v: string | undefined, que: string): string => {
    if (v === undefined) throw new Error(`the original has no ${que}`);
    return v;
  };
  return {
    nif: requerido(texto(raiz, 'Sujetos', 'Emisor', 'NIF'), 'Emisor/NIF'),
    serie: texto(cab, 'SerieFactura'),
    numero: requerido(texto(cab, 'NumFactura'), 'NumFactura'),
    fechaExpedicion: requerido(texto(cab, 'FechaExpedicionFactura'), 'FechaExpedicionFactura'),
    horaExpedicion: requerido(texto(cab, 'HoraExpedicionFactura'), 'HoraExpedicionFactura'),
    anterior:
      enc === undefined
        ? null
        : {
            serie: texto(enc, 'SerieFacturaAnterior'),
            numero: requerido(texto(enc, 'NumFacturaAnterior'), 'NumFacturaAnterior'),
            fechaExpedicion: requerido(texto(enc, 'FechaExpedicionFacturaAnterior'), 'FechaExpedicionFacturaAnterior'),
            signatureValue: requerido(texto(enc, 'SignatureValueFirmaFacturaAnterior'), 'SignatureValueFirmaFacturaAnterior'),
          },
    software: {
      licenciaTbai: requerido(texto(sw, 'LicenciaTBAI'), 'LicenciaTBAI'),
      nifDesarrolladora: requerido(texto(sw, 'EntidadDesarrolladora', 'NIF'), 'EntidadDesarrolladora/NIF'),
      nombre: requerido(texto(sw, 'Nombre'), 'Software/Nombre'),
      version: requerido(texto(sw, 'Version'), 'Software/Version'),
    },
    dispositivo: texto(huella, 'NumSerieDispositivo'),
    signatureValue: signatureValueDe(signedXml),
  };
}

/** SubsanacionModificacionTicketBAI for the corrected invoice, keeping the original's identity and huella. */
export function buildZuzenduSubsanar(input: BuildZuzenduSubsanarInput): string {
  const f = input.factura;
  const o = leerOriginal(input.originalSignedXml);
  const distintos = [
    f.emisor.nif !== o.nif ? 'emisor.nif' : undefined,
    f.serie !== o.serie ? 'serie' : undefined,
    f.numero !== o.numero ? 'numero' : undefined,
    f.fechaExpedicion !== o.fechaExpedicion ? 'fechaExpedicion' : undefined,
  ].filter((c) => c !== undefined);
  if (distintos.length > 0) throw new Error(`a Zuzendu correction keeps the original invoice's identity; changed: ${distintos.join(', ')}`);
  return (
    '<T:SubsanacionModificacionTicketBAI xmlns:T="' + NS_ZUZENDU_ALTA + '"><Cabecera><IDVersion>1.0</IDVersion><Accion>' +
    (input.accion ?? 'SUBSANAR') + '</Accion></Cabecera>' +
    sujetosXml(f, input.emisorNombre) +
    // The original hour: HoraExpedicionFactura is part of what the customer's QR points to.
    facturaXml(f, o.horaExpedicion) +
    huellaTbaiXml(o.anterior, o.software, o.dispositivo) +
    '<SignatureValueFirmaFactura>' + o.signatureValue.slice(0, 100) + '</SignatureValueFirmaFactura>' +
    '</T:SubsanacionModificacionTicketBAI>'
  );
}
