import { XMLParser } from 'fast-xml-parser';

// Wire format of the emulated census service, modelled on AEAT's "VNifV2" NIF check web service
// (SOAP 1.1, document/literal). The engine's client speaks exactly this.
//
// Request (POST {url}/wlpl/BURT-JDIT/ws/VNifV2SOAP, Content-Type text/xml):
//   <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"
//                     xmlns:vnif="…/VNifV2Ent.xsd">
//     <soapenv:Body><vnif:VNifV2Ent>
//       <vnif:Contribuyente><vnif:Nif>12345678Z</vnif:Nif><vnif:Nombre>GARCIA LOPEZ</vnif:Nombre></vnif:Contribuyente>
//       … 1 to 10 000 Contribuyente …
//     </vnif:VNifV2Ent></soapenv:Body></soapenv:Envelope>
//
// Answer 200:
//   <env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body>
//     <VNifV2Sal:VNifV2Sal xmlns:VNifV2Sal="…/VNifV2Sal.xsd">
//       <VNifV2Sal:Contribuyente><VNifV2Sal:Nif>12345678Z</VNifV2Sal:Nif>
//         <VNifV2Sal:Nombre>GARCIA LOPEZ MARIA</VNifV2Sal:Nombre>
//         <VNifV2Sal:Resultado>IDENTIFICADO</VNifV2Sal:Resultado></VNifV2Sal:Contribuyente>
//     </VNifV2Sal:VNifV2Sal></env:Body></env:Envelope>
//
// `Resultado` labels, upper case: IDENTIFICADO, NO IDENTIFICADO, NO IDENTIFICADO-SIMILAR,
// IDENTIFICADO-BAJA, IDENTIFICADO-REVOCADO, NO PROCESADO. `Nombre` is the name on record when the
// NIF is identified or similar (the official company name for a legal person, the full name for a
// natural person), and the queried name echoed otherwise. One Contribuyente per queried entry, in
// the order sent — unless the `omit` fault drops some. A malformed request is a SOAP Client fault
// (HTTP 500), as a SOAP 1.1 service answers.

export const CENSUS_SOAP_PATH = '/wlpl/BURT-JDIT/ws/VNifV2SOAP';
const XSD_BASE = 'http://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/burt/jdit/ws';
export const VNIF_ENT_NS = `${XSD_BASE}/VNifV2Ent.xsd`;
export const VNIF_SAL_NS = `${XSD_BASE}/VNifV2Sal.xsd`;
const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

export const MAX_CONTRIBUYENTES = 10_000;

export interface Consulta {
  nif: string;
  nombre: string;
}

export interface Respuesta {
  nif: string;
  nombre: string;
  resultado: string;
}

export class BadRequest extends Error {}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'Contribuyente',
});

type Node = Record<string, unknown>;
const obj = (v: unknown): Node | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);

export function parseConsulta(xml: string): Consulta[] {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch (error) {
    throw new BadRequest(`XML mal formado: ${(error as Error).message}`);
  }
  const ent = obj(obj(obj(doc.Envelope)?.Body)?.VNifV2Ent);
  if (!ent) throw new BadRequest('Falta VNifV2Ent en el cuerpo SOAP');
  const list = Array.isArray(ent.Contribuyente) ? ent.Contribuyente : [];
  if (list.length === 0) throw new BadRequest('VNifV2Ent necesita al menos un Contribuyente');
  if (list.length > MAX_CONTRIBUYENTES) throw new BadRequest(`Como máximo ${MAX_CONTRIBUYENTES} Contribuyente`);
  return list.map((item, i) => {
    const c = obj(item);
    const nif = typeof c?.Nif === 'string' ? c.Nif : '';
    const nombre = typeof c?.Nombre === 'string' ? c.Nombre : '';
    if (nif === '' || nif.length > 20) throw new BadRequest(`Contribuyente[${i}]: Nif obligatorio (máx. 20)`);
    if (nombre.length > 120) throw new BadRequest(`Contribuyente[${i}]: Nombre de más de 120 caracteres`);
    return { nif, nombre };
  });
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function buildRespuesta(items: readonly Respuesta[]): string {
  const body = items
    .map(
      (r) =>
        `<VNifV2Sal:Contribuyente><VNifV2Sal:Nif>${esc(r.nif)}</VNifV2Sal:Nif>` +
        `<VNifV2Sal:Nombre>${esc(r.nombre)}</VNifV2Sal:Nombre>` +
        `<VNifV2Sal:Resultado>${esc(r.resultado)}</VNifV2Sal:Resultado></VNifV2Sal:Contribuyente>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="${SOAP_NS}"><env:Body>` +
    `<VNifV2Sal:VNifV2Sal xmlns:VNifV2Sal="${VNIF_SAL_NS}">${body}</VNifV2Sal:VNifV2Sal>` +
    `</env:Body></env:Envelope>`
  );
}

export function buildFault(faultcode: 'env:Client' | 'env:Server', faultstring: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="${SOAP_NS}"><env:Body><env:Fault>` +
    `<faultcode>${faultcode}</faultcode><faultstring>${esc(faultstring)}</faultstring>` +
    `</env:Fault></env:Body></env:Envelope>`
  );
}
