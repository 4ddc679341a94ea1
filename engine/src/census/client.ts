import { XMLParser } from 'fast-xml-parser';
import { postSoap, type TlsClientConfig } from '../core/transport';

// Client of the census NIF check service (AEAT "VNifV2"-style SOAP; the shipped emulator speaks
// the same, see engine/emulators/census/soap.ts for the wire format).

const XSD_BASE = 'http://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/burt/jdit/ws';
const VNIF_ENT_NS = `${XSD_BASE}/VNifV2Ent.xsd`;

export interface CensusQuery {
  nif: string;
  nombre: string;
}

export interface CensusAnswer {
  nif: string;
  nombre: string;
  resultado: string;
}

/** The census could not be reached or gave no usable answer (network, time-out, 5xx, fault, bad XML). */
export class CensusUnavailable extends Error {}

export interface CensusClient {
  /** The census's answers, in its order; entries it omits are simply missing. */
  check(queries: readonly CensusQuery[]): Promise<CensusAnswer[]>;
}

export interface SoapCensusClientOptions {
  url: string;
  timeoutMs: number;
  tls?: TlsClientConfig;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function buildCensusRequest(queries: readonly CensusQuery[]): string {
  const items = queries
    .map((q) => `<vnif:Contribuyente><vnif:Nif>${esc(q.nif)}</vnif:Nif><vnif:Nombre>${esc(q.nombre)}</vnif:Nombre></vnif:Contribuyente>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:vnif="${VNIF_ENT_NS}">` +
    `<soapenv:Header/><soapenv:Body><vnif:VNifV2Ent>${items}</vnif:VNifV2Ent></soapenv:Body></soapenv:Envelope>`
  );
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'Contribuyente',
});

type Node = Record<string, unknown>;
const obj = (v: unknown): Node | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export function parseCensusReply(xml: string): CensusAnswer[] {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch (error) {
    throw new CensusUnavailable(`respuesta del censo no es XML: ${(error as Error).message}`);
  }
  const body = obj(obj(doc.Envelope)?.Body);
  if (!body) throw new CensusUnavailable('respuesta del censo sin cuerpo SOAP');
  const fault = obj(body.Fault);
  if (fault) throw new CensusUnavailable(`el censo respondió con un Fault: ${text(fault.faultstring)}`);
  const sal = body.VNifV2Sal;
  // An answer with no Contribuyente at all parses as an empty string.
  if (sal === '') return [];
  const node = obj(sal);
  if (!node) throw new CensusUnavailable('respuesta del censo sin VNifV2Sal');
  const list = Array.isArray(node.Contribuyente) ? node.Contribuyente : [];
  return list.map((item) => {
    const c = obj(item) ?? {};
    return { nif: text(c.Nif), nombre: text(c.Nombre), resultado: text(c.Resultado) };
  });
}

export class SoapCensusClient implements CensusClient {
  constructor(private readonly options: SoapCensusClientOptions) {}

  async check(queries: readonly CensusQuery[]): Promise<CensusAnswer[]> {
    if (queries.length === 0) return [];
    let reply;
    try {
      reply = await postSoap(this.options.url, buildCensusRequest(queries), {
        timeoutMs: this.options.timeoutMs,
        tls: this.options.tls,
      });
    } catch (error) {
      throw new CensusUnavailable(`censo inalcanzable: ${(error as Error).message}`);
    }
    if (reply.status !== 200) {
      // A SOAP fault explains itself; anything else is a broken service.
      if (reply.body.includes('Fault')) parseCensusReply(reply.body);
      throw new CensusUnavailable(`el censo respondió HTTP ${reply.status}`);
    }
    return parseCensusReply(reply.body);
  }
}
