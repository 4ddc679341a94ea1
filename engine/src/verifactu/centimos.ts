// Exact integer-cent arithmetic for the AEAT rules (reglas.ts), instead of decimal.js on the hot
// path. Why it is exact: the schema (src-shared/primitives.ts `importe`) admits only
// -?\d{1,12}(\.\d{1,2})?, so an amount is an integer number of cents with |c| < 10^14, and a
// rate (`porcentaje`, \d{1,3}(\.\d{1,2})?) an integer number of hundredths ≤ 99 999. Sums of up
// to 12 lines × 3 amounts stay below 3.6 × 10^15 < 2^53: every sum is an exact safe integer.
// Products base × rate may not be (10^14 × 10^5); base × rate checks go through bigint beyond
// the bounds where the product is provably below 2^53 (see excesoCuota).
// test/engine/verifactu/reglas-diferencial.test.ts checks all of it against decimal.js.

/** Cents of a schema-validated amount string ('-5.5' → -550, '12' → 1200); never -0. */
export function centimos(importe: string): number {
  let i = 0;
  const negativo = importe.charCodeAt(0) === 45; // '-'
  if (negativo) i = 1;
  let entero = 0;
  const n = importe.length;
  for (; i < n; i++) {
    const c = importe.charCodeAt(i);
    if (c === 46) break; // '.'
    entero = entero * 10 + (c - 48);
  }
  let fraccion = 0;
  if (i < n) {
    fraccion = (importe.charCodeAt(i + 1) - 48) * 10;
    if (i + 2 < n) fraccion += importe.charCodeAt(i + 2) - 48;
  }
  const valor = entero * 100 + fraccion;
  return negativo && valor !== 0 ? -valor : valor;
}

/** Hundredths of a schema-validated rate string ('7.5' → 750, '21' → 2100). */
export function centesimas(tipo: string): number {
  return centimos(tipo);
}

function dosCifras(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** Cents as a decimal string with two decimals, as decimal.js's toFixed(2) writes an exact sum. */
export function textoCentimos(c: number): string {
  const abs = c < 0 ? -c : c;
  return (c < 0 ? '-' : '') + String(Math.floor(abs / 100)) + '.' + dosCifras(abs % 100);
}

/** Below these, cuota × 10 000 and base × rate are both < 4.5 × 10^15: exact, and so is their difference. */
const BASE_EXACTA = 45_000_000_000;
const CUOTA_EXACTA = 450_000_000_000;
/** 10,00 € in the units of excesoCuota: cents × 10 000. */
const TOLERANCIA = 10_000_000;

/**
 * AEAT 1142: does cuota differ from base × tipo / 100 by more than 10,00 €? Compares
 * cuota × 10 000 with base × tipo (cents × hundredths), both integers: no rounding anywhere.
 */
export function excesoCuota(cuota: number, base: number, tipo: number): boolean {
  if (base < BASE_EXACTA && base > -BASE_EXACTA && cuota < CUOTA_EXACTA && cuota > -CUOTA_EXACTA) {
    const diff = cuota * 10_000 - base * tipo;
    return diff > TOLERANCIA || diff < -TOLERANCIA;
  }
  const diff = BigInt(cuota) * 10_000n - BigInt(base) * BigInt(tipo);
  return diff > BigInt(TOLERANCIA) || diff < -BigInt(TOLERANCIA);
}

/**
 * base × tipo / 100 as text with two decimals, rounded half away from zero, as decimal.js's
 * toFixed(2) writes it (a negative product that rounds to zero keeps its sign: "-0.00").
 */
export function textoCuotaEsperada(base: number, tipo: number): string {
  // In units of 10^-6 €; bigint: the product can exceed 2^53 (error path only).
  const producto = BigInt(base) * BigInt(tipo);
  const negativo = producto < 0n;
  const abs = negativo ? -producto : producto;
  const cent = (abs + 5_000n) / 10_000n;
  return (negativo ? '-' : '') + String(cent / 100n) + '.' + dosCifras(Number(cent % 100n));
}
