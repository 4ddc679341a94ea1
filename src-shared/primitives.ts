// Reusable string schemas of the HTTP contract (amounts, dates, plain text, identifiers).
// zod only: this file is shared by the engine, the main process and the renderer.
import { z } from 'zod';

/** JSON type of a value, for error messages ("received number"). */
function describeInput(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  return typeof input;
}

function stringSchema(what: string) {
  return z.string({
    error: (issue) =>
      issue.input === undefined ? 'Required' : `${what}: expected a string, received ${describeInput(issue.input)}`,
  });
}

// ---------------------------------------------------------------- amounts

/** Explains why a string is not a decimal amount with at most `maxDecimals` decimals. */
function explainBadAmount(value: string, maxDecimals: number): string {
  if (value.trim() !== value || value === '') return 'amount must be a non-empty decimal string without spaces';
  if (/[eE]/.test(value)) return 'scientific notation is not allowed (write the digits, e.g. "1000.00")';
  if (value.includes(',')) return 'use a dot as decimal separator, never a comma (e.g. "21.00")';
  if (value.startsWith('+')) return 'a leading "+" is not allowed';
  const m = /^-?(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m) return 'amount must contain only digits, an optional leading "-" and one dot';
  const [, int = '', dec] = m;
  if (int === '') return 'amount needs at least one digit before the dot';
  if (int.length > 12) return 'amount allows at most 12 integer digits';
  if (dec !== undefined && dec.length === 0) return 'a dot must be followed by at least one decimal';
  return `amount allows at most ${maxDecimals} decimals`;
}

function amountPattern(maxDecimals: number): RegExp {
  return new RegExp(`^-?\\d{1,12}(?:\\.\\d{1,${maxDecimals}})?$`);
}

function decimalAmount(maxDecimals: number) {
  // Built-in regex check (faster than a custom one on the hot path); the message explains the fault.
  return stringSchema('amount (a decimal string such as "21.00", never a JSON number)').regex(amountPattern(maxDecimals), {
    error: (issue) => explainBadAmount(String(issue.input), maxDecimals),
  });
}

/** The pattern of `importe` (also for precompiled validators that must accept exactly what it accepts). */
export const IMPORTE = amountPattern(2);
/** The pattern of `porcentaje`. */
export const PORCENTAJE = /^\d{1,3}(?:\.\d{1,2})?$/;

/** Amount: optional '-', 1–12 integer digits, up to 2 decimals, dot separator ("21", "21.0", "-5.50"). */
export const importe = decimalAmount(2);
/** Same as `importe` with up to 8 decimals (TicketBAI 1.2.2 line quantities and unit prices). */
export const importe8 = decimalAmount(8);

/** Percentage rate as the XSD's Tipo2.2Type: 1–3 integer digits, up to 2 decimals, never negative. */
export const porcentaje = stringSchema('rate (a decimal string such as "21.00")').regex(PORCENTAJE, {
  error: 'rate must be a non-negative decimal string with at most 3 integer digits and 2 decimals (e.g. "21.00")',
});

export type Importe = z.infer<typeof importe>;
export type Importe8 = z.infer<typeof importe8>;
export type Porcentaje = z.infer<typeof porcentaje>;

// ---------------------------------------------------------------- dates

const DIAS_POR_MES = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** True when day-month-year is a real Gregorian calendar date. */
export function esFechaReal(dia: number, mes: number, anio: number): boolean {
  if (mes < 1 || mes > 12 || dia < 1 || anio < 1) return false;
  const bisiesto = (anio % 4 === 0 && anio % 100 !== 0) || anio % 400 === 0;
  const max = mes === 2 && bisiesto ? 29 : (DIAS_POR_MES[mes - 1] ?? 0);
  return dia <= max;
}

const FECHA = /^\d{2}-\d{2}-\d{4}$/;

/** True when `dd` `mm` `aaaa` (already matching FECHA) is a real calendar date. */
function esFechaRealTexto(v: string): boolean {
  const dia = (v.charCodeAt(0) - 48) * 10 + (v.charCodeAt(1) - 48);
  const mes = (v.charCodeAt(3) - 48) * 10 + (v.charCodeAt(4) - 48);
  const anio = (v.charCodeAt(6) - 48) * 1000 + (v.charCodeAt(7) - 48) * 100 + (v.charCodeAt(8) - 48) * 10 + (v.charCodeAt(9) - 48);
  return esFechaReal(dia, mes, anio);
}

/** What `fechaDdMmAaaa` accepts. */
export function esFechaDdMmAaaa(v: string): boolean {
  return FECHA.test(v) && esFechaRealTexto(v);
}

/** Invoice date `dd-mm-aaaa`: two-digit day and month, four-digit year, a real calendar date. */
export const fechaDdMmAaaa = stringSchema('date (dd-mm-aaaa)')
  // The pattern check aborts, so a malformed date gets one message, not two.
  .regex(FECHA, { error: 'date must be dd-mm-aaaa (e.g. "05-03-2026")', abort: true })
  .check((ctx) => {
    const v = ctx.value;
    if (!esFechaRealTexto(v)) {
      ctx.issues.push({ code: 'custom', message: `${v} is not a calendar date`, input: v });
    }
  });
export type FechaDdMmAaaa = z.infer<typeof fechaDdMmAaaa>;

// ---------------------------------------------------------------- text

// Already-encoded entities (`&amp;`, `&#38;`, `&#x26;`, `&lt;`…): the engine escapes text itself,
// so an entity in the input would be encoded twice. A bare `&` is plain text and fine.
const ENTIDAD = /&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;
// Characters XML 1.0 cannot carry: C0 controls other than tab/LF/CR, U+FFFE/U+FFFF, lone surrogates.
const ILEGAL_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// One scan for the common (valid) case; the two patterns are told apart only on a hit.
const ILEGAL_O_ENTIDAD = new RegExp(`${ILEGAL_XML.source}|${ENTIDAD.source}`);

/** Length in Unicode code points, as the XSDs' maxLength counts. */
function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

function explainBadTexto(value: string, max: number): string | null {
  if (value.trim() === '') return 'must not be empty (omit the field instead)';
  if (value.length > max && codePointLength(value) > max) return `at most ${max} characters`;
  if (!ILEGAL_O_ENTIDAD.test(value)) return null;
  if (ILEGAL_XML.test(value)) return 'contains a character XML cannot carry (control character or lone surrogate)';
  const entidad = ENTIDAD.exec(value);
  return `contains the already-encoded entity "${entidad?.[0] ?? ''}": send plain text (e.g. "&", not "&amp;")`;
}

/** What `textoPlano(max)` accepts. */
export function esTextoPlano(value: string, max: number): boolean {
  return explainBadTexto(value, max) === null;
}

/** Plain text up to `max` characters: no XML/HTML entities (double encoding), no XML-illegal characters. */
export function textoPlano(max: number) {
  return stringSchema('text').check((ctx) => {
    const message = explainBadTexto(ctx.value, max);
    if (message !== null) ctx.issues.push({ code: 'custom', message, input: ctx.value });
  });
}

const ASCII_IMPRIMIBLE = /^[\x20-\x7E]+$/;

function explainBadAscii(v: string, max: number): string | null {
  if (v.length === 0) return 'must not be empty (omit the field instead)';
  if (v.length > max) return `at most ${max} characters`;
  if (!ASCII_IMPRIMIBLE.test(v)) return 'only printable ASCII characters (32–126) are allowed';
  if (ENTIDAD.test(v)) return 'contains an already-encoded entity: send plain text';
  // The authority trims, so " A" and "A" would be the same invoice there but not here.
  if (v.charCodeAt(0) === 32 || v.charCodeAt(v.length - 1) === 32) return 'must not start or end with spaces';
  return null;
}

/** What `serieFactura` and `numeroFactura` accept (at most 60 characters). */
export function esAsciiImprimible(v: string, max = 60): boolean {
  return explainBadAscii(v, max) === null;
}

function asciiImprimible(what: string, max: number) {
  return stringSchema(what).check((ctx) => {
    const message = explainBadAscii(ctx.value, max);
    if (message !== null) ctx.issues.push({ code: 'custom', message, input: ctx.value });
  });
}

/** Invoice series: printable ASCII (AEAT code 1130), at most 60 characters. */
export const serieFactura = asciiImprimible('serie', 60);
/** Invoice number: printable ASCII (AEAT code 1130), at most 60 characters. */
export const numeroFactura = asciiImprimible('numero', 60);

/** Device / POS / process identifier: 1–64 characters of `A-Za-z0-9._-`. */
export const ID_MAQUINA = /^[A-Za-z0-9._-]{1,64}$/;
export const idMaquina = stringSchema('idMaquina').regex(ID_MAQUINA, {
  error: 'idMaquina must be 1–64 characters of A-Z a-z 0-9 . _ -',
});

/** Tax ID shape only (9 upper-case letters or digits); the check digit is `nif.ts`'s job. */
export const NIF_BASICO = /^[A-Z0-9]{9}$/;
export const nifBasico = stringSchema('nif').regex(NIF_BASICO, {
  error: 'NIF must be 9 upper-case letters or digits',
});

export type TextoPlano = z.infer<ReturnType<typeof textoPlano>>;
export type SerieFactura = z.infer<typeof serieFactura>;
export type NumeroFactura = z.infer<typeof numeroFactura>;
export type IdMaquina = z.infer<typeof idMaquina>;
export type NifBasico = z.infer<typeof nifBasico>;
