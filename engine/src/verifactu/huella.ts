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
  return (
    'IDEmisorFactura=' + v(c.IDEmisorFactura) +
    '&NumSerieFactura=' + v(c.NumSerieFactura) +
    '&FechaExpedicionFactura=' + v(c.FechaExpedicionFactura) +
    '&TipoFactura=' + v(c.TipoFactura) +
    '&CuotaTotal=' + v(c.CuotaTotal) +
    '&ImporteTotal=' + v(c.ImporteTotal) +
    '&Huella=' + v(c.Huella) +
    '&FechaHoraHusoGenRegistro=' + v(c.FechaHoraHusoGenRegistro)
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

// One-shot crypto.hash (Node ≥ 20.12) is twice as fast as createHash on these short strings.
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex').toUpperCase()
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();

export function huellaAlta(campos: CamposHuellaAlta): string {
  return sha256Hex(cadenaHuellaAlta(campos));
}

export function huellaAnulacion(campos: CamposHuellaAnulacion): string {
  return sha256Hex(cadenaHuellaAnulacion(campos));
}
