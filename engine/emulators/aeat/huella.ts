import { hash } from 'node:crypto';

// The emulator's own huella computation (it must not trust engine/src).
// Spec: Veri-Factu_especificaciones_huella_hash_registros, sections 3 and 5.

export interface AltaHashFields {
  emisor: string;
  numSerie: string;
  fecha: string;
  tipoFactura: string;
  cuotaTotal: string;
  importeTotal: string;
  prevHuella: string;
  fechaHoraHusoGenRegistro: string;
}

export interface AnulacionHashFields {
  emisor: string;
  numSerie: string;
  fecha: string;
  prevHuella: string;
  fechaHoraHusoGenRegistro: string;
}

/** One-shot hashing: a Hash object per record cost twice the digest of its ~200 bytes. */
function sha256Upper(s: string): string {
  return hash('sha256', s, 'hex').toUpperCase();
}

export function huellaAlta(f: AltaHashFields): string {
  return sha256Upper(
    `IDEmisorFactura=${f.emisor.trim()}&NumSerieFactura=${f.numSerie.trim()}` +
      `&FechaExpedicionFactura=${f.fecha.trim()}&TipoFactura=${f.tipoFactura.trim()}` +
      `&CuotaTotal=${f.cuotaTotal.trim()}&ImporteTotal=${f.importeTotal.trim()}` +
      `&Huella=${f.prevHuella.trim()}&FechaHoraHusoGenRegistro=${f.fechaHoraHusoGenRegistro.trim()}`,
  );
}

export function huellaAnulacion(f: AnulacionHashFields): string {
  return sha256Upper(
    `IDEmisorFacturaAnulada=${f.emisor.trim()}&NumSerieFacturaAnulada=${f.numSerie.trim()}` +
      `&FechaExpedicionFacturaAnulada=${f.fecha.trim()}&Huella=${f.prevHuella.trim()}` +
      `&FechaHoraHusoGenRegistro=${f.fechaHoraHusoGenRegistro.trim()}`,
  );
}

/**
 * Renderings of an amount AEAT treats as equivalent for the hash ("se tratarán
 * indistintamente los valores con una o dos posiciones en los decimales, sin
 * tener relevancia los ceros a la derecha"): 123.1 / 123.10, 163 / 163.0 / 163.00.
 */
export function amountVariants(raw: string): string[] {
  const s = raw.trim();
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) return [s];
  const sign = m[1] ?? '';
  const int = m[2] ?? '';
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const out = new Set<string>([s, frac ? `${sign}${int}.${frac}` : `${sign}${int}`]);
  if (frac.length <= 1) out.add(`${sign}${int}.${frac.padEnd(1, '0')}`);
  if (frac.length <= 2) out.add(`${sign}${int}.${frac.padEnd(2, '0')}`);
  return [...out];
}

/** 'exact': hash of the literal XML text; 'amount-variant': only with an equivalent amount rendering. */
export type HuellaCheck = 'exact' | 'amount-variant' | 'mismatch';

export function checkHuellaAlta(f: AltaHashFields, presented: string): HuellaCheck {
  if (huellaAlta(f) === presented) return 'exact';
  for (const cuota of amountVariants(f.cuotaTotal)) {
    for (const importe of amountVariants(f.importeTotal)) {
      if (huellaAlta({ ...f, cuotaTotal: cuota, importeTotal: importe }) === presented) return 'amount-variant';
    }
  }
  return 'mismatch';
}

export function checkHuellaAnulacion(f: AnulacionHashFields, presented: string): HuellaCheck {
  return huellaAnulacion(f) === presented ? 'exact' : 'mismatch';
}
