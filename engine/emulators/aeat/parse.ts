import type { CabeceraEcho } from './soap';
import { clientFault } from './soap';

// Typed view of RegFactuSistemaFacturacion. With XSD validation on, the
// structure is already guaranteed; the checks here only keep the emulator
// from crashing when validation is switched off.

export interface PrevRef {
  emisor: string;
  numSerie: string;
  fecha: string;
  huella: string;
}

/**
 * The billing system that generated a record. A SIF is the obligado + IdSistemaInformatico +
 * NumeroInstalacion (AEAT developer FAQ 4): each one keeps its own chain.
 */
export interface SistemaRef {
  idSistemaInformatico: string;
  numeroInstalacion: string;
}

interface RecordBase {
  /** Position in the request, 0-based. */
  index: number;
  sistema: SistemaRef;
  emisor: string;
  numSerie: string;
  fecha: string;
  refExterna?: string;
  rechazoPrevio?: string;
  /** null = PrimerRegistro=S */
  prev: PrevRef | null;
  fechaHoraHusoGenRegistro: string;
  huella: string;
}

export interface DesgloseLine {
  /** Impuesto: absent means 01 (IVA). */
  impuesto?: string;
  claveRegimen?: string;
  calificacion?: string;
  exenta?: string;
  base: string;
  baseACoste?: string;
  tipo?: string;
  cuota?: string;
  tipoRecargo?: string;
  recargo?: string;
}

/** A recipient or tercero identified by IDOtro. */
export interface IdOtroRef {
  codigoPais?: string;
  idType: string;
  id: string;
}

export interface AltaRecord extends RecordBase {
  tipo: 'alta';
  subsanacion?: string;
  tipoFactura: string;
  cuotaTotal: string;
  importeTotal: string;
  lines: DesgloseLine[];
  destinatarioNifs: string[];
  /** Recipients identified by IDOtro. */
  destinatariosOtro: IdOtroRef[];
  /** Whether the Destinatarios block is present. */
  conDestinatarios: boolean;
  fechaOperacion?: string;
  tipoRectificativa?: string;
  conRectificadas: boolean;
  conSustituidas: boolean;
  conImporteRectificacion: boolean;
  simplificada7273?: string;
  sinIdentif61d?: string;
  macrodato?: string;
  emitidaPor?: string;
  conTercero: boolean;
  terceroNif?: string;
  terceroOtro?: IdOtroRef;
  cupon?: string;
  conAcuerdo: boolean;
}

export interface AnulacionRecord extends RecordBase {
  tipo: 'anulacion';
  sinRegistroPrevio?: string;
  /** GeneradoPor (E, D, T) and the Generador block (Validaciones §3.1.4). */
  generadoPor?: string;
  conGenerador: boolean;
  generadorNif?: string;
  generadorOtro?: IdOtroRef;
}

export type ParsedRecord = AltaRecord | AnulacionRecord;

export interface ParsedRequest {
  cabecera: CabeceraEcho;
  records: ParsedRecord[];
}

const ARRAYS = new Set(['RegistroFactura', 'DetalleDesglose', 'IDDestinatario']);

type Node = Record<string, unknown>;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
}

/**
 * Every element name parseRegFactu reads. Other elements (IDVersion, NombreRazonEmisor, the
 * SistemaInformatico details, Impuesto…) and everything inside them are scanned for
 * well-formedness but never built: a 1000-record request has ~40 elements per record, ~20 read.
 */
const WANTED = new Set([
  'RegFactuSistemaFacturacion', 'Cabecera', 'ObligadoEmision', 'Representante', 'NombreRazon', 'NIF',
  'RemisionVoluntaria', 'FechaFinVeriFactu', 'Incidencia', 'RemisionRequerimiento', 'RefRequerimiento',
  'FinRequerimiento', 'RegistroFactura', 'RegistroAlta', 'RegistroAnulacion', 'IDFactura',
  'IDEmisorFactura', 'NumSerieFactura', 'FechaExpedicionFactura', 'IDEmisorFacturaAnulada',
  'NumSerieFacturaAnulada', 'FechaExpedicionFacturaAnulada', 'RefExterna', 'Subsanacion', 'RechazoPrevio',
  'SinRegistroPrevio', 'TipoFactura', 'CuotaTotal', 'ImporteTotal', 'Destinatarios', 'IDDestinatario',
  'Desglose', 'DetalleDesglose', 'ClaveRegimen', 'BaseImponibleOimporteNoSujeto', 'CuotaRepercutida',
  'CuotaRecargoEquivalencia', 'Encadenamiento', 'PrimerRegistro', 'RegistroAnterior', 'Huella',
  'SistemaInformatico', 'IdSistemaInformatico', 'NumeroInstalacion', 'FechaHoraHusoGenRegistro',
  // Read by the business rules (rules.ts).
  'GeneradoPor', 'Generador',
  'FechaOperacion', 'TipoRectificativa', 'FacturasRectificadas', 'FacturasSustituidas', 'ImporteRectificacion',
  'FacturaSimplificadaArt7273', 'FacturaSinIdentifDestinatarioArt61d', 'Macrodato', 'EmitidaPorTerceroODestinatario',
  'Tercero', 'Cupon', 'NumRegistroAcuerdoFacturacion', 'IDOtro', 'CodigoPais', 'IDType', 'ID', 'Impuesto',
  'CalificacionOperacion', 'OperacionExenta', 'TipoImpositivo', 'TipoRecargoEquivalencia', 'BaseImponibleACoste',
]);

/**
 * A qualified name met in the document: its text once, its local name when it is WANTED, and
 * guesses of what comes next (the records of a request repeat one shape), so that a start tag
 * is recognised by comparing characters in place, without cutting its name out and hashing it.
 */
interface ElementName {
  qname: string;
  wanted: string | null;
  /** A wanted element kept as a list even when it occurs once. */
  array: boolean;
  /** The child that came first under this element last time. */
  firstChild: ElementName | null;
  /** The sibling that followed this element last time. */
  next: ElementName | null;
}

/** One open element. Frames are reused by depth, so a request allocates none per element. */
interface Frame {
  name: ElementName;
  /** Built (a wanted element under built ancestors) or only scanned. */
  built: boolean;
  /** Its built children, once it has one. */
  obj: Node | null;
  hasChild: boolean;
  /** Its child element seen last (the guess of the next one starts there). */
  lastChild: ElementName | null;
  /** Text so far, when comments, PIs or CDATA cut it; the rest runs from segStart to the end tag. */
  text: string;
  segStart: number;
}

const newName = (qname: string, wanted: string | null): ElementName => ({
  qname,
  wanted,
  array: wanted !== null && ARRAYS.has(wanted),
  firstChild: null,
  next: null,
});

const newFrame = (name: ElementName): Frame => ({ name, built: false, obj: null, hasChild: false, lastChild: null, text: '', segStart: 0 });

function addChild(parent: Node, name: ElementName, value: unknown): void {
  const key = name.wanted as string;
  const cur = parent[key];
  if (cur === undefined) parent[key] = name.array ? [value] : value;
  else if (name.array) (cur as unknown[]).push(value);
  else parent[key] = Array.isArray(cur) ? [...(cur as unknown[]), value] : [cur, value];
}

/** Where a name stops: white space, `/`, `>`, or the end of the text (NaN). */
const endsName = (c: number): boolean => c === 62 /* > */ || c === 47 /* / */ || isSpace(c) || Number.isNaN(c);

/**
 * Minimal XML-to-object reader (namespace prefixes dropped, attributes ignored, leaf values as
 * trimmed literal text), building only the WANTED elements. One pass, and no JavaScript loop over
 * the document's characters on the common path: tags are found with indexOf, end tags matched with
 * startsWith, and a start tag checked against the name guessed from the previous record's shape
 * (cutting each name out and looking it up in a map was half of the reader's time). A character
 * loop costs ~15 machine instructions per character here, which made an earlier reader ~100 M
 * instructions per 1000-record request. libxml2 has already checked the document when XSD
 * validation is on. DTDs are refused.
 */
export function readXml(xml: string): Node {
  const root: Node = {};
  const frames: Frame[] = [newFrame(newName('', null))];
  const top0 = frames[0] as Frame;
  top0.built = true;
  top0.obj = root;
  top0.hasChild = true;
  const names = new Map<string, ElementName>();
  let depth = 0;
  const n = xml.length;
  let i = 0;
  for (;;) {
    const lt = xml.indexOf('<', i);
    const top = frames[depth] as Frame;
    if (lt < 0) {
      if (depth > 0) throw new Error('unclosed elements at end of document');
      if (xml.slice(i).trim() !== '') throw new Error('text after the root element');
      break;
    }
    const c = xml.charCodeAt(lt + 1);
    if (c === 63 /* ? */ || c === 33 /* ! */) {
      let after: number;
      let cdata = '';
      if (c === 63) {
        const e = xml.indexOf('?>', lt);
        if (e < 0) throw new Error('unterminated processing instruction');
        after = e + 2;
      } else if (xml.startsWith('<!--', lt)) {
        const e = xml.indexOf('-->', lt);
        if (e < 0) throw new Error('unterminated comment');
        after = e + 3;
      } else if (xml.startsWith('<![CDATA[', lt)) {
        const e = xml.indexOf(']]>', lt);
        if (e < 0) throw new Error('unterminated CDATA');
        // Escaped here so the final entity decoding gives the raw text back.
        cdata = xml.slice(lt + 9, e).replace(/&/g, '&amp;').replace(/</g, '&lt;');
        after = e + 3;
      } else {
        throw new Error('DTD / declarations are not accepted');
      }
      if (depth > 0 && top.built) {
        top.text += xml.slice(top.segStart, lt) + cdata;
        top.segStart = after;
      }
      i = after;
      continue;
    }
    if (c === 47 /* / */) {
      const gt = xml.indexOf('>', lt);
      if (gt < 0) throw new Error('unterminated tag');
      const qname = top.name.qname;
      let at = lt + 2 + qname.length;
      if (depth === 0 || !xml.startsWith(qname, lt + 2) || (at !== gt && !isSpace(xml.charCodeAt(at)))) {
        throw new Error(`unexpected </${xml.slice(lt + 2, gt).trim()}>`);
      }
      for (; at < gt; at++) if (!isSpace(xml.charCodeAt(at))) throw new Error('malformed end tag');
      depth--;
      if (top.built) {
        const parent = frames[depth] as Frame;
        const value = top.hasChild ? (top.obj ?? {}) : decodeEntities((top.text + xml.slice(top.segStart, lt)).trim());
        addChild((parent.obj ??= {}), top.name, value);
      }
      i = gt + 1;
      continue;
    }
    // Start tag: the guessed name if the characters agree, else the name cut out and looked up.
    const guess = top.lastChild === null ? top.name.firstChild : top.lastChild.next;
    let name: ElementName | undefined;
    let nameEnd: number;
    if (guess !== null && xml.startsWith(guess.qname, lt + 1) && endsName(xml.charCodeAt(lt + 1 + guess.qname.length))) {
      name = guess;
      nameEnd = lt + 1 + guess.qname.length;
    } else {
      nameEnd = lt + 1;
      while (!endsName(xml.charCodeAt(nameEnd))) nameEnd++;
      if (nameEnd === lt + 1) throw new Error('empty tag name');
      const qname = xml.slice(lt + 1, nameEnd);
      name = names.get(qname);
      if (!name) {
        const local = qname.slice(qname.indexOf(':') + 1);
        name = newName(qname, WANTED.has(local) ? local : null);
        names.set(qname, name);
      }
    }
    if (top.lastChild === null) top.name.firstChild = name;
    else top.lastChild.next = name;
    top.lastChild = name;
    // Without white space after the name, '>' or '/>' follows it; with some, attributes may
    // follow, and an attribute value may hold '>'.
    let end = nameEnd;
    const after = xml.charCodeAt(nameEnd);
    if (after === 47 /* / */) {
      end = nameEnd + 1;
      if (xml.charCodeAt(end) !== 62) throw new Error('malformed start tag');
    } else if (after !== 62 /* > */) {
      let q = 0;
      for (; end < n; end++) {
        const ch = xml.charCodeAt(end);
        if (q !== 0) {
          if (ch === q) q = 0;
        } else if (ch === 34 || ch === 39) q = ch;
        else if (ch === 62) break;
      }
      if (end >= n) throw new Error('unterminated tag');
    }
    top.hasChild = true;
    const built = top.built && name.wanted !== null;
    if (xml.charCodeAt(end - 1) === 47 /* / */) {
      if (built) addChild((top.obj ??= {}), name, '');
    } else {
      depth++;
      let f = frames[depth];
      if (!f) frames.push((f = newFrame(name)));
      f.name = name;
      f.built = built;
      f.hasChild = false;
      f.lastChild = null;
      if (built) {
        // Created with the first built child: leaves never need one.
        f.obj = null;
        f.text = '';
        f.segStart = end + 1;
      }
    }
    i = end + 1;
  }
  return root;
}

function schemaError(field: string): Error {
  return clientFault(4102, `El XML no cumple el esquema. Falta informar campo obligatorio.: ${field}`);
}

function node(parent: Node, name: string): Node {
  const v = parent[name];
  if (v === undefined || v === null || typeof v !== 'object' || Array.isArray(v)) throw schemaError(name);
  return v as Node;
}

function optNode(parent: Node, name: string): Node | undefined {
  const v = parent[name];
  if (v === undefined) return undefined;
  if (v === '' ) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw schemaError(name);
  return v as Node;
}

function text(parent: Node, name: string): string {
  const v = parent[name];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw schemaError(name);
}

function optText(parent: Node, name: string): string | undefined {
  return parent[name] === undefined ? undefined : text(parent, name);
}

function list(parent: Node | undefined, name: string): Node[] {
  if (!parent) return [];
  const v = parent[name];
  if (v === undefined) return [];
  const arr = Array.isArray(v) ? v : [v];
  return arr.map((x) => {
    if (typeof x !== 'object' || x === null) throw schemaError(name);
    return x as Node;
  });
}

function persona(n: Node): { nombre: string; nif: string } {
  return { nombre: text(n, 'NombreRazon'), nif: text(n, 'NIF') };
}

function prevOf(rec: Node): PrevRef | null {
  const enc = node(rec, 'Encadenamiento');
  if (enc.PrimerRegistro !== undefined) return null;
  const ra = node(enc, 'RegistroAnterior');
  return {
    emisor: text(ra, 'IDEmisorFactura'),
    numSerie: text(ra, 'NumSerieFactura'),
    fecha: text(ra, 'FechaExpedicionFactura'),
    huella: text(ra, 'Huella'),
  };
}

function sistemaOf(rec: Node): SistemaRef {
  const si = node(rec, 'SistemaInformatico');
  return { idSistemaInformatico: text(si, 'IdSistemaInformatico'), numeroInstalacion: text(si, 'NumeroInstalacion') };
}

function idOtroOf(n: Node | undefined): IdOtroRef | undefined {
  const o = n ? optNode(n, 'IDOtro') : undefined;
  if (!o) return undefined;
  const out: IdOtroRef = { idType: text(o, 'IDType'), id: text(o, 'ID') };
  const pais = optText(o, 'CodigoPais');
  if (pais !== undefined) out.codigoPais = pais;
  return out;
}

/** Sets `key` on `out` when the element is present (optional fields stay absent, not undefined). */
function copyOpt<K extends string>(out: Partial<Record<K, string>>, key: K, parent: Node, name: string): void {
  const v = optText(parent, name);
  if (v !== undefined) out[key] = v;
}

function parseLine(d: Node): DesgloseLine {
  const l: DesgloseLine = { base: text(d, 'BaseImponibleOimporteNoSujeto') };
  copyOpt(l, 'impuesto', d, 'Impuesto');
  copyOpt(l, 'claveRegimen', d, 'ClaveRegimen');
  copyOpt(l, 'calificacion', d, 'CalificacionOperacion');
  copyOpt(l, 'exenta', d, 'OperacionExenta');
  copyOpt(l, 'baseACoste', d, 'BaseImponibleACoste');
  copyOpt(l, 'tipo', d, 'TipoImpositivo');
  copyOpt(l, 'cuota', d, 'CuotaRepercutida');
  copyOpt(l, 'tipoRecargo', d, 'TipoRecargoEquivalencia');
  copyOpt(l, 'recargo', d, 'CuotaRecargoEquivalencia');
  return l;
}

function parseAlta(r: Node, index: number): AltaRecord {
  const id = node(r, 'IDFactura');
  const desglose = node(r, 'Desglose');
  const lines = list(desglose, 'DetalleDesglose').map(parseLine);
  const destinatarios = optNode(r, 'Destinatarios');
  const destinatarioNifs: string[] = [];
  const destinatariosOtro: IdOtroRef[] = [];
  for (const d of list(destinatarios, 'IDDestinatario')) {
    const nif = optText(d, 'NIF');
    if (nif !== undefined) destinatarioNifs.push(nif);
    const otro = idOtroOf(d);
    if (otro) destinatariosOtro.push(otro);
  }
  const tercero = optNode(r, 'Tercero');
  const out: AltaRecord = {
    tipo: 'alta',
    index,
    sistema: sistemaOf(r),
    emisor: text(id, 'IDEmisorFactura'),
    numSerie: text(id, 'NumSerieFactura'),
    fecha: text(id, 'FechaExpedicionFactura'),
    tipoFactura: text(r, 'TipoFactura'),
    cuotaTotal: text(r, 'CuotaTotal'),
    importeTotal: text(r, 'ImporteTotal'),
    lines,
    destinatarioNifs,
    destinatariosOtro,
    conDestinatarios: destinatarios !== undefined,
    conRectificadas: r.FacturasRectificadas !== undefined,
    conSustituidas: r.FacturasSustituidas !== undefined,
    conImporteRectificacion: r.ImporteRectificacion !== undefined,
    conTercero: tercero !== undefined,
    conAcuerdo: r.NumRegistroAcuerdoFacturacion !== undefined,
    prev: prevOf(r),
    fechaHoraHusoGenRegistro: text(r, 'FechaHoraHusoGenRegistro'),
    huella: text(r, 'Huella'),
  };
  copyOpt(out, 'refExterna', r, 'RefExterna');
  copyOpt(out, 'subsanacion', r, 'Subsanacion');
  copyOpt(out, 'rechazoPrevio', r, 'RechazoPrevio');
  copyOpt(out, 'fechaOperacion', r, 'FechaOperacion');
  copyOpt(out, 'tipoRectificativa', r, 'TipoRectificativa');
  copyOpt(out, 'simplificada7273', r, 'FacturaSimplificadaArt7273');
  copyOpt(out, 'sinIdentif61d', r, 'FacturaSinIdentifDestinatarioArt61d');
  copyOpt(out, 'macrodato', r, 'Macrodato');
  copyOpt(out, 'emitidaPor', r, 'EmitidaPorTerceroODestinatario');
  copyOpt(out, 'cupon', r, 'Cupon');
  if (tercero) {
    const nif = optText(tercero, 'NIF');
    if (nif !== undefined) out.terceroNif = nif;
    const otro = idOtroOf(tercero);
    if (otro) out.terceroOtro = otro;
  }
  return out;
}

function parseAnulacion(r: Node, index: number): AnulacionRecord {
  const id = node(r, 'IDFactura');
  const out: AnulacionRecord = {
    tipo: 'anulacion',
    index,
    sistema: sistemaOf(r),
    emisor: text(id, 'IDEmisorFacturaAnulada'),
    numSerie: text(id, 'NumSerieFacturaAnulada'),
    fecha: text(id, 'FechaExpedicionFacturaAnulada'),
    prev: prevOf(r),
    fechaHoraHusoGenRegistro: text(r, 'FechaHoraHusoGenRegistro'),
    huella: text(r, 'Huella'),
    conGenerador: false,
  };
  const generador = optNode(r, 'Generador');
  if (generador) {
    out.conGenerador = true;
    const nif = optText(generador, 'NIF');
    if (nif !== undefined) out.generadorNif = nif;
    const otro = idOtroOf(generador);
    if (otro) out.generadorOtro = otro;
  }
  copyOpt(out, 'generadoPor', r, 'GeneradoPor');
  const refExterna = optText(r, 'RefExterna');
  const sinRegistroPrevio = optText(r, 'SinRegistroPrevio');
  const rechazoPrevio = optText(r, 'RechazoPrevio');
  if (refExterna !== undefined) out.refExterna = refExterna;
  if (sinRegistroPrevio !== undefined) out.sinRegistroPrevio = sinRegistroPrevio;
  if (rechazoPrevio !== undefined) out.rechazoPrevio = rechazoPrevio;
  return out;
}

/** Parses the payload produced by extractBodyPayload (root RegFactuSistemaFacturacion). */
export function parseRegFactu(payloadXml: string): ParsedRequest {
  let doc: Node;
  try {
    doc = readXml(payloadXml);
  } catch (err) {
    throw clientFault(4102, `El XML no cumple el esquema. XML mal formado: ${String(err).slice(0, 200)}`);
  }
  const root = node(doc, 'RegFactuSistemaFacturacion');
  const cab = node(root, 'Cabecera');
  const cabecera: CabeceraEcho = { obligado: persona(node(cab, 'ObligadoEmision')) };
  const rep = optNode(cab, 'Representante');
  if (rep) cabecera.representante = persona(rep);
  const rv = optNode(cab, 'RemisionVoluntaria');
  if (rv) {
    cabecera.remisionVoluntaria = {};
    const f = optText(rv, 'FechaFinVeriFactu');
    const i = optText(rv, 'Incidencia');
    if (f !== undefined) cabecera.remisionVoluntaria.fechaFinVeriFactu = f;
    if (i !== undefined) cabecera.remisionVoluntaria.incidencia = i;
  }
  const rr = optNode(cab, 'RemisionRequerimiento');
  if (rr) {
    cabecera.remisionRequerimiento = { refRequerimiento: text(rr, 'RefRequerimiento') };
    const fin = optText(rr, 'FinRequerimiento');
    if (fin !== undefined) cabecera.remisionRequerimiento.finRequerimiento = fin;
  }
  const regs = list(root, 'RegistroFactura');
  if (regs.length === 0) throw schemaError('RegistroFactura');
  const records = regs.map((rf, i): ParsedRecord => {
    const alta = optNode(rf, 'RegistroAlta');
    if (alta) return parseAlta(alta, i);
    const anul = optNode(rf, 'RegistroAnulacion');
    if (anul) return parseAnulacion(anul, i);
    throw schemaError('RegistroAlta');
  });
  return { cabecera, records };
}

const REGISTRO_FACTURA = 'RegistroFactura';
const isNameChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * Cheap count of RegistroFactura start tags (`<RegistroFactura` or `<prefix:RegistroFactura`,
 * then a space or `>`), done before any parsing to enforce the 1000 cap. A search for the name
 * and a look around each hit: a regular expression tried at every `<` of a 2 MB request cost ten
 * times as much.
 */
export function countRegistroFactura(xml: string): number {
  let n = 0;
  for (let at = xml.indexOf(REGISTRO_FACTURA); at >= 0; at = xml.indexOf(REGISTRO_FACTURA, at + REGISTRO_FACTURA.length)) {
    const after = xml.charCodeAt(at + REGISTRO_FACTURA.length);
    if (after !== 62 /* > */ && !isSpace(after)) continue;
    let start = at - 1;
    if (xml.charCodeAt(start) === 58 /* : */) {
      const colon = start;
      while (start > 0 && isNameChar(xml.charCodeAt(start - 1))) start--;
      if (start === colon) continue;
      start--;
    }
    if (xml.charCodeAt(start) === 60 /* < */) n++;
  }
  return n;
}
