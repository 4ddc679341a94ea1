import { DOMParser } from '@xmldom/xmldom';
import type { Document as XDocument, Element as XElement } from '@xmldom/xmldom';
import { DS_NS } from './xmldsig';

// Reading the TicketBAI documents the services receive. Only the fields the
// emulators check are extracted; the XSD has been checked before (when enabled).

export const NS_EMISION = 'urn:ticketbai:emision';
export const NS_ANULACION = 'urn:ticketbai:anulacion';
export const NS_ZUZENDU_ALTA = 'urn:ticketbai:zuzendu-alta';
export const NS_ZUZENDU_BAJA = 'urn:ticketbai:zuzendu-baja';

export class XmlError extends Error {}

export function parseXml(xml: string): XDocument {
  const errors: string[] = [];
  let doc: XDocument;
  try {
    doc = new DOMParser({
      onError: (level, msg) => {
        if (level !== 'warning') errors.push(String(msg));
      },
    }).parseFromString(xml, 'text/xml');
  } catch (e) {
    throw new XmlError(`XML mal formado: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (errors.length > 0 || !doc.documentElement) throw new XmlError(`XML mal formado: ${errors[0] ?? 'sin elemento raíz'}`);
  return doc;
}

export function rootName(doc: XDocument): { ns: string | null; name: string } {
  const r = doc.documentElement as XElement;
  return { ns: r.namespaceURI, name: r.localName ?? r.nodeName };
}

/** Child element by local name; TicketBAI children are unqualified, so any namespace matches. */
export function el(parent: XElement | null | undefined, ...path: string[]): XElement | null {
  let cur: XElement | null = parent ?? null;
  for (const name of path) {
    if (!cur) return null;
    let found: XElement | null = null;
    for (let c = cur.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && (c as XElement).localName === name) {
        found = c as XElement;
        break;
      }
    }
    cur = found;
  }
  return cur;
}

export function all(parent: XElement | null | undefined, name: string): XElement[] {
  const out: XElement[] = [];
  if (!parent) return out;
  for (let c = parent.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1 && (c as XElement).localName === name) out.push(c as XElement);
  }
  return out;
}

export function txt(parent: XElement | null | undefined, ...path: string[]): string {
  const e = el(parent, ...path);
  return e ? (e.textContent ?? '').trim() : '';
}

export interface Software {
  licencia: string;
  nifDesarrolladora: string;
  nombre: string;
  version: string;
}

export interface Encadenamiento {
  serie: string;
  num: string;
  fecha: string;
  signatureValue: string;
}

export interface InvoiceId {
  nif: string;
  nombre: string;
  serie: string;
  num: string;
  /** DD-MM-YYYY */
  fecha: string;
}

export interface ParsedAlta extends InvoiceId {
  kind: 'alta';
  lineCount: number;
  importeTotal: string;
  encadenamiento: Encadenamiento | null;
  software: Software;
  /** NumSerieDispositivo, '' when absent. */
  device: string;
  /** ds:SignatureValue without whitespace, '' when absent. */
  signatureValue: string;
}

export interface ParsedAnulacion extends InvoiceId {
  kind: 'anulacion';
  software: Software;
  device: string;
  signatureValue: string;
}

export interface ParsedZuzenduAlta extends Omit<ParsedAlta, 'kind'> {
  kind: 'zuzendu-alta';
  accion: 'SUBSANAR' | 'MODIFICAR';
}

export interface ParsedZuzenduBaja extends InvoiceId {
  kind: 'zuzendu-baja';
  software: Software;
  device: string;
  /** SignatureValueFirmaAnulacion (first 100 chars of the cancellation's signature). */
  signatureValue: string;
}

export type ParsedTbai = ParsedAlta | ParsedAnulacion | ParsedZuzenduAlta | ParsedZuzenduBaja;

function software(huella: XElement | null): Software {
  const sw = el(huella, 'Software');
  return {
    licencia: txt(sw, 'LicenciaTBAI'),
    nifDesarrolladora: txt(sw, 'EntidadDesarrolladora', 'NIF'),
    nombre: txt(sw, 'Nombre'),
    version: txt(sw, 'Version'),
  };
}

function altaBody(root: XElement): Omit<ParsedAlta, 'kind' | 'signatureValue'> {
  const cab = el(root, 'Factura', 'CabeceraFactura');
  const datos = el(root, 'Factura', 'DatosFactura');
  const huella = el(root, 'HuellaTBAI');
  const enc = el(huella, 'EncadenamientoFacturaAnterior');
  return {
    nif: txt(root, 'Sujetos', 'Emisor', 'NIF'),
    nombre: txt(root, 'Sujetos', 'Emisor', 'ApellidosNombreRazonSocial'),
    serie: txt(cab, 'SerieFactura'),
    num: txt(cab, 'NumFactura'),
    fecha: txt(cab, 'FechaExpedicionFactura'),
    lineCount: all(el(datos, 'DetallesFactura'), 'IDDetalleFactura').length,
    importeTotal: txt(datos, 'ImporteTotalFactura'),
    encadenamiento: enc
      ? {
          serie: txt(enc, 'SerieFacturaAnterior'),
          num: txt(enc, 'NumFacturaAnterior'),
          fecha: txt(enc, 'FechaExpedicionFacturaAnterior'),
          signatureValue: txt(enc, 'SignatureValueFirmaFacturaAnterior').replace(/\s+/g, ''),
        }
      : null,
    software: software(huella),
    device: txt(huella, 'NumSerieDispositivo'),
  };
}

/** The cancelled invoice's identification (AnulaTicketBai and Zuzendu baja share it). */
function anulacionBody(root: XElement): Omit<ParsedAnulacion, 'kind' | 'signatureValue'> {
  const id = el(root, 'IDFactura');
  const huella = el(root, 'HuellaTBAI');
  return {
    nif: txt(id, 'Emisor', 'NIF'),
    nombre: txt(id, 'Emisor', 'ApellidosNombreRazonSocial'),
    serie: txt(id, 'CabeceraFactura', 'SerieFactura'),
    num: txt(id, 'CabeceraFactura', 'NumFactura'),
    fecha: txt(id, 'CabeceraFactura', 'FechaExpedicionFactura'),
    software: software(huella),
    device: txt(huella, 'NumSerieDispositivo'),
  };
}

function signatureValueOf(root: XElement): string {
  for (let c = root.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1 && (c as XElement).localName === 'Signature' && (c as XElement).namespaceURI === DS_NS) {
      for (let d = c.firstChild; d; d = d.nextSibling) {
        if (d.nodeType === 1 && (d as XElement).localName === 'SignatureValue') {
          return ((d as XElement).textContent ?? '').replace(/\s+/g, '');
        }
      }
    }
  }
  return '';
}

/** Reads any of the four TicketBAI documents; throws XmlError for an unknown root. */
export function parseTicketBai(doc: XDocument): ParsedTbai {
  const root = doc.documentElement as XElement;
  const { ns, name } = rootName(doc);
  if (ns === NS_EMISION && name === 'TicketBai') {
    return { kind: 'alta', ...altaBody(root), signatureValue: signatureValueOf(root) };
  }
  if (ns === NS_ANULACION && name === 'AnulaTicketBai') {
    return { kind: 'anulacion', ...anulacionBody(root), signatureValue: signatureValueOf(root) };
  }
  if (ns === NS_ZUZENDU_ALTA && name === 'SubsanacionModificacionTicketBAI') {
    const accion = txt(root, 'Cabecera', 'Accion') === 'MODIFICAR' ? 'MODIFICAR' : 'SUBSANAR';
    return {
      kind: 'zuzendu-alta',
      accion,
      ...altaBody(root),
      signatureValue: txt(root, 'SignatureValueFirmaFactura').replace(/\s+/g, ''),
    };
  }
  if (ns === NS_ZUZENDU_BAJA && name === 'SubsanacionAnulacionTicketBAI') {
    return {
      kind: 'zuzendu-baja',
      ...anulacionBody(root),
      signatureValue: txt(root, 'SignatureValueFirmaAnulacion').replace(/\s+/g, ''),
    };
  }
  throw new XmlError(`elemento raíz no esperado: {${ns ?? ''}}${name}`);
}

export const EXPECTED_ROOT: Readonly<Record<ParsedTbai['kind'], { ns: string; name: string }>> = Object.freeze({
  alta: { ns: NS_EMISION, name: 'TicketBai' },
  anulacion: { ns: NS_ANULACION, name: 'AnulaTicketBai' },
  'zuzendu-alta': { ns: NS_ZUZENDU_ALTA, name: 'SubsanacionModificacionTicketBAI' },
  'zuzendu-baja': { ns: NS_ZUZENDU_BAJA, name: 'SubsanacionAnulacionTicketBAI' },
});
