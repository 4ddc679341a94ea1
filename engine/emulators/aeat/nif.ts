// The Spanish NIF's control character, as the AEAT checks it on every NIF of a record (1123 on
// NIF fields, 1290 on an IDOtro ID that must be a NIF): DNI and NIE (mod 23 letter), K/L/M (mod 23
// of the 7 digits), and the legal entities' NIF (the CIF algorithm: a digit or a letter J..A).
// Written for the emulator on its own (emulators never import the engine or its shared code), from
// Orden EHA/451/2008 and Real Decreto 1065/2007 art. 22. Hot path: charCodeAt only, no strings.

const LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
const ENTITY_LETTERS = 'ABCDEFGHJNPQRSUVW';
const CONTROL_LETTERS = 'JABCDEFGHI';

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The number the digits at [from, to) spell (at most 8 digits: an exact integer). */
function digitsValue(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}

/** Whether a natural person's NIF (DNI, NIE, K/L/M) has the right control letter. */
export function validPersonNif(s: string): boolean {
  if (s.length !== 9) return false;
  const first = s.charCodeAt(0);
  let n: number;
  if (isDigit(first)) n = digitsValue(s, 0, 8);
  else if (first >= 88 && first <= 90) {
    // X, Y, Z stand for 0, 1, 2 in front of the 7 digits.
    const rest = digitsValue(s, 1, 8);
    n = rest < 0 ? -1 : (first - 88) * 10_000_000 + rest;
  } else if (first >= 75 && first <= 77) n = digitsValue(s, 1, 8); // K, L, M
  else return false;
  return n >= 0 && s.charCodeAt(8) === LETTERS.charCodeAt(n % 23);
}

/** Whether a legal entity's NIF has the right control character. */
function validEntityNif(s: string): boolean {
  const letter = s.charAt(0);
  if (!ENTITY_LETTERS.includes(letter)) return false;
  let sum = 0;
  for (let i = 1; i <= 7; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return false;
    const d = c - 48;
    if (i % 2 === 0) sum += d;
    else {
      const x = d * 2;
      sum += x > 9 ? x - 9 : x;
    }
  }
  const control = (10 - (sum % 10)) % 10;
  const got = s.charCodeAt(8);
  const asDigit = got === 48 + control;
  const asLetter = got === CONTROL_LETTERS.charCodeAt(control);
  // P, Q, R, S, N, W take a letter; A, B, E, H a digit; the rest either.
  if ('PQRSNW'.includes(letter)) return asLetter;
  if ('ABEH'.includes(letter)) return asDigit;
  return asDigit || asLetter;
}

/** Whether a Spanish NIF (any kind) has the right control character. */
export function validNif(s: string): boolean {
  if (s.length !== 9) return false;
  const first = s.charCodeAt(0);
  if (isDigit(first) || (first >= 88 && first <= 90) || (first >= 75 && first <= 77)) return validPersonNif(s);
  return validEntityNif(s);
}
