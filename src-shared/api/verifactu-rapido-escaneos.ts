// The string predicates of the crear schema (src-shared/primitives.ts) as one char-code scan each,
// for the precompiled check (verifactu-rapido.ts): a regular expression call costs more than the
// whole scan of these short values, and the body has a dozen of them. Each function answers
// exactly what its predicate answers, or, where the value is unusual (an `&` that could start an
// entity, a character outside the plain ranges, a text longer than its limit), asks the predicate
// itself. Proven equal on generated strings: test/engine/verifactu/rapido-escaneos.test.ts.
import { esAsciiImprimible, esFechaReal, esTextoPlano } from '../primitives';

function esDigito(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** `IMPORTE`: /^-?\d{1,12}(?:\.\d{1,2})?$/. */
export function esImporteEscaneo(v: string): boolean {
  const n = v.length;
  let i = v.charCodeAt(0) === 45 ? 1 : 0; // '-'
  const inicio = i;
  while (i < n && esDigito(v.charCodeAt(i))) i++;
  const enteros = i - inicio;
  if (enteros < 1 || enteros > 12) return false;
  return i === n || decimalesHastaDos(v, i);
}

/** `PORCENTAJE`: /^\d{1,3}(?:\.\d{1,2})?$/. */
export function esPorcentajeEscaneo(v: string): boolean {
  const n = v.length;
  let i = 0;
  while (i < n && esDigito(v.charCodeAt(i))) i++;
  if (i < 1 || i > 3) return false;
  return i === n || decimalesHastaDos(v, i);
}

/** From the dot at `punto` to the end: one or two digits. */
function decimalesHastaDos(v: string, punto: number): boolean {
  const decimales = v.length - punto - 1;
  if (v.charCodeAt(punto) !== 46 || decimales < 1 || decimales > 2) return false;
  return esDigito(v.charCodeAt(punto + 1)) && (decimales === 1 || esDigito(v.charCodeAt(punto + 2)));
}

/** `NIF_BASICO`: /^[A-Z0-9]{9}$/. */
export function esNifBasicoEscaneo(v: string): boolean {
  if (v.length !== 9) return false;
  for (let i = 0; i < 9; i++) {
    const c = v.charCodeAt(i);
    if (!esDigito(c) && (c < 65 || c > 90)) return false;
  }
  return true;
}

/** `esFechaDdMmAaaa`: /^\d{2}-\d{2}-\d{4}$/ and a real calendar date. */
export function esFechaEscaneo(v: string): boolean {
  if (v.length !== 10 || v.charCodeAt(2) !== 45 || v.charCodeAt(5) !== 45) return false;
  for (let i = 0; i < 10; i++) if (i !== 2 && i !== 5 && !esDigito(v.charCodeAt(i))) return false;
  const dia = (v.charCodeAt(0) - 48) * 10 + (v.charCodeAt(1) - 48);
  const mes = (v.charCodeAt(3) - 48) * 10 + (v.charCodeAt(4) - 48);
  const anio = (v.charCodeAt(6) - 48) * 1000 + (v.charCodeAt(7) - 48) * 100 + (v.charCodeAt(8) - 48) * 10 + (v.charCodeAt(9) - 48);
  return esFechaReal(dia, mes, anio);
}

/**
 * An `&` that cannot begin an entity: every entity the schema refuses is `&#…;` or `&letter…;`,
 * so an `&` followed by anything else (or by nothing) is plain text.
 */
function ampersandLlano(v: string, i: number): boolean {
  const s = v.charCodeAt(i + 1); // NaN past the end
  return !(s === 35 || (s >= 65 && s <= 90) || (s >= 97 && s <= 122));
}

/** `esAsciiImprimible(v)` (serie, numero): 1–60 printable ASCII characters, no entity, no edge spaces. */
export function esAsciiImprimibleEscaneo(v: string): boolean {
  const n = v.length;
  if (n === 0 || n > 60 || v.charCodeAt(0) === 32 || v.charCodeAt(n - 1) === 32) return false;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c < 32 || c > 126) return false;
    if (c === 38 && !ampersandLlano(v, i)) return esAsciiImprimible(v);
  }
  return true;
}

/**
 * `esTextoPlano(v, max)`: not blank, at most `max` code points, no character XML cannot carry,
 * no entity. Decided here when every character is a tab, LF, CR or in U+0020–U+007E or
 * U+00A0–U+D7FF (none of them illegal in XML, none a surrogate), no `&` can begin an entity, one
 * of them is visible ASCII (so trim() leaves something) and the length is within `max`; any other
 * value is left to esTextoPlano.
 */
export function esTextoPlanoEscaneo(v: string, max: number): boolean {
  const n = v.length;
  if (n > max) return esTextoPlano(v, max);
  let visible = false;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c > 32 && c < 127) {
      if (c === 38 && !ampersandLlano(v, i)) return esTextoPlano(v, max);
      visible = true;
    } else if (!(c === 32 || c === 9 || c === 10 || c === 13 || (c >= 0xa0 && c <= 0xd7ff))) {
      return esTextoPlano(v, max);
    }
  }
  return visible || esTextoPlano(v, max);
}
