// TicketBAI 1.2.2 documents as XML strings (ticketbaiv1-2-2.xsd, anula_ticketbaiv1-2-2.xsd),
// unsigned; xades.ts appends the ds:Signature. Hot path of issuing: plain string concatenation, no
// DOM, elements in the XSD's order. Only the root is namespace-qualified (the schemas declare
// their local elements unqualified).
//
// The output is its own inclusive C14N form (no XML declaration, no self-closing tags, no
// attributes, C14N text escaping): xades.ts can then digest the string as it is instead of
// parsing and canonicalizing it.
import type {
  DestinatarioTbai,
  DetalleDesgloseTbai,
  FacturaReferidaTbai,
  FacturaTicketbai,
  LineaTbai,
  TicketbaiAnularBody,
} from '../../../../../src-shared/api/ticketbai';
import { fechaHoraHusoGenRegistro } from '../../../issuing/fecha-hora';
import { importeCanonico, tipoCanonico } from '../../../issuing/importes';
import { numSerieDispositivo } from '../../../devices/chain-keys';

export const NS_TBAI_EMISION = 'urn:ticketbai:emision';
export const NS_TBAI_ANULACION = 'urn:ticketbai:anulacion';
/** IDVersionTBAI of the 1.2.x schemas (1.2.2 keeps "1.2"). */
export const ID_VERSION_TBAI = '1.2';
/** DescripcionFactura is mandatory in the XSD and optional in the API. */
export const DESCRIPCION_POR_DEFECTO = 'Venta';

// ---------------------------------------------------------------- text

const NEEDS_ESCAPE = /[&<>\r]/;
const ESCAPE_ALL = /[&<>\r]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };

/**
 * The one text-escaping function of the TicketBAI XML: every value written between tags goes
 * through it. It escapes exactly what C14N escapes in text (& < > and CR, which a parser would
 * otherwise turn into LF), so the document stays in canonical form; quotes need no escaping in
 * text. Attribute values in TicketBAI documents are never free text.
 */
export function escapeTexto(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPE_ALL, (c) => ENTITIES[c] ?? c);
}

/** Element with free text: escaped. */
function el(name: string, value: string): string {
  return '<' + name + '>' + escapeTexto(value) + '</' + name + '>';
}

/** Element with a value that cannot hold markup by construction (validated codes, dates, amounts). */
function tok(name: string, value: string): string {
  return '<' + name + '>' + value + '</' + name + '>';
}

// ---------------------------------------------------------------- amounts

const IMPORTE8 = /^(-?)(\d{1,12})(?:\.(\d{1,8}))?$/;

/**
 * Canonical line amount (ImporteSgn12.8): never rounds, no leading zeros, at least two decimals
 * and trailing zeros beyond the second dropped ('1' → '1.00', '0.12500000' → '0.125').
 */
export function importe8Canonico(value: string): string {
  const m = IMPORTE8.exec(value);
  if (m === null) throw new RangeError(`not an amount with at most 12 integer digits and 8 decimals: "${value}"`);
  const int = (m[2] ?? '0').replace(/^0+(?=\d)/, '');
  let frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  const zero = int === '0' && /^0+$/.test(frac);
  return (m[1] === '-' && !zero ? '-' : '') + int + '.' + frac;
}

/** ImporteTotalFactura exactly as written in the XML (and therefore in the QR's `i=`). */
export function importeTotalFacturaTbai(factura: Pick<FacturaTicketbai, 'importeTotal'>): string {
  return importeCanonico(factura.importeTotal);
}

// ---------------------------------------------------------------- shared pieces

/** The billing software registered with the treasuries (HuellaTBAI/Software). */
export interface SoftwareTbai {
  /** LicenciaTBAI issued by the treasury (max 20). */
  licenciaTbai: string;
  /** NIF of the developer (EntidadDesarrolladora/NIF). */
  nifDesarrolladora: string;
  nombre: string;
  version: string;
}

/** The previous invoice of the chain, as written in its own XML and signature. */
export interface FacturaAnteriorTbai {
  serie?: string | undefined;
  numero: string;
  fechaExpedicion: string;
  /** Its whole SignatureValue; the first 100 characters are chained. */
  signatureValue: string;
}

/** HoraExpedicionFactura: the one sent, else the generation instant in the local zone. */
export function horaExpedicionTbai(factura: Pick<FacturaTicketbai, 'horaExpedicion'>, generadoEn: Date, zona = 'Europe/Madrid'): string {
  return factura.horaExpedicion ?? fechaHoraHusoGenRegistro(generadoEn, zona).slice(11, 19);
}

// The Software block is the same for every document of an installation: build it once.
const softwareCache = new WeakMap<SoftwareTbai, string>();

function softwareXml(s: SoftwareTbai): string {
  let x = softwareCache.get(s);
  if (x === undefined) {
    x =
      '<Software>' +
      el('LicenciaTBAI', s.licenciaTbai.trim()) +
      '<EntidadDesarrolladora>' + el('NIF', s.nifDesarrolladora) + '</EntidadDesarrolladora>' +
      el('Nombre', s.nombre.trim()) +
      el('Version', s.version.trim()) +
      '</Software>';
    softwareCache.set(s, x);
  }
  return x;
}

/** HuellaTBAI of an alta (and of a Zuzendu correction, which repeats the original's). */
export function huellaTbaiXml(anterior: FacturaAnteriorTbai | null, software: SoftwareTbai, idMaquina?: string): string {
  let x = '<HuellaTBAI>';
  if (anterior !== null) {
    x += '<EncadenamientoFacturaAnterior>';
    if (anterior.serie !== undefined) x += el('SerieFacturaAnterior', anterior.serie);
    x +=
      el('NumFacturaAnterior', anterior.numero) +
      tok('FechaExpedicionFacturaAnterior', anterior.fechaExpedicion) +
      // Base64: no markup characters; the specification chains the first 100.
      tok('SignatureValueFirmaFacturaAnterior', anterior.signatureValue.slice(0, 100)) +
      '</EncadenamientoFacturaAnterior>';
  }
  x += softwareXml(software);
  if (idMaquina !== undefined) x += tok('NumSerieDispositivo', numSerieDispositivo(idMaquina));
  return x + '</HuellaTBAI>';
}

function destinatarioXml(d: DestinatarioTbai): string {
  let x = '<IDDestinatario>';
  if (d.nif !== undefined) {
    x += tok('NIF', d.nif);
  } else if (d.idOtro !== undefined) {
    x += '<IDOtro>';
    if (d.idOtro.codigoPais !== undefined) x += tok('CodigoPais', d.idOtro.codigoPais);
    x += tok('IDType', d.idOtro.idType) + el('ID', d.idOtro.id.trim()) + '</IDOtro>';
  }
  x += el('ApellidosNombreRazonSocial', d.nombre.trim());
  if (d.codigoPostal !== undefined) x += el('CodigoPostal', d.codigoPostal.trim());
  if (d.direccion !== undefined) x += el('Direccion', d.direccion.trim());
  return x + '</IDDestinatario>';
}

/** Sujetos: the issuer and, when given, the one recipient. */
export function sujetosXml(f: Pick<FacturaTicketbai, 'emisor' | 'destinatario'>, emisorNombre?: string): string {
  let x = '<Sujetos><Emisor>' + tok('NIF', f.emisor.nif) + el('ApellidosNombreRazonSocial', (emisorNombre ?? f.emisor.nombre).trim()) + '</Emisor>';
  if (f.destinatario !== undefined) x += '<Destinatarios>' + destinatarioXml(f.destinatario) + '</Destinatarios>';
  return x + '</Sujetos>';
}

function facturaReferida(r: FacturaReferidaTbai): string {
  let x = '<IDFacturaRectificadaSustituida>';
  if (r.serie !== undefined) x += el('SerieFactura', r.serie);
  return x + el('NumFactura', r.numero) + tok('FechaExpedicionFactura', r.fechaExpedicion) + '</IDFacturaRectificadaSustituida>';
}

function lineaXml(l: LineaTbai): string {
  let x = '<IDDetalleFactura>' + el('DescripcionDetalle', l.descripcion.trim()) + tok('Cantidad', importe8Canonico(l.cantidad)) + tok('ImporteUnitario', importe8Canonico(l.importeUnitario));
  if (l.descuento !== undefined) x += tok('Descuento', importe8Canonico(l.descuento));
  return x + tok('ImporteTotal', importe8Canonico(l.importeTotal)) + '</IDDetalleFactura>';
}

function detalleIva(d: DetalleDesgloseTbai, regimenRecargo: boolean): string {
  let x = '<DetalleIVA>' + tok('BaseImponible', importeCanonico(d.baseImponible));
  if (d.tipoImpositivo !== undefined) x += tok('TipoImpositivo', tipoCanonico(d.tipoImpositivo));
  if (d.cuota !== undefined) x += tok('CuotaImpuesto', importeCanonico(d.cuota));
  if (d.tipoRecargoEquivalencia !== undefined) x += tok('TipoRecargoEquivalencia', tipoCanonico(d.tipoRecargoEquivalencia));
  if (d.cuotaRecargoEquivalencia !== undefined) x += tok('CuotaRecargoEquivalencia', importeCanonico(d.cuotaRecargoEquivalencia));
  // S for operations under recargo de equivalencia or the simplified regime; N is the default.
  if (regimenRecargo || d.tipoRecargoEquivalencia !== undefined) {
    x += '<OperacionEnRecargoDeEquivalenciaORegimenSimplificado>S</OperacionEnRecargoDeEquivalenciaORegimenSimplificado>';
  }
  return x + '</DetalleIVA>';
}

/** Content of DesgloseFactura / PrestacionServicios / Entrega: Sujeta (Exenta, NoExenta) then NoSujeta. */
function desgloseXml(lineas: readonly DetalleDesgloseTbai[], regimenRecargo: boolean): string {
  let exentas = '';
  let s1 = '';
  let s2 = '';
  let noSujetas = '';
  for (const d of lineas) {
    if (d.operacionExenta !== undefined) {
      exentas += '<DetalleExenta>' + tok('CausaExencion', d.operacionExenta) + tok('BaseImponible', importeCanonico(d.baseImponible)) + '</DetalleExenta>';
    } else if (d.causaNoSujecion !== undefined) {
      noSujetas += '<DetalleNoSujeta>' + tok('Causa', d.causaNoSujecion) + tok('Importe', importeCanonico(d.baseImponible)) + '</DetalleNoSujeta>';
    } else if (d.calificacionOperacion === 'S2') {
      s2 += detalleIva(d, regimenRecargo);
    } else {
      s1 += detalleIva(d, regimenRecargo);
    }
  }
  let x = '';
  if (exentas !== '' || s1 !== '' || s2 !== '') {
    x += '<Sujeta>';
    if (exentas !== '') x += '<Exenta>' + exentas + '</Exenta>';
    if (s1 !== '' || s2 !== '') {
      x += '<NoExenta>';
      if (s1 !== '') x += '<DetalleNoExenta><TipoNoExenta>S1</TipoNoExenta><DesgloseIVA>' + s1 + '</DesgloseIVA></DetalleNoExenta>';
      if (s2 !== '') x += '<DetalleNoExenta><TipoNoExenta>S2</TipoNoExenta><DesgloseIVA>' + s2 + '</DesgloseIVA></DetalleNoExenta>';
      x += '</NoExenta>';
    }
    x += '</Sujeta>';
  }
  if (noSujetas !== '') x += '<NoSujeta>' + noSujetas + '</NoSujeta>';
  return x;
}

function tipoDesgloseXml(f: FacturaTicketbai): string {
  const claves = f.clavesRegimen ?? ['01'];
  const regimenRecargo = claves.includes('51') || claves.includes('52');
  if (f.desglose[0]?.tipoOperacion === undefined) {
    return '<TipoDesglose><DesgloseFactura>' + desgloseXml(f.desglose, regimenRecargo) + '</DesgloseFactura></TipoDesglose>';
  }
  const servicios = f.desglose.filter((d) => d.tipoOperacion === 'prestacion_servicios');
  const entregas = f.desglose.filter((d) => d.tipoOperacion === 'entrega');
  let x = '<TipoDesglose><DesgloseTipoOperacion>';
  if (servicios.length > 0) x += '<PrestacionServicios>' + desgloseXml(servicios, regimenRecargo) + '</PrestacionServicios>';
  if (entregas.length > 0) x += '<Entrega>' + desgloseXml(entregas, regimenRecargo) + '</Entrega>';
  return x + '</DesgloseTipoOperacion></TipoDesglose>';
}

/** Factura: CabeceraFactura, DatosFactura, TipoDesglose. */
export function facturaXml(f: FacturaTicketbai, hora: string): string {
  let x = '<Factura><CabeceraFactura>';
  if (f.serie !== undefined) x += el('SerieFactura', f.serie);
  x += el('NumFactura', f.numero) + tok('FechaExpedicionFactura', f.fechaExpedicion) + tok('HoraExpedicionFactura', hora);
  if (f.tipoFactura === 'F2' || f.tipoFactura === 'R5') x += '<FacturaSimplificada>S</FacturaSimplificada>';
  if (f.tipoFactura === 'F3') x += '<FacturaEmitidaSustitucionSimplificada>S</FacturaEmitidaSustitucionSimplificada>';
  if (f.rectificativa !== undefined) {
    x += '<FacturaRectificativa>' + tok('Codigo', f.tipoFactura) + tok('Tipo', f.rectificativa.tipo);
    const imp = f.rectificativa.importes;
    if (imp !== undefined) {
      x += '<ImporteRectificacionSustitutiva>' + tok('BaseRectificada', importeCanonico(imp.baseRectificada)) + tok('CuotaRectificada', importeCanonico(imp.cuotaRectificada));
      if (imp.cuotaRecargoRectificada !== undefined) x += tok('CuotaRecargoRectificada', importeCanonico(imp.cuotaRecargoRectificada));
      x += '</ImporteRectificacionSustitutiva>';
    }
    x += '</FacturaRectificativa>';
  }
  const referidas = [...(f.facturasRectificadas ?? []), ...(f.facturasSustituidas ?? [])];
  if (referidas.length > 0) x += '<FacturasRectificadasSustituidas>' + referidas.map(facturaReferida).join('') + '</FacturasRectificadasSustituidas>';
  x += '</CabeceraFactura><DatosFactura>' + el('DescripcionFactura', (f.descripcion ?? DESCRIPCION_POR_DEFECTO).trim());
  if (f.lineas !== undefined) {
    x += '<DetallesFactura>';
    for (const l of f.lineas) x += lineaXml(l);
    x += '</DetallesFactura>';
  }
  x += tok('ImporteTotalFactura', importeTotalFacturaTbai(f)) + '<Claves>';
  for (const c of f.clavesRegimen ?? ['01']) x += '<IDClave>' + tok('ClaveRegimenIvaOpTrascendencia', c) + '</IDClave>';
  return x + '</Claves></DatosFactura>' + tipoDesgloseXml(f) + '</Factura>';
}

// ---------------------------------------------------------------- alta

export interface BuildTicketBaiAltaInput {
  factura: FacturaTicketbai;
  /** ApellidosNombreRazonSocial of the issuer; defaults to factura.emisor.nombre. */
  emisorNombre?: string | undefined;
  /** null for the first invoice of the chain. */
  anterior: FacturaAnteriorTbai | null;
  software: SoftwareTbai;
  /** Instant of issuing: HoraExpedicionFactura when the body has no horaExpedicion. */
  generadoEn: Date;
  /** Zone of that hour (Europe/Madrid by default). */
  zona?: string | undefined;
}

/** `T:TicketBai` without its signature, in canonical form (see the header). */
export function buildTicketBaiAlta(input: BuildTicketBaiAltaInput): string {
  const f = input.factura;
  return (
    '<T:TicketBai xmlns:T="' + NS_TBAI_EMISION + '"><Cabecera><IDVersionTBAI>' + ID_VERSION_TBAI + '</IDVersionTBAI></Cabecera>' +
    sujetosXml(f, input.emisorNombre) +
    facturaXml(f, horaExpedicionTbai(f, input.generadoEn, input.zona)) +
    huellaTbaiXml(input.anterior, input.software, f.idMaquina) +
    '</T:TicketBai>'
  );
}

// ---------------------------------------------------------------- anulación

export interface BuildTicketBaiAnulacionInput {
  anulacion: TicketbaiAnularBody;
  /** ApellidosNombreRazonSocial of the issuer (the API's anular body carries only the NIF). */
  nombreEmisor: string;
  software: SoftwareTbai;
}

/** `T:AnulaTicketBai` without its signature, in canonical form. Not chained: the XSD has no chaining. */
export function buildTicketBaiAnulacion(input: BuildTicketBaiAnulacionInput): string {
  const a = input.anulacion;
  let x =
    '<T:AnulaTicketBai xmlns:T="' + NS_TBAI_ANULACION + '"><Cabecera><IDVersionTBAI>' + ID_VERSION_TBAI + '</IDVersionTBAI></Cabecera>' +
    '<IDFactura><Emisor>' + tok('NIF', a.nifEmisor) + el('ApellidosNombreRazonSocial', input.nombreEmisor.trim()) + '</Emisor><CabeceraFactura>';
  if (a.serie !== undefined) x += el('SerieFactura', a.serie);
  x += el('NumFactura', a.numero) + tok('FechaExpedicionFactura', a.fechaExpedicion) + '</CabeceraFactura></IDFactura><HuellaTBAI>' + softwareXml(input.software);
  if (a.idMaquina !== undefined) x += tok('NumSerieDispositivo', numSerieDispositivo(a.idMaquina));
  return x + '</HuellaTBAI></T:AnulaTicketBai>';
}
