// Billing records (RegistroAlta / RegistroAnulacion) as XML strings, elements in the order of
// SuministroInformacion.xsd, with their huella. Hot path of issuing: plain string concatenation,
// no DOM, tags written as literals around each value; every text value goes through escapeXml,
// every amount through importes.ts, and the hash is computed from the very strings written in the
// XML.
import type { FacturaVerifactu, IdFacturaReferida, Persona, VerifactuAnularBody } from '../../../../../src-shared/api/verifactu';
import { fechaHoraHusoGenRegistro } from '../../../issuing/fecha-hora';
import { cadenaHuellaAltaDe, huellaAnulacion, huellaDeCadena } from './huella';
import { importeCanonico, tipoCanonico } from '../../../issuing/importes';
import { escapeXml } from './xml-escape';

/** targetNamespace of SuministroInformacion.xsd, bound to the prefix `sum1`. */
export const NS_SUMINISTRO_INFORMACION =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd';

export type SiNo = 'S' | 'N';

/** The billing software (SistemaInformatico block), identified by the producer's NIF. */
export interface SistemaInformatico {
  nombreRazon: string;
  nif: string;
  nombreSistemaInformatico: string;
  /** Two characters: upper-case letters (not Ñ) or digits (AEAT 1177). */
  idSistemaInformatico: string;
  version: string;
  numeroInstalacion: string;
  tipoUsoPosibleSoloVerifactu: SiNo;
  tipoUsoPosibleMultiOT: SiNo;
  indicadorMultiplesOT: SiNo;
}

/** The previous record of the chain, as written in its own XML. */
export interface RegistroAnterior {
  idEmisorFactura: string;
  numSerieFactura: string;
  fechaExpedicionFactura: string;
  huella: string;
}

export interface BuildRegistroAltaInput {
  factura: FacturaVerifactu;
  /** NombreRazonEmisor; defaults to factura.emisor.nombre. */
  emisorNombre?: string | undefined;
  /** null for the first record of the chain (PrimerRegistro = S). */
  anterior: RegistroAnterior | null;
  generadoEn: Date;
  /** Zone of FechaHoraHusoGenRegistro: Europe/Madrid (default) or Atlantic/Canary. */
  zona?: string | undefined;
  sistema: SistemaInformatico;
  /** Present for a correction: Subsanacion = S, and RechazoPrevio when given. */
  subsanacion?: { rechazoPrevio?: 'N' | 'S' | 'X' | undefined } | undefined;
  /**
   * Generated during a technical incident. The record itself has no such element: the flag goes
   * in the submission header (soap.ts), so it is only passed through to the result.
   */
  incidencia?: boolean | undefined;
}

export interface RegistroAltaConstruido {
  huella: string;
  fechaHoraHusoGenRegistro: string;
  /** Serie + numero, as NumSerieFactura and the API's numeroFactura. */
  numSerieFactura: string;
  /** Canonical amounts, exactly as in the XML and the hash. */
  cuotaTotal: string;
  importeTotal: string;
  incidencia: boolean;
  /** The `sum1:RegistroAlta` element, with its namespace declaration. */
  xml: string;
}

export interface BuildRegistroAnulacionInput {
  facturaAnulada: VerifactuAnularBody['facturaAnulada'];
  anterior: RegistroAnterior | null;
  generadoEn: Date;
  zona?: string | undefined;
  sistema: SistemaInformatico;
  /** The invoice's registration never reached AEAT (SinRegistroPrevio = S). */
  sinRegistroPrevio?: boolean | undefined;
  /** A previous cancellation was rejected by AEAT (RechazoPrevio = S). */
  rechazoPrevio?: 'N' | 'S' | undefined;
  refExterna?: string | undefined;
}

export interface RegistroAnulacionConstruido {
  huella: string;
  fechaHoraHusoGenRegistro: string;
  numSerieFactura: string;
  xml: string;
}

// ---------------------------------------------------------------- XML pieces

/** Element with free text: escaped. */
function el(name: string, value: string): string {
  return '<sum1:' + name + '>' + escapeXml(value) + '</sum1:' + name + '>';
}

/**
 * Element with a token that cannot hold XML metacharacters by construction: schema-validated NIFs,
 * dates and codes, canonical amounts, generated hashes and timestamps. Skipping the scan matters
 * on the hot path; anything else goes through el().
 */
function tok(name: string, value: string): string {
  return '<sum1:' + name + '>' + value + '</sum1:' + name + '>';
}

/** NumSerieFactura: serie and numero concatenated, trimmed as AEAT stores it. */
export function numSerieFactura(serie: string | undefined, numero: string): string {
  return ((serie ?? '') + numero).trim();
}

function persona(p: Persona): string {
  let x = '<sum1:NombreRazon>' + escapeXml(p.nombre.trim()) + '</sum1:NombreRazon>';
  if (p.nif !== undefined) {
    x += '<sum1:NIF>' + p.nif + '</sum1:NIF>';
  } else if (p.idOtro !== undefined) {
    x += '<sum1:IDOtro>';
    if (p.idOtro.codigoPais !== undefined) x += tok('CodigoPais', p.idOtro.codigoPais);
    x += tok('IDType', p.idOtro.idType) + el('ID', p.idOtro.id.trim()) + '</sum1:IDOtro>';
  }
  return x;
}

function facturasReferidas(tag: string, nif: string, facturas: readonly IdFacturaReferida[]): string {
  let x = '';
  for (const f of facturas) {
    x +=
      '<sum1:' + tag + '>' +
      tok('IDEmisorFactura', nif) +
      el('NumSerieFactura', numSerieFactura(f.serie, f.numero)) +
      tok('FechaExpedicionFactura', f.fechaExpedicion) +
      '</sum1:' + tag + '>';
  }
  return x;
}

/**
 * The previous record's identity as written in its own XML: the NIF, the date and the huella are
 * tokens (a schema-validated NIF and date, a generated hex hash) and go in as they are; only
 * NumSerieFactura, printable ASCII that may hold `&` or `<`, is escaped.
 */
function encadenamiento(anterior: RegistroAnterior | null): string {
  if (anterior === null) return '<sum1:Encadenamiento><sum1:PrimerRegistro>S</sum1:PrimerRegistro></sum1:Encadenamiento>';
  return (
    '<sum1:Encadenamiento><sum1:RegistroAnterior><sum1:IDEmisorFactura>' + anterior.idEmisorFactura +
    '</sum1:IDEmisorFactura><sum1:NumSerieFactura>' + escapeXml(anterior.numSerieFactura) +
    '</sum1:NumSerieFactura><sum1:FechaExpedicionFactura>' + anterior.fechaExpedicionFactura +
    '</sum1:FechaExpedicionFactura><sum1:Huella>' + anterior.huella +
    '</sum1:Huella></sum1:RegistroAnterior></sum1:Encadenamiento>'
  );
}

// The SistemaInformatico block is the same for every record of an installation, and in both
// records it is followed by FechaHoraHusoGenRegistro: built once, up to that element's value.
const sistemaCache = new WeakMap<SistemaInformatico, string>();
// A till writes with one SistemaInformatico: the last one is looked up without hashing.
let ultimoSistema: SistemaInformatico | null = null;
let ultimoSistemaXml = '';

function sistemaYAbreFechaHora(s: SistemaInformatico): string {
  if (s === ultimoSistema) return ultimoSistemaXml;
  let x = sistemaCache.get(s);
  if (x === undefined) {
    x =
      '<sum1:SistemaInformatico>' +
      el('NombreRazon', s.nombreRazon.trim()) +
      el('NIF', s.nif) +
      el('NombreSistemaInformatico', s.nombreSistemaInformatico.trim()) +
      el('IdSistemaInformatico', s.idSistemaInformatico) +
      el('Version', s.version.trim()) +
      el('NumeroInstalacion', s.numeroInstalacion.trim()) +
      el('TipoUsoPosibleSoloVerifactu', s.tipoUsoPosibleSoloVerifactu) +
      el('TipoUsoPosibleMultiOT', s.tipoUsoPosibleMultiOT) +
      el('IndicadorMultiplesOT', s.indicadorMultiplesOT) +
      '</sum1:SistemaInformatico><sum1:FechaHoraHusoGenRegistro>';
    sistemaCache.set(s, x);
  }
  ultimoSistema = s;
  ultimoSistemaXml = x;
  return x;
}

/** From the value of FechaHoraHusoGenRegistro to the value of Huella (both records, unless an alta carries an agreement). */
const CIERRA_FECHA_HORA_ABRE_HUELLA = '</sum1:FechaHoraHusoGenRegistro><sum1:TipoHuella>01</sum1:TipoHuella><sum1:Huella>';

/**
 * Macrodato = S when |ImporteTotal| ≥ 100,000,000.00 (AEAT 1138/1139): 9+ integer digits. A
 * canonical amount always ends in a dot and two decimals.
 */
function esMacrodato(importeCanon: string): boolean {
  const start = importeCanon.charCodeAt(0) === 45 ? 1 : 0; // '-'
  return importeCanon.length - 3 - start >= 9;
}

// ---------------------------------------------------------------- RegistroAlta

// A till's records all carry the same issuer name, and a name with `&` ("López & Hijos") would be
// rebuilt by escapeXml on every record: the last one is remembered, escaped.
let ultimoNombreEmisor = '';
let ultimoNombreEmisorXml = '';

/** NombreRazonEmisor's text: trimmed and escaped. */
function nombreRazonEmisor(nombre: string): string {
  if (nombre !== ultimoNombreEmisor) {
    ultimoNombreEmisorXml = escapeXml(nombre.trim());
    ultimoNombreEmisor = nombre;
  }
  return ultimoNombreEmisorXml;
}

/** Every RegistroAlta up to the issuer's NIF. */
const ABRE_ALTA =
  '<sum1:RegistroAlta xmlns:sum1="' + NS_SUMINISTRO_INFORMACION + '"><sum1:IDVersion>1.0</sum1:IDVersion><sum1:IDFactura><sum1:IDEmisorFactura>';

/**
 * `<sum1:Name>value</sum1:Name>` for values written as they are (schema enumerations, canonical
 * rates): built once per distinct value, so a record's enumerated elements cost one concatenation
 * each instead of three. At most 64 values are kept per element (an enumeration has fewer).
 */
function elementoRepetido(nombre: string, texto: (valor: string) => string = (v) => v): (valor: string) => string {
  const hechos = new Map<string, string>();
  return (valor) => {
    let x = hechos.get(valor);
    if (x === undefined) {
      x = '<sum1:' + nombre + '>' + texto(valor) + '</sum1:' + nombre + '>';
      if (hechos.size < 64) hechos.set(valor, x);
    }
    return x;
  };
}

const tipoFacturaXml = elementoRepetido('TipoFactura');
const impuestoXml = elementoRepetido('Impuesto');
const claveRegimenXml = elementoRepetido('ClaveRegimen');
const calificacionOperacionXml = elementoRepetido('CalificacionOperacion');
const operacionExentaXml = elementoRepetido('OperacionExenta');
/** Keyed by the rate as sent ('21', '21.00'): the canonical text is computed once per spelling. */
const tipoImpositivoXml = elementoRepetido('TipoImpositivo', tipoCanonico);
const tipoRecargoEquivalenciaXml = elementoRepetido('TipoRecargoEquivalencia', tipoCanonico);

/** The opening of the everyday line: IVA, general regime, subject and not exempt (S1). */
const ABRE_LINEA_IVA_GENERAL_S1 =
  '<sum1:DetalleDesglose><sum1:Impuesto>01</sum1:Impuesto><sum1:ClaveRegimen>01</sum1:ClaveRegimen><sum1:CalificacionOperacion>S1</sum1:CalificacionOperacion>';

/** One DetalleDesglose: this runs for every line of every record. */
function detalleDesglose(d: FacturaVerifactu['detalleDesglose'][number]): string {
  let x: string;
  if (d.impuesto === '01' && d.claveRegimen === '01' && d.calificacionOperacion === 'S1') {
    x = ABRE_LINEA_IVA_GENERAL_S1;
  } else {
    x = '<sum1:DetalleDesglose>';
    if (d.impuesto !== undefined) x += impuestoXml(d.impuesto);
    if (d.claveRegimen !== undefined) x += claveRegimenXml(d.claveRegimen);
    if (d.calificacionOperacion !== undefined) x += calificacionOperacionXml(d.calificacionOperacion);
    else if (d.operacionExenta !== undefined) x += operacionExentaXml(d.operacionExenta);
  }
  if (d.tipoImpositivo !== undefined) x += tipoImpositivoXml(d.tipoImpositivo);
  x += '<sum1:BaseImponibleOimporteNoSujeto>' + importeCanonico(d.baseImponible) + '</sum1:BaseImponibleOimporteNoSujeto>';
  if (d.cuotaRepercutida !== undefined) x += '<sum1:CuotaRepercutida>' + importeCanonico(d.cuotaRepercutida) + '</sum1:CuotaRepercutida>';
  if (d.tipoRecargoEquivalencia !== undefined) x += tipoRecargoEquivalenciaXml(d.tipoRecargoEquivalencia);
  if (d.cuotaRecargoEquivalencia !== undefined) {
    x += '<sum1:CuotaRecargoEquivalencia>' + importeCanonico(d.cuotaRecargoEquivalencia) + '</sum1:CuotaRecargoEquivalencia>';
  }
  return x + '</sum1:DetalleDesglose>';
}

export function buildRegistroAlta(input: BuildRegistroAltaInput): RegistroAltaConstruido {
  const { factura: f, anterior } = input;
  const cab = f.cabecera;
  const nif = f.emisor.nif;
  const numSerie = numSerieFactura(cab.serie, cab.numero);
  const cuotaTotal = importeCanonico(f.totales.cuotaTotal);
  const importeTotal = importeCanonico(f.totales.importeTotal);
  const fechaHora = fechaHoraHusoGenRegistro(input.generadoEn, input.zona);
  const huella = huellaDeCadena(cadenaHuellaAltaDe(nif, numSerie, cab.fechaExpedicion, cab.tipoFactura, cuotaTotal, importeTotal, anterior?.huella, fechaHora));
  const esp = f.especial;

  let x =
    ABRE_ALTA + nif +
    '</sum1:IDEmisorFactura><sum1:NumSerieFactura>' + escapeXml(numSerie) +
    '</sum1:NumSerieFactura><sum1:FechaExpedicionFactura>' + cab.fechaExpedicion +
    '</sum1:FechaExpedicionFactura></sum1:IDFactura>';
  if (f.aux !== undefined) x += el('RefExterna', f.aux.refExterna.trim());
  x += '<sum1:NombreRazonEmisor>' + nombreRazonEmisor(input.emisorNombre ?? f.emisor.nombre) + '</sum1:NombreRazonEmisor>';
  if (input.subsanacion !== undefined) {
    x += '<sum1:Subsanacion>S</sum1:Subsanacion>';
    if (input.subsanacion.rechazoPrevio !== undefined) x += tok('RechazoPrevio', input.subsanacion.rechazoPrevio);
  }
  x += tipoFacturaXml(cab.tipoFactura);
  if (f.rectificativa !== undefined) x += tok('TipoRectificativa', f.rectificativa.tipo);
  if (f.facturasRectificadas !== undefined) {
    x += '<sum1:FacturasRectificadas>' + facturasReferidas('IDFacturaRectificada', nif, f.facturasRectificadas) + '</sum1:FacturasRectificadas>';
  }
  if (f.facturasSustituidas !== undefined) {
    x += '<sum1:FacturasSustituidas>' + facturasReferidas('IDFacturaSustituida', nif, f.facturasSustituidas) + '</sum1:FacturasSustituidas>';
  }
  const imp = f.rectificativa?.importes;
  if (imp !== undefined) {
    x += '<sum1:ImporteRectificacion>' + tok('BaseRectificada', importeCanonico(imp.baseRectificada)) + tok('CuotaRectificada', importeCanonico(imp.cuotaRectificada));
    if (imp.cuotaRecargoRectificada !== undefined) x += tok('CuotaRecargoRectificado', importeCanonico(imp.cuotaRecargoRectificada));
    x += '</sum1:ImporteRectificacion>';
  }
  if (cab.fechaOperacion !== undefined) x += tok('FechaOperacion', cab.fechaOperacion);
  x += '<sum1:DescripcionOperacion>' + escapeXml(cab.descripcion.trim()) + '</sum1:DescripcionOperacion>';
  if (esp !== undefined) {
    if (esp.facturaSimplificadaArt7273 === true) x += '<sum1:FacturaSimplificadaArt7273>S</sum1:FacturaSimplificadaArt7273>';
    if (esp.facturaSinIdentifDestinatarioArt61d === true) x += '<sum1:FacturaSinIdentifDestinatarioArt61d>S</sum1:FacturaSinIdentifDestinatarioArt61d>';
  }
  if (esMacrodato(importeTotal)) x += '<sum1:Macrodato>S</sum1:Macrodato>';
  if (esp !== undefined) {
    if (esp.emitidaPor !== undefined) x += tok('EmitidaPorTerceroODestinatario', esp.emitidaPor);
    if (esp.tercero !== undefined) x += '<sum1:Tercero>' + persona(esp.tercero) + '</sum1:Tercero>';
  }
  if (f.destinatario !== undefined) {
    x += '<sum1:Destinatarios><sum1:IDDestinatario>' + persona(f.destinatario) + '</sum1:IDDestinatario></sum1:Destinatarios>';
  }
  if (esp?.cupon === true) x += '<sum1:Cupon>S</sum1:Cupon>';

  x += '<sum1:Desglose>';
  for (const d of f.detalleDesglose) x += detalleDesglose(d);
  x +=
    '</sum1:Desglose><sum1:CuotaTotal>' + cuotaTotal +
    '</sum1:CuotaTotal><sum1:ImporteTotal>' + importeTotal +
    '</sum1:ImporteTotal>' +
    encadenamiento(anterior) +
    sistemaYAbreFechaHora(input.sistema) + fechaHora;
  if (esp?.numRegistroAcuerdoFacturacion === undefined && esp?.idAcuerdoSistemaInformatico === undefined) {
    x += CIERRA_FECHA_HORA_ABRE_HUELLA;
  } else {
    x += '</sum1:FechaHoraHusoGenRegistro>';
    if (esp.numRegistroAcuerdoFacturacion !== undefined) x += el('NumRegistroAcuerdoFacturacion', esp.numRegistroAcuerdoFacturacion.trim());
    if (esp.idAcuerdoSistemaInformatico !== undefined) x += el('IdAcuerdoSistemaInformatico', esp.idAcuerdoSistemaInformatico.trim());
    x += '<sum1:TipoHuella>01</sum1:TipoHuella><sum1:Huella>';
  }
  x += huella + '</sum1:Huella></sum1:RegistroAlta>';

  return {
    huella,
    fechaHoraHusoGenRegistro: fechaHora,
    numSerieFactura: numSerie,
    cuotaTotal,
    importeTotal,
    incidencia: input.incidencia === true,
    xml: x,
  };
}

// ---------------------------------------------------------------- RegistroAnulacion

export function buildRegistroAnulacion(input: BuildRegistroAnulacionInput): RegistroAnulacionConstruido {
  const fa = input.facturaAnulada;
  const numSerie = numSerieFactura(fa.serie, fa.numero);
  const fechaHora = fechaHoraHusoGenRegistro(input.generadoEn, input.zona);
  const huella = huellaAnulacion({
    IDEmisorFacturaAnulada: fa.nifEmisor,
    NumSerieFacturaAnulada: numSerie,
    FechaExpedicionFacturaAnulada: fa.fechaExpedicion,
    Huella: input.anterior?.huella,
    FechaHoraHusoGenRegistro: fechaHora,
  });

  let x =
    '<sum1:RegistroAnulacion xmlns:sum1="' + NS_SUMINISTRO_INFORMACION + '">' +
    '<sum1:IDVersion>1.0</sum1:IDVersion><sum1:IDFactura>' +
    tok('IDEmisorFacturaAnulada', fa.nifEmisor) +
    el('NumSerieFacturaAnulada', numSerie) +
    tok('FechaExpedicionFacturaAnulada', fa.fechaExpedicion) +
    '</sum1:IDFactura>';
  if (input.refExterna !== undefined) x += el('RefExterna', input.refExterna.trim());
  if (input.sinRegistroPrevio === true) x += '<sum1:SinRegistroPrevio>S</sum1:SinRegistroPrevio>';
  if (input.rechazoPrevio !== undefined) x += tok('RechazoPrevio', input.rechazoPrevio);
  x +=
    encadenamiento(input.anterior) +
    sistemaYAbreFechaHora(input.sistema) + fechaHora +
    CIERRA_FECHA_HORA_ABRE_HUELLA + huella +
    '</sum1:Huella></sum1:RegistroAnulacion>';

  return { huella, fechaHoraHusoGenRegistro: fechaHora, numSerieFactura: numSerie, xml: x };
}
