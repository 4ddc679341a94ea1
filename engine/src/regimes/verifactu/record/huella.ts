// Record hash (huella) per AEAT "Especificaciones técnicas para generación de la huella o hash":
// SHA-256 over `Name=value&…` (UTF-8), values trimmed, an absent value written as `Name=`,
// output as 64 upper-case hex characters. Values must be exactly the text written in the XML.
import * as crypto from 'node:crypto';

export interface CamposHuellaAlta {
  IDEmisorFactura: string;
  NumSerieFactura: string;
  FechaExpedicionFactura: string;
  TipoFactura: string;
  CuotaTotal: string;
  ImporteTotal: string;
  /** Huella of the previous record in the chain; null/absent on the first record. */
  Huella?: string | null | undefined;
  FechaHoraHusoGenRegistro: string;
}

export interface CamposHuellaAnulacion {
  IDEmisorFacturaAnulada: string;
  NumSerieFacturaAnulada: string;
  FechaExpedicionFacturaAnulada: string;
  /** Huella of the previous record in the chain; null/absent on the first record. */
  Huella?: string | null | undefined;
  FechaHoraHusoGenRegistro: string;
}

function v(value: string | null | undefined): string {
  return value == null ? '' : value.trim();
}

/** The exact string hashed for a RegistroAlta (exported for diagnostics and tests). */
export function cadenaHuellaAlta(c: CamposHuellaAlta): string {
  return cadenaHuellaAltaDe(
    c.IDEmisorFactura.trim(),
    c.NumSerieFactura.trim(),
    c.FechaExpedicionFactura.trim(),
    c.TipoFactura.trim(),
    c.CuotaTotal.trim(),
    c.ImporteTotal.trim(),
    v(c.Huella),
    c.FechaHoraHusoGenRegistro.trim(),
  );
}

/**
 * The RegistroAlta string from its fields in hash order, exactly as the record builder writes them
 * in the XML: one concatenation, no object (hot path; hashed with huellaDeCadena). Nothing is
 * trimmed here: every one of them is a token without spaces (a validated NIF, date and
 * enumeration, a canonical amount, a generated hash and timestamp) or NumSerieFactura, which the
 * builder trims itself; an absent previous huella is written `Huella=`.
 */
export function cadenaHuellaAltaDe(
  idEmisorFactura: string,
  numSerieFactura: string,
  fechaExpedicionFactura: string,
  tipoFactura: string,
  cuotaTotal: string,
  importeTotal: string,
  huellaAnterior: string | undefined,
  fechaHoraHusoGenRegistro: string,
): string {
  return (
    'IDEmisorFactura=' + idEmisorFactura +
    '&NumSerieFactura=' + numSerieFactura +
    '&FechaExpedicionFactura=' + fechaExpedicionFactura +
    '&TipoFactura=' + tipoFactura +
    '&CuotaTotal=' + cuotaTotal +
    '&ImporteTotal=' + importeTotal +
    '&Huella=' + (huellaAnterior ?? '') +
    '&FechaHoraHusoGenRegistro=' + fechaHoraHusoGenRegistro
  );
}

/** The exact string hashed for a RegistroAnulacion (exported for diagnostics and tests). */
export function cadenaHuellaAnulacion(c: CamposHuellaAnulacion): string {
  return (
    'IDEmisorFacturaAnulada=' + v(c.IDEmisorFacturaAnulada) +
    '&NumSerieFacturaAnulada=' + v(c.NumSerieFacturaAnulada) +
    '&FechaExpedicionFacturaAnulada=' + v(c.FechaExpedicionFacturaAnulada) +
    '&Huella=' + v(c.Huella) +
    '&FechaHoraHusoGenRegistro=' + v(c.FechaHoraHusoGenRegistro)
  );
}

/**
 * The huella of a string to hash: SHA-256, upper-case hex. One-shot crypto.hash (Node ≥ 20.12) is
 * twice as fast as createHash on these short strings.
 */
export const huellaDeCadena: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex').toUpperCase()
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();

export function huellaAlta(campos: CamposHuellaAlta): string {
  return huellaDeCadena(cadenaHuellaAlta(campos));
}

export function huellaAnulacion(campos: CamposHuellaAnulacion): string {
  return huellaDeCadena(cadenaHuellaAnulacion(campos));
}
