// Bizkaia (Batuz) LROE requests carrying signed TicketBAI files: model 240 (legal persons,
// chapter 1.1 "facturas emitidas con software garante") and model 140 (natural persons with an
// economic activity, chapter 1.1 "ingresos con facturas emitidas con software garante"), Alta
// (A00) and Anulación (AN0), per the schemas in xsd/lroe-bizkaia. The request is the XML gzipped,
// with a JSON header `eus-bizkaia-n3-data` describing it.
import { gzipSync } from 'node:zlib';
import { escapeTexto } from '../record/xml';

export type ModeloLroe = '240' | '140';

const NS_ESQUEMAS = 'https://www.batuz.eus/fitxategiak/batuz/LROE/esquemas/';

const RAICES = {
  alta: {
    '240': { nombre: 'LROEPJ240FacturasEmitidasConSGAltaPeticion', ns: NS_ESQUEMAS + 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd' },
    '140': { nombre: 'LROEPF140IngresosConFacturaConSGAltaPeticion', ns: NS_ESQUEMAS + 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd' },
  },
  anulacion: {
    '240': { nombre: 'LROEPJ240FacturasEmitidasConSGAnulacionPeticion', ns: NS_ESQUEMAS + 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd' },
    '140': { nombre: 'LROEPF140IngresosConFacturaConSGAnulacionPeticion', ns: NS_ESQUEMAS + 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd' },
  },
} as const;

/** Apartado of the LROE: 1.1, issued invoices / income with invoices from a "software garante". */
const APARTADO = '1.1';
const MAX_POR_PETICION = 1000;

/** The `eus-bizkaia-n3-data` header, as a JSON object. */
export interface CabeceraN3 {
  con: 'LROE';
  apa: string;
  inte: { nif: string; nrs: string };
  drs: { mode: ModeloLroe; ejer: string };
}

export interface PeticionLroe {
  headerJson: CabeceraN3;
  bodyXml: string;
  /** bodyXml in UTF-8, gzipped: the request body (Content-Encoding: gzip). */
  gzipped: Buffer;
}

interface PeticionLroeBase {
  modelo: ModeloLroe;
  /** Ejercicio (year) of the invoices: one request per year. */
  ejercicio: number;
  /** ObligadoTributario: the issuer. */
  obligado: { nif: string; nombre: string };
}

export interface BuildLroeAltaInput extends PeticionLroeBase {
  /** Signed T:TicketBai files; model 140 also needs the activity heading (IAE epígrafe) of each. */
  facturas: readonly { signedXml: string; epigrafe?: string | undefined }[];
}

export interface BuildLroeAnulacionInput extends PeticionLroeBase {
  /** Signed T:AnulaTicketBai files. */
  anulaciones: readonly { signedXml: string }[];
}

function comprobar(input: PeticionLroeBase, n: number): void {
  if (!Number.isInteger(input.ejercicio) || input.ejercicio < 1000 || input.ejercicio > 9999) throw new RangeError(`ejercicio must be a 4-digit year: ${input.ejercicio}`);
  if (!/^[A-Za-z0-9]{9}$/.test(input.obligado.nif)) throw new RangeError(`obligado.nif must be a 9-character NIF: "${input.obligado.nif}"`);
  if (n < 1 || n > MAX_POR_PETICION) throw new RangeError(`an LROE request carries 1 to ${MAX_POR_PETICION} files, not ${n}`);
}

function cabeceraXml(input: PeticionLroeBase, operacion: 'A00' | 'AN0'): string {
  return (
    '<Cabecera><Modelo>' + input.modelo + '</Modelo><Capitulo>1</Capitulo><Subcapitulo>' + APARTADO + '</Subcapitulo><Operacion>' + operacion +
    '</Operacion><Version>1.0</Version><Ejercicio>' + input.ejercicio + '</Ejercicio><ObligadoTributario><NIF>' + input.obligado.nif +
    '</NIF><ApellidosNombreRazonSocial>' + escapeTexto(input.obligado.nombre.trim()) + '</ApellidosNombreRazonSocial></ObligadoTributario></Cabecera>'
  );
}

function peticion(input: PeticionLroeBase, raiz: { nombre: string; ns: string }, contenido: string): PeticionLroe {
  const bodyXml =
    '<?xml version="1.0" encoding="UTF-8"?><lroe:' + raiz.nombre + ' xmlns:lroe="' + raiz.ns + '">' + contenido + '</lroe:' + raiz.nombre + '>';
  return {
    headerJson: {
      con: 'LROE',
      apa: APARTADO,
      inte: { nif: input.obligado.nif, nrs: input.obligado.nombre.trim() },
      drs: { mode: input.modelo, ejer: String(input.ejercicio) },
    },
    bodyXml,
    gzipped: gzipSync(Buffer.from(bodyXml, 'utf8')),
  };
}

/** The signed file as base64Binary, exactly the bytes that were signed. */
function base64(signedXml: string): string {
  return Buffer.from(signedXml, 'utf8').toString('base64');
}

export function buildLroeAlta(input: BuildLroeAltaInput): PeticionLroe {
  comprobar(input, input.facturas.length);
  let x = cabeceraXml(input, 'A00');
  if (input.modelo === '240') {
    x += '<FacturasEmitidas>';
    for (const f of input.facturas) x += '<FacturaEmitida><TicketBai>' + base64(f.signedXml) + '</TicketBai></FacturaEmitida>';
    x += '</FacturasEmitidas>';
  } else {
    x += '<Ingresos>';
    for (const f of input.facturas) {
      // Epigrafe: stringMax7Digits, the IAE heading the income belongs to.
      if (f.epigrafe === undefined || !/^\d{1,7}$/.test(f.epigrafe)) throw new RangeError(`model 140 needs an epigrafe of 1–7 digits per invoice: "${f.epigrafe ?? ''}"`);
      x += '<Ingreso><TicketBai>' + base64(f.signedXml) + '</TicketBai><Renta><DetalleRenta><Epigrafe>' + f.epigrafe + '</Epigrafe></DetalleRenta></Renta></Ingreso>';
    }
    x += '</Ingresos>';
  }
  return peticion(input, RAICES.alta[input.modelo], x);
}

export function buildLroeAnulacion(input: BuildLroeAnulacionInput): PeticionLroe {
  comprobar(input, input.anulaciones.length);
  const [lista, item] = input.modelo === '240' ? ['FacturasEmitidas', 'FacturaEmitida'] : ['Ingresos', 'Ingreso'];
  let x = cabeceraXml(input, 'AN0') + '<' + lista + '>';
  for (const a of input.anulaciones) x += '<' + item + '><AnulacionTicketBai>' + base64(a.signedXml) + '</AnulacionTicketBai></' + item + '>';
  x += '</' + lista + '>';
  return peticion(input, RAICES.anulacion[input.modelo], x);
}
