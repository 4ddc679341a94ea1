// Canonical rendering of amounts and rates, used for BOTH the XML and the hash: the hash is
// computed over the exact text in the XML ("163.00" and "163" hash differently), so every amount
// is rendered once, here. Choice: always two decimals, no leading zeros, no "+", no "-0.00"
// ('21' → '21.00', '-5.5' → '-5.50', '007.5' → '7.50'), as AEAT's own examples write them.
import type { Decimal } from 'decimal.js';

const IMPORTE = /^(-?)(\d{1,12})(?:\.(\d{1,2}))?$/;
const TIPO = /^(\d{1,3})(?:\.(\d{1,2}))?$/;
/** A rate already written canonically ('21.00'), or as a plain integer ('21'): no captures needed. */
const TIPO_CANONICO = /^(?:0|[1-9]\d{0,2})\.\d\d$/;
const TIPO_ENTERO = /^(?:0|[1-9]\d{0,2})$/;

function render(negative: boolean, int: string, frac: string | undefined): string {
  let i = 0;
  while (i < int.length - 1 && int.charCodeAt(i) === 48) i++; // strip leading zeros
  const intPart = i === 0 ? int : int.slice(i);
  const fracPart = frac === undefined ? '00' : frac.length === 1 ? frac + '0' : frac;
  const isZero = intPart === '0' && fracPart === '00';
  return (negative && !isZero ? '-' : '') + intPart + '.' + fracPart;
}

/** `value` is already canonical: -?(0|[1-9]\d{0,11})\.\d\d and not a signed zero. */
function esCanonico(value: string): boolean {
  const n = value.length;
  const start = value.charCodeAt(0) === 45 ? 1 : 0; // '-'
  const punto = n - 3;
  const digitosEnteros = punto - start;
  if (digitosEnteros < 1 || digitosEnteros > 12 || value.charCodeAt(punto) !== 46) return false;
  if (digitosEnteros > 1 && value.charCodeAt(start) === 48) return false; // leading zero
  let cero = true;
  for (let i = start; i < n; i++) {
    if (i === punto) continue;
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
    if (c !== 48) cero = false;
  }
  return start === 0 || !cero; // "-0.00" is written "0.00"
}

/**
 * Canonical amount (ImporteSgn12.2): a validated decimal string or a Decimal with at most two
 * decimals. Never rounds: an amount with more decimals is a bug upstream, so it throws.
 */
export function importeCanonico(value: string | Decimal): string {
  if (typeof value === 'string') {
    // Tills mostly send amounts already written canonically ("12.10"): no regex, no new string.
    if (esCanonico(value)) return value;
    // String path: exact and allocation-light, no Decimal needed for already-valid input.
    const m = IMPORTE.exec(value);
    if (m === null) throw new RangeError(`not an amount with at most 12 integer digits and 2 decimals: "${value}"`);
    return render(m[1] === '-', m[2] ?? '0', m[3]);
  }
  if (!value.isFinite() || value.decimalPlaces() > 2) throw new RangeError(`amount needs rounding: ${value.toString()}`);
  return importeCanonico(value.toFixed(2));
}

/** Canonical rate (Tipo2.2: TipoImpositivo, TipoRecargoEquivalencia): '21' → '21.00', '5.2' → '5.20'. */
export function tipoCanonico(value: string): string {
  // Tills send '21' or '21.00': answered without a match array and its substrings.
  if (TIPO_CANONICO.test(value)) return value;
  if (TIPO_ENTERO.test(value)) return value + '.00';
  const m = TIPO.exec(value);
  if (m === null) throw new RangeError(`not a rate with at most 3 integer digits and 2 decimals: "${value}"`);
  return render(false, m[1] ?? '0', m[2]);
}
