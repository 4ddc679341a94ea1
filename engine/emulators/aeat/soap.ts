// SOAP 1.1 plumbing: cutting the payload out of the envelope and writing
// answers with the exact shape of real AEAT responses (examples/odoo/).

export const NS_SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
export const NS_SI =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd';
export const NS_LR =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroLR.xsd';
export const NS_RESP =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/RespuestaSuministro.xsd';

export class SoapFaultError extends Error {
  constructor(
    readonly faultcode: 'env:Client' | 'env:Server',
    readonly faultstring: string,
    readonly codigo?: number,
  ) {
    super(faultstring);
  }
}

export function clientFault(codigo: number, text: string): SoapFaultError {
  return new SoapFaultError('env:Client', `Codigo[${codigo}].${text}`, codigo);
}

/** Where the payload lies in the envelope's text: its xml is `text.slice(start, nameEnd) + inserted + text.slice(nameEnd, end)`. */
export interface PayloadSpan {
  start: number;
  /** End of the element's name in its start tag, where the inherited declarations go. */
  nameEnd: number;
  /** The namespace declarations it inherited (` xmlns:p="…"`…). */
  inserted: string;
  end: number;
}

export interface BodyPayload {
  /** Local name of the first element inside soap:Body. */
  localName: string;
  /** That element as a standalone document, with the namespace declarations it inherited. */
  xml: string;
  span: PayloadSpan;
}

const START_TAG = /<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)\b/y;
const XMLNS_ATTR = /\sxmlns(?::([\w.-]+))?\s*=\s*("[^"]*"|'[^']*')/g;

function tagEnd(xml: string, from: number): number {
  // '>' can appear inside attribute values; skip quoted runs.
  let q: string | null = null;
  for (let i = from; i < xml.length; i++) {
    const c = xml[i];
    if (q) {
      if (c === q) q = null;
    } else if (c === '"' || c === "'") q = c;
    else if (c === '>') return i;
  }
  return -1;
}

function nsDecls(tag: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const a of tag.matchAll(XMLNS_ATTR)) m.set(a[1] ?? '', a[2] ?? '""');
  return m;
}

/**
 * String-level extraction: O(n) and far cheaper than a DOM round trip on a
 * 2 MB batch. Well-formedness of the payload is left to xmllint / the parser.
 */
export function extractBodyPayload(xml: string): BodyPayload {
  const env = /<([A-Za-z_][\w.-]*:)?Envelope\b/.exec(xml);
  if (!env) throw clientFault(4102, 'El XML no cumple el esquema. No es un mensaje SOAP: falta Envelope.');
  const envEnd = tagEnd(xml, env.index);
  if (envEnd < 0) throw clientFault(4102, 'El XML no cumple el esquema. Envelope mal formado.');
  const envPrefix = env[1] ?? '';
  const bodyRe = new RegExp(`<${envPrefix.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}Body\\b`, 'g');
  bodyRe.lastIndex = envEnd;
  const body = bodyRe.exec(xml);
  if (!body) throw clientFault(4102, 'El XML no cumple el esquema. Falta informar campo obligatorio.: Body');
  const bodyEnd = tagEnd(xml, body.index);
  if (bodyEnd < 0 || xml[bodyEnd - 1] === '/') {
    throw clientFault(4102, 'El XML no cumple el esquema. Body vacío.');
  }
  const inherited = nsDecls(xml.slice(env.index, envEnd));
  for (const [k, v] of nsDecls(xml.slice(body.index, bodyEnd))) inherited.set(k, v);

  // First element child, skipping whitespace, comments and PIs.
  let i = bodyEnd + 1;
  for (;;) {
    while (i < xml.length && /\s/.test(xml[i] ?? '')) i++;
    if (xml.startsWith('<!--', i)) {
      const e = xml.indexOf('-->', i);
      if (e < 0) break;
      i = e + 3;
    } else if (xml.startsWith('<?', i)) {
      const e = xml.indexOf('?>', i);
      if (e < 0) break;
      i = e + 2;
    } else break;
  }
  START_TAG.lastIndex = i;
  const child = xml[i] === '<' ? START_TAG.exec(xml) : null;
  if (!child) throw clientFault(4102, 'El XML no cumple el esquema. Body sin contenido.');
  const close = xml.lastIndexOf(`</${envPrefix}Body`);
  if (close < i) throw clientFault(4102, 'El XML no cumple el esquema. Falta el cierre de Body.');
  const childTagEnd = tagEnd(xml, i);
  if (childTagEnd < 0) throw clientFault(4102, 'El XML no cumple el esquema. Elemento mal formado.');
  const own = nsDecls(xml.slice(i, childTagEnd));
  const extra = [...inherited]
    .filter(([k]) => !own.has(k))
    .map(([k, v]) => ` ${k ? `xmlns:${k}` : 'xmlns'}=${v}`)
    .join('');
  const nameEnd = i + 1 + (child[1] ?? '').length + (child[2] ?? '').length;
  const rest = xml.slice(nameEnd, close).trimEnd();
  const payload = xml.slice(i, nameEnd) + extra + rest;
  return { localName: child[2] ?? '', xml: payload, span: { start: i, nameEnd, inserted: extra, end: nameEnd + rest.length } };
}

export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function faultXml(f: { faultcode: string; faultstring: string; callstack?: string }): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="${NS_SOAP}"><env:Body><env:Fault>` +
    `<faultcode>${xmlEscape(f.faultcode)}</faultcode><faultstring>${xmlEscape(f.faultstring)}</faultstring>` +
    `<detail><callstack>${xmlEscape(f.callstack ?? 'WSExcepcion [emulador AEAT]')}</callstack></detail>` +
    `</env:Fault></env:Body></env:Envelope>`
  );
}

// ---- Response -------------------------------------------------------------

export interface PersonaES {
  nombre: string;
  nif: string;
}

export interface CabeceraEcho {
  obligado: PersonaES;
  representante?: PersonaES;
  remisionVoluntaria?: { fechaFinVeriFactu?: string; incidencia?: string };
  remisionRequerimiento?: { refRequerimiento: string; finRequerimiento?: string };
}

export type EstadoRegistro = 'Correcto' | 'AceptadoConErrores' | 'Incorrecto';
export type EstadoEnvio = 'Correcto' | 'ParcialmenteCorrecto' | 'Incorrecto';
/**
 * EstadoRegistroDuplicado as the service writes it. Its XSD (EstadoRegistroSFType) spells the second
 * AceptadaConErrores, but real replies say AceptadoConErrores (FACTS.md): the emulator answers as the
 * service does (processor.ts), and the engine reads both. The writer takes the XSD's spelling too,
 * for tests that prove a reader accepts either.
 */
export type EstadoRegistroDuplicado = 'Correcta' | 'AceptadoConErrores' | 'AceptadaConErrores' | 'Anulada';

export interface RespuestaLinea {
  emisor: string;
  numSerie: string;
  fecha: string;
  tipoOperacion: 'Alta' | 'Anulacion';
  subsanacion?: string;
  rechazoPrevio?: string;
  sinRegistroPrevio?: string;
  refExterna?: string;
  estado: EstadoRegistro;
  codigo?: number;
  descripcion?: string;
  duplicado?: {
    idPeticion: string;
    estado: EstadoRegistroDuplicado;
    codigo?: number;
    descripcion?: string;
  };
}

export interface Respuesta {
  csv?: string;
  presentacion?: { nifPresentador: string; timestamp: string };
  cabecera: CabeceraEcho;
  tiempoEsperaEnvio: number;
  estadoEnvio: EstadoEnvio;
  lineas: readonly RespuestaLinea[];
}

const e = xmlEscape;

function persona(tag: string, p: PersonaES): string {
  return `<tik:${tag}><tik:NombreRazon>${e(p.nombre)}</tik:NombreRazon><tik:NIF>${e(p.nif)}</tik:NIF></tik:${tag}>`;
}

function linea(l: RespuestaLinea): string {
  let s =
    `<tikR:RespuestaLinea><tikR:IDFactura><tik:IDEmisorFactura>${e(l.emisor)}</tik:IDEmisorFactura>` +
    `<tik:NumSerieFactura>${e(l.numSerie)}</tik:NumSerieFactura>` +
    `<tik:FechaExpedicionFactura>${e(l.fecha)}</tik:FechaExpedicionFactura></tikR:IDFactura>` +
    `<tikR:Operacion><tik:TipoOperacion>${l.tipoOperacion}</tik:TipoOperacion>`;
  if (l.subsanacion) s += `<tik:Subsanacion>${e(l.subsanacion)}</tik:Subsanacion>`;
  if (l.rechazoPrevio) s += `<tik:RechazoPrevio>${e(l.rechazoPrevio)}</tik:RechazoPrevio>`;
  if (l.sinRegistroPrevio) s += `<tik:SinRegistroPrevio>${e(l.sinRegistroPrevio)}</tik:SinRegistroPrevio>`;
  s += '</tikR:Operacion>';
  if (l.refExterna) s += `<tikR:RefExterna>${e(l.refExterna)}</tikR:RefExterna>`;
  s += `<tikR:EstadoRegistro>${l.estado}</tikR:EstadoRegistro>`;
  if (l.codigo !== undefined) s += `<tikR:CodigoErrorRegistro>${l.codigo}</tikR:CodigoErrorRegistro>`;
  if (l.descripcion) s += `<tikR:DescripcionErrorRegistro>${e(l.descripcion)}</tikR:DescripcionErrorRegistro>`;
  if (l.duplicado) {
    const d = l.duplicado;
    s +=
      `<tikR:RegistroDuplicado><tik:IdPeticionRegistroDuplicado>${e(d.idPeticion)}</tik:IdPeticionRegistroDuplicado>` +
      `<tik:EstadoRegistroDuplicado>${d.estado}</tik:EstadoRegistroDuplicado>` +
      (d.codigo !== undefined ? `<tik:CodigoErrorRegistro>${d.codigo}</tik:CodigoErrorRegistro>` : '') +
      (d.descripcion ? `<tik:DescripcionErrorRegistro>${e(d.descripcion)}</tik:DescripcionErrorRegistro>` : '') +
      `</tikR:RegistroDuplicado>`;
  }
  return s + '</tikR:RespuestaLinea>';
}

/** Same prefixes, element order and `Body Id="Body"` as the pre-production answers Odoo recorded. */
export function respuestaXml(r: Respuesta): string {
  const c = r.cabecera;
  let cab = persona('ObligadoEmision', c.obligado);
  if (c.representante) cab += persona('Representante', c.representante);
  if (c.remisionVoluntaria) {
    const rv = c.remisionVoluntaria;
    cab +=
      '<tik:RemisionVoluntaria>' +
      (rv.fechaFinVeriFactu ? `<tik:FechaFinVeriFactu>${e(rv.fechaFinVeriFactu)}</tik:FechaFinVeriFactu>` : '') +
      (rv.incidencia ? `<tik:Incidencia>${e(rv.incidencia)}</tik:Incidencia>` : '') +
      '</tik:RemisionVoluntaria>';
  }
  if (c.remisionRequerimiento) {
    const rr = c.remisionRequerimiento;
    cab +=
      `<tik:RemisionRequerimiento><tik:RefRequerimiento>${e(rr.refRequerimiento)}</tik:RefRequerimiento>` +
      (rr.finRequerimiento ? `<tik:FinRequerimiento>${e(rr.finRequerimiento)}</tik:FinRequerimiento>` : '') +
      '</tik:RemisionRequerimiento>';
  }
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="${NS_SOAP}">\n<env:Header/>\n`,
    `<env:Body Id="Body"><tikR:RespuestaRegFactuSistemaFacturacion xmlns:tik="${NS_SI}" xmlns:tikR="${NS_RESP}">`,
  ];
  if (r.csv) parts.push(`<tikR:CSV>${e(r.csv)}</tikR:CSV>`);
  if (r.presentacion) {
    parts.push(
      `<tikR:DatosPresentacion><tik:NIFPresentador>${e(r.presentacion.nifPresentador)}</tik:NIFPresentador>` +
        `<tik:TimestampPresentacion>${e(r.presentacion.timestamp)}</tik:TimestampPresentacion></tikR:DatosPresentacion>`,
    );
  }
  parts.push(
    `<tikR:Cabecera>${cab}</tikR:Cabecera>`,
    `<tikR:TiempoEsperaEnvio>${r.tiempoEsperaEnvio}</tikR:TiempoEsperaEnvio>`,
    `<tikR:EstadoEnvio>${r.estadoEnvio}</tikR:EstadoEnvio>`,
  );
  for (const l of r.lineas) parts.push(linea(l));
  parts.push('</tikR:RespuestaRegFactuSistemaFacturacion>\n</env:Body></env:Envelope>');
  return parts.join('');
}
