// Exact integer-cent arithmetic for the AEAT rules (reglas.ts), instead of decimal.js on the hot
// path: amounts as bigint cents, never a JS number. The schema (src-shared/primitives.ts
// `importe`) admits only -?\d{1,12}(\.\d{1,2})?, so an amount is exactly its digits without the
// dot, scaled to two decimals; rates (`porcentaje`, \d{1,3}(\.\d{1,2})?) are integer hundredths
// ≤ 99 999 (a rate, not money: a small integer number). Sums, differences and base × tipo are
// then integer operations: nothing rounds. test/engine/verifactu/reglas-diferencial.test.ts checks
// the rules built on this against decimal.js.

/** Cents of a schema-validated amount string ('-5.5' → -550n, '12' → 1200n, '-0.00' → 0n). */
export function centimos(importe: string): bigint {
  const n = importe.length;
  // Amounts mostly come with two decimals: the dot three from the end, found without a search.
  const punto = n >= 4 && importe.charCodeAt(n - 3) === 46 ? n - 3 : importe.indexOf('.');
  if (punto < 0) return BigInt(importe) * 100n;
  const digitos = BigInt(importe.slice(0, punto) + importe.slice(punto + 1));
  return n - punto === 3 ? digitos : digitos * 10n;
}

/** Hundredths of a schema-validated rate string ('7.5' → 750, '21' → 2100). */
export function centesimas(tipo: string): number {
  const punto = tipo.indexOf('.');
  if (punto < 0) return Number(tipo) * 100;
  const decimales = tipo.length - punto - 1;
  const n = Number(tipo.slice(0, punto) + tipo.slice(punto + 1));
  return decimales === 2 ? n : n * 10;
}

function dosCifras(n: bigint): string {
  return n < 10n ? '0' + String(n) : String(n);
}

/** Cents as a decimal string with two decimals, as decimal.js's toFixed(2) writes an exact sum. */
export function textoCentimos(c: bigint): string {
  const abs = c < 0n ? -c : c;
  return (c < 0n ? '-' : '') + String(abs / 100n) + '.' + dosCifras(abs % 100n);
}

/** 10,00 € in the units of excesoCuota: cents × 10 000. */
const TOLERANCIA = 10_000_000n;

/**
 * AEAT 1142: does cuota differ from base × tipo / 100 by more than 10,00 €? Compares
 * cuota × 10 000 with base × tipo (cents × hundredths of a percent), both integers.
 */
export function excesoCuota(cuota: bigint, base: bigint, tipo: number): boolean {
  const diff = cuota * 10_000n - base * BigInt(tipo);
  return diff > TOLERANCIA || diff < -TOLERANCIA;
}

/**
 * base × tipo / 100 as text with two decimals, rounded half away from zero, as decimal.js's
 * toFixed(2) writes it (a negative product that rounds to zero keeps its sign: "-0.00").
 */
export function textoCuotaEsperada(base: bigint, tipo: number): string {
  const producto = base * BigInt(tipo); // in 10^-6 €
  const negativo = producto < 0n;
  const abs = negativo ? -producto : producto;
  const cent = (abs + 5_000n) / 10_000n;
  return (negativo ? '-' : '') + String(cent / 100n) + '.' + dosCifras(cent % 100n);
}
