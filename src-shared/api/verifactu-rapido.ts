// Precompiled check of the common VeriFactu crear body (a ticket or an invoice to a recipient
// identified by NIF: no `especial`, no rectificativa, no invoices referred to), the issuing hot
// path. It never decides a rejection: it either returns exactly what `verifactuCrearBody.parse`
// would (same values, same key order) or `undefined`, and the caller then runs the zod schema,
// which gives the 4xx and its `campo`. So it may only accept what the schema accepts: every
// field check below is the schema's own predicate (primitives.ts, common.ts), or its char-scan
// twin proven equal to it (verifactu-rapido-escaneos.ts), and the key lists
// are checked against the schema's shapes when this module loads. Tested against zod by
// test/engine/verifactu/crear-rapido-diferencial.test.ts.
import { esNifTercero } from './common';
import { verifactuCrearBody, type VerifactuCrearBody } from './verifactu';
import { ID_MAQUINA } from '../primitives';
import {
  esAsciiImprimibleEscaneo,
  esFechaEscaneo,
  esImporteEscaneo,
  esNifBasicoEscaneo,
  esPorcentajeEscaneo,
  esTextoPlanoEscaneo,
} from './verifactu-rapido-escaneos';

type Objeto = Record<string, unknown>;
type Claves = Readonly<Record<string, 'obligatoria' | 'opcional'>>;

const shape = verifactuCrearBody.shape;
const lineaShape = shape.detalleDesglose.element.shape;

// Keys of each object this path builds, in the schema's order (zod writes its output in that order).
const FACTURA: Claves = { version: 'obligatoria', emisor: 'obligatoria', cabecera: 'obligatoria', destinatario: 'opcional', detalleDesglose: 'obligatoria', totales: 'obligatoria', aux: 'opcional', idMaquina: 'opcional' };
/** Keys of the schema this path leaves to zod: a body carrying one is not "common". */
const FACTURA_A_ZOD = ['especial', 'rectificativa', 'facturasRectificadas', 'facturasSustituidas'];
const EMISOR: Claves = { nif: 'obligatoria', nombre: 'obligatoria' };
const CABECERA: Claves = { serie: 'opcional', numero: 'obligatoria', fechaExpedicion: 'obligatoria', tipoFactura: 'obligatoria', descripcion: 'obligatoria', fechaOperacion: 'opcional' };
/** destinatario by NIF only; `idOtro` is left to zod. */
const PERSONA: Claves = { nif: 'opcional', nombre: 'obligatoria' };
const LINEA: Claves = {
  impuesto: 'opcional',
  claveRegimen: 'opcional',
  calificacionOperacion: 'opcional',
  operacionExenta: 'opcional',
  baseImponible: 'obligatoria',
  tipoImpositivo: 'opcional',
  cuotaRepercutida: 'opcional',
  tipoRecargoEquivalencia: 'opcional',
  cuotaRecargoEquivalencia: 'opcional',
};
const TOTALES: Claves = { cuotaTotal: 'obligatoria', importeTotal: 'obligatoria' };
const AUX: Claves = { refExterna: 'obligatoria' };

/** Fails at load when the schema gained, lost or changed the optionality of a key this path mirrors. */
function comprobarEspejo(nombre: string, schemaShape: Record<string, { safeParse(v: unknown): { success: boolean } }>, claves: Claves, aZod: readonly string[] = []): void {
  const esperadas = Object.keys(schemaShape).sort().join();
  const propias = [...Object.keys(claves), ...aZod].sort().join();
  if (esperadas !== propias) throw new Error(`verifactu-rapido: the ${nombre} keys (${propias}) no longer mirror the schema (${esperadas})`);
  for (const [k, modo] of Object.entries(claves)) {
    const opcional = schemaShape[k]?.safeParse(undefined).success === true;
    if (opcional !== (modo === 'opcional')) throw new Error(`verifactu-rapido: ${nombre}.${k} optionality differs from the schema`);
  }
}
comprobarEspejo('factura', shape, FACTURA, FACTURA_A_ZOD);
comprobarEspejo('emisor', shape.emisor.shape, EMISOR);
comprobarEspejo('cabecera', shape.cabecera.shape, CABECERA);
comprobarEspejo('destinatario', shape.destinatario.unwrap().shape, PERSONA, ['idOtro']);
comprobarEspejo('detalleDesglose[]', lineaShape, LINEA);
comprobarEspejo('totales', shape.totales.shape, TOTALES);
comprobarEspejo('aux', shape.aux.unwrap().shape, AUX);

/**
 * The key check of each object as a switch: a for-in over a parsed object with a `switch` on the
 * key costs a sixth of a keyed lookup in a record plus Object.hasOwn (≈ 25 against ≈ 150 ns per
 * object, six objects per body). 1: required key, 0: optional, -1: not this object's.
 */
type Clase = (k: string) => 1 | 0 | -1;

const claseFactura: Clase = (k) => {
  switch (k) {
    case 'version': case 'emisor': case 'cabecera': case 'detalleDesglose': case 'totales': return 1;
    case 'destinatario': case 'aux': case 'idMaquina': return 0;
    default: return -1;
  }
};
const claseEmisor: Clase = (k) => (k === 'nif' || k === 'nombre' ? 1 : -1);
const claseCabecera: Clase = (k) => {
  switch (k) {
    case 'numero': case 'fechaExpedicion': case 'tipoFactura': case 'descripcion': return 1;
    case 'serie': case 'fechaOperacion': return 0;
    default: return -1;
  }
};
const clasePersona: Clase = (k) => (k === 'nombre' ? 1 : k === 'nif' ? 0 : -1);
const claseLinea: Clase = (k) => {
  switch (k) {
    case 'baseImponible': return 1;
    case 'impuesto': case 'claveRegimen': case 'calificacionOperacion': case 'operacionExenta': case 'tipoImpositivo':
    case 'cuotaRepercutida': case 'tipoRecargoEquivalencia': case 'cuotaRecargoEquivalencia': return 0;
    default: return -1;
  }
};
const claseTotales: Clase = (k) => (k === 'cuotaTotal' || k === 'importeTotal' ? 1 : -1);
const claseAux: Clase = (k) => (k === 'refExterna' ? 1 : -1);

/**
 * Fails at load when a switch disagrees with its (schema-mirrored) key list: every listed key with
 * its optionality, and every other key of this module or of Object.prototype refused.
 */
const CLASES: ReadonlyArray<[string, Clase, Claves]> = [
  ['factura', claseFactura, FACTURA], ['emisor', claseEmisor, EMISOR], ['cabecera', claseCabecera, CABECERA], ['destinatario', clasePersona, PERSONA],
  ['detalleDesglose[]', claseLinea, LINEA], ['totales', claseTotales, TOTALES], ['aux', claseAux, AUX],
];
const TODAS_LAS_CLAVES = [
  ...new Set([...CLASES.flatMap(([, , c]) => Object.keys(c)), ...FACTURA_A_ZOD, 'idOtro', '__proto__', ...Object.getOwnPropertyNames(Object.prototype)]),
];
for (const [nombre, clase, claves] of CLASES) {
  for (const k of TODAS_LAS_CLAVES) {
    const esperada = !Object.hasOwn(claves, k) ? -1 : claves[k] === 'obligatoria' ? 1 : 0;
    if (clase(k) !== esperada) throw new Error(`verifactu-rapido: the ${nombre} key check disagrees with its key list on "${k}"`);
  }
}

// Enumerations read from the schema itself.
const TIPOS_FACTURA: ReadonlySet<unknown> = new Set(shape.cabecera.shape.tipoFactura.options);
const IMPUESTOS: ReadonlySet<unknown> = new Set(lineaShape.impuesto.unwrap().options);
const CLAVES_REGIMEN: ReadonlySet<unknown> = new Set(lineaShape.claveRegimen.unwrap().options);
const CALIFICACIONES: ReadonlySet<unknown> = new Set(lineaShape.calificacionOperacion.unwrap().options);
const EXENCIONES: ReadonlySet<unknown> = new Set(lineaShape.operacionExenta.unwrap().options);
const MAX_LINEAS = 12;

function esObjeto(v: unknown): v is Objeto {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every key belongs to the object (strict objects) and every required key is there. */
function soloClaves(o: Objeto, clase: Clase, obligatorias: number): boolean {
  let vistas = 0;
  for (const k in o) {
    const c = clase(k);
    if (c < 0) return false;
    vistas += c;
  }
  return vistas === obligatorias;
}

function esTexto(v: unknown, max: number): v is string {
  return typeof v === 'string' && esTextoPlanoEscaneo(v, max);
}

function esImporte(v: unknown): v is string {
  return typeof v === 'string' && esImporteEscaneo(v);
}

function esPorcentaje(v: unknown): v is string {
  return typeof v === 'string' && esPorcentajeEscaneo(v);
}

function esFecha(v: unknown): v is string {
  return typeof v === 'string' && esFechaEscaneo(v);
}

type Cabecera = VerifactuCrearBody['cabecera'];
type Linea = VerifactuCrearBody['detalleDesglose'][number];
type Persona = NonNullable<VerifactuCrearBody['destinatario']>;

function cabecera(c: unknown): Cabecera | undefined {
  if (!esObjeto(c) || !soloClaves(c, claseCabecera, 4)) return undefined;
  const { serie, numero, fechaExpedicion, tipoFactura, descripcion, fechaOperacion } = c;
  const conSerie = 'serie' in c;
  if (conSerie && !(typeof serie === 'string' && esAsciiImprimibleEscaneo(serie))) return undefined;
  if (typeof numero !== 'string' || !esAsciiImprimibleEscaneo(numero)) return undefined;
  // NumSerieFactura (serie + numero) at most 60 characters.
  if ((conSerie ? (serie as string).length : 0) + numero.length > 60) return undefined;
  if (!esFecha(fechaExpedicion) || !TIPOS_FACTURA.has(tipoFactura) || !esTexto(descripcion, 500)) return undefined;
  const out: Cabecera = conSerie
    ? { serie: serie as string, numero, fechaExpedicion, tipoFactura: tipoFactura as Cabecera['tipoFactura'], descripcion }
    : { numero, fechaExpedicion, tipoFactura: tipoFactura as Cabecera['tipoFactura'], descripcion };
  if ('fechaOperacion' in c) {
    if (!esFecha(fechaOperacion)) return undefined;
    out.fechaOperacion = fechaOperacion;
  }
  return out;
}

function destinatario(p: unknown): Persona | undefined {
  if (!esObjeto(p) || !soloClaves(p, clasePersona, 1)) return undefined;
  const { nif, nombre } = p;
  // Without idOtro the schema requires the NIF.
  if (typeof nif !== 'string' || !esNifTercero(nif) || !esTexto(nombre, 120)) return undefined;
  return { nif, nombre };
}

function linea(l: unknown): Linea | undefined {
  if (!esObjeto(l) || !soloClaves(l, claseLinea, 1)) return undefined;
  // Each optional key: absent, or present with a valid value (never present and undefined).
  const conImpuesto = 'impuesto' in l;
  if (conImpuesto && !IMPUESTOS.has(l.impuesto)) return undefined;
  const conClave = 'claveRegimen' in l;
  if (conClave && !CLAVES_REGIMEN.has(l.claveRegimen)) return undefined;
  const conCalificacion = 'calificacionOperacion' in l;
  const conExencion = 'operacionExenta' in l;
  // AEAT 1195/1196: exactly one of the two.
  if (conCalificacion === conExencion) return undefined;
  if (conCalificacion ? !CALIFICACIONES.has(l.calificacionOperacion) : !EXENCIONES.has(l.operacionExenta)) return undefined;
  if (!esImporte(l.baseImponible)) return undefined;
  const conTipo = 'tipoImpositivo' in l;
  if (conTipo && !esPorcentaje(l.tipoImpositivo)) return undefined;
  const conCuota = 'cuotaRepercutida' in l;
  if (conCuota && !esImporte(l.cuotaRepercutida)) return undefined;
  const conTipoRecargo = 'tipoRecargoEquivalencia' in l;
  if (conTipoRecargo && !esPorcentaje(l.tipoRecargoEquivalencia)) return undefined;
  const conCuotaRecargo = 'cuotaRecargoEquivalencia' in l;
  if (conCuotaRecargo && !esImporte(l.cuotaRecargoEquivalencia)) return undefined;

  // The everyday line as one literal: every such line gets the same object shape, and the rules
  // and the XML that read it next stay monomorphic.
  if (conImpuesto && conClave && conCalificacion && conTipo && conCuota && !conTipoRecargo && !conCuotaRecargo) {
    return {
      impuesto: l.impuesto,
      claveRegimen: l.claveRegimen,
      calificacionOperacion: l.calificacionOperacion,
      baseImponible: l.baseImponible,
      tipoImpositivo: l.tipoImpositivo,
      cuotaRepercutida: l.cuotaRepercutida,
    } as Linea;
  }
  // Any other line: its keys one by one, in the schema's order.
  const out: Partial<Linea> = {};
  if (conImpuesto) out.impuesto = l.impuesto as Linea['impuesto'];
  if (conClave) out.claveRegimen = l.claveRegimen as Linea['claveRegimen'];
  if (conCalificacion) out.calificacionOperacion = l.calificacionOperacion as Linea['calificacionOperacion'];
  else out.operacionExenta = l.operacionExenta as Linea['operacionExenta'];
  out.baseImponible = l.baseImponible;
  if (conTipo) out.tipoImpositivo = l.tipoImpositivo as string;
  if (conCuota) out.cuotaRepercutida = l.cuotaRepercutida as string;
  if (conTipoRecargo) out.tipoRecargoEquivalencia = l.tipoRecargoEquivalencia as string;
  if (conCuotaRecargo) out.cuotaRecargoEquivalencia = l.cuotaRecargoEquivalencia as string;
  return out as Linea;
}

/**
 * The parsed crear body when `input` is a common one the schema accepts, else `undefined`
 * (then parse with `verifactuCrearBody`: it may still be valid, or it gets the 400 it deserves).
 */
export function crearBodyRapido(input: unknown): VerifactuCrearBody | undefined {
  if (!esObjeto(input) || !soloClaves(input, claseFactura, 5)) return undefined;
  if (input.version !== '1.0') return undefined;

  const e = input.emisor;
  if (!esObjeto(e) || !soloClaves(e, claseEmisor, 2)) return undefined;
  const { nif, nombre } = e;
  if (typeof nif !== 'string' || !esNifBasicoEscaneo(nif) || !esTexto(nombre, 120)) return undefined;

  const cab = cabecera(input.cabecera);
  if (cab === undefined) return undefined;

  const conDestinatario = 'destinatario' in input;
  const dest = conDestinatario ? destinatario(input.destinatario) : undefined;
  if (conDestinatario && dest === undefined) return undefined;

  const detalle = input.detalleDesglose;
  if (!Array.isArray(detalle) || detalle.length < 1 || detalle.length > MAX_LINEAS) return undefined;
  const lineas: Linea[] = [];
  for (const l of detalle as unknown[]) {
    const parsed = linea(l);
    if (parsed === undefined) return undefined;
    lineas.push(parsed);
  }

  const t = input.totales;
  if (!esObjeto(t) || !soloClaves(t, claseTotales, 2) || !esImporte(t.cuotaTotal) || !esImporte(t.importeTotal)) return undefined;

  // A literal per shape (ticket, invoice to a recipient), keys in the schema's order.
  const emisor = { nif, nombre };
  const totales = { cuotaTotal: t.cuotaTotal, importeTotal: t.importeTotal };
  const out: VerifactuCrearBody =
    dest === undefined
      ? { version: '1.0', emisor, cabecera: cab, detalleDesglose: lineas, totales }
      : { version: '1.0', emisor, cabecera: cab, destinatario: dest, detalleDesglose: lineas, totales };
  if ('aux' in input) {
    const a = input.aux;
    if (!esObjeto(a) || !soloClaves(a, claseAux, 1) || !esTexto(a.refExterna, 60)) return undefined;
    out.aux = { refExterna: a.refExterna };
  }
  if ('idMaquina' in input) {
    if (typeof input.idMaquina !== 'string' || !ID_MAQUINA.test(input.idMaquina)) return undefined;
    out.idMaquina = input.idMaquina;
  }
  return out;
}
