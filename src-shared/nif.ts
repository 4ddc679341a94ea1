// Spanish tax IDs (NIF): DNI, NIE, K/L/M and CIF (legal-entity NIF).
// Pure and import-free on purpose: the engine and the browser UI share this file.
// A valid check character says nothing about the census: AEAT still checks every NIF against it.

export type NifKind = 'dni' | 'nie' | 'cif' | 'klm';

export type NifValidation =
  | { valid: true; kind: NifKind; normalized: string }
  | { valid: false; reason: string };

const LETRAS_DNI = 'TRWAGMYFPDXBNJZSQVHLCKE';
const LETRAS_CONTROL_CIF = 'JABCDEFGHI';
const LETRAS_ENTIDAD = 'ABCDEFGHJNPQRSUVW';
// Entities whose control character must be a letter / a digit; the rest accept either.
const CONTROL_LETRA = 'NPQRSW';
const CONTROL_DIGITO = 'ABEH';

const DNI_RE = /^\d{8}[A-Z]$/;
const NIE_RE = /^[XYZ]\d{7}[A-Z]$/;
const KLM_RE = /^[KLM]\d{7}[A-Z]$/;
const CIF_RE = /^[ABCDEFGHJNPQRSUVW]\d{7}[0-9A-J]$/;

/** Only A-Z and 0-9: trimming, upper-casing and dropping spaces would change nothing. */
function esCompacto(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c < 48 || c > 57) && (c < 65 || c > 90)) return false;
  }
  return true;
}

/** Trim, upper-case, drop spaces and hyphens, and drop an `ES` (VAT) country prefix. */
export function normalizeNif(raw: string): string {
  // A NIF sent as the API writes it skips the three string passes (issuing checks every recipient).
  const compact = esCompacto(raw) ? raw : raw.trim().toUpperCase().replace(/[\s-]+/g, '');
  // No NIF starts with "ES" (an E-entity is followed by digits), so stripping is never ambiguous.
  return compact.startsWith('ES') ? compact.slice(2) : compact;
}

/** Kind by shape only (no check-character test); null when it fits no NIF shape. */
export function classifyNif(nif: string): NifKind | null {
  const n = normalizeNif(nif);
  if (DNI_RE.test(n)) return 'dni';
  if (NIE_RE.test(n)) return 'nie';
  if (KLM_RE.test(n)) return 'klm';
  if (CIF_RE.test(n)) return 'cif';
  return null;
}

/** True for the natural-person shapes (DNI, NIE, K/L/M); by shape, like classifyNif. */
export function isPersonaFisica(nif: string): boolean {
  const kind = classifyNif(nif);
  return kind === 'dni' || kind === 'nie' || kind === 'klm';
}

export function validateNif(nif: string): NifValidation {
  const n = normalizeNif(nif);
  if (n.length !== 9) return invalid(`a NIF has 9 characters, got ${n.length}`);
  const kind = classifyNif(n);
  if (kind === null) return invalid(formatReason(n));
  const check = n.charAt(8);
  switch (kind) {
    case 'dni':
      return checkLetter(kind, n, letraDni(n.slice(0, 8)));
    case 'nie':
      // X/Y/Z stand for 0/1/2, then the DNI rule applies to the 8 digits.
      return checkLetter(kind, n, letraDni(String('XYZ'.indexOf(n.charAt(0))) + n.slice(1, 8)));
    case 'klm':
      // The prefix letter is not part of the number: the letter comes from the 7 digits alone.
      return checkLetter(kind, n, letraDni(n.slice(1, 8)));
    case 'cif':
      return validateCif(n, check);
  }
}

function letraDni(digits: string): string {
  return LETRAS_DNI.charAt(Number(digits) % 23);
}

function checkLetter(kind: NifKind, n: string, expected: string): NifValidation {
  const got = n.charAt(8);
  if (got !== expected) {
    return invalid(`${kind.toUpperCase()} check letter should be ${expected}, not ${got}`);
  }
  return { valid: true, kind, normalized: n };
}

function validateCif(n: string, got: string): NifValidation {
  const entidad = n.charAt(0);
  const { digito, letra } = controlCif(n.slice(1, 8));
  // The control follows the entity letter alone (Orden EHA/451/2008: a letter, seven random digits
  // and a control character). The old "province 00 means non-resident, so a letter" reading comes
  // from the 1975 codes that the Order replaced: foreign entities have their own letters (N, W).
  if (CONTROL_LETRA.includes(entidad)) {
    if (got === letra) return { valid: true, kind: 'cif', normalized: n };
    return invalid(`CIF control must be the letter ${letra} (entity letter ${entidad}), not ${got}`);
  }
  if (CONTROL_DIGITO.includes(entidad)) {
    if (got === digito) return { valid: true, kind: 'cif', normalized: n };
    return invalid(`CIF control must be the digit ${digito} (entity letter ${entidad}), not ${got}`);
  }
  if (got === digito || got === letra) return { valid: true, kind: 'cif', normalized: n };
  return invalid(`CIF control should be ${digito} or ${letra}, not ${got}`);
}

/** Control of the 7 central digits: positions 2, 4, 6 added; 1, 3, 5, 7 doubled and digit-summed. */
function controlCif(digits: string): { digito: string; letra: string } {
  let total = 0;
  for (let i = 0; i < digits.length; i++) {
    const d = Number(digits.charAt(i));
    if (i % 2 === 0) {
      const doubled = d * 2;
      total += Math.floor(doubled / 10) + (doubled % 10);
    } else {
      total += d;
    }
  }
  const control = (10 - (total % 10)) % 10;
  return { digito: String(control), letra: LETRAS_CONTROL_CIF.charAt(control) };
}

function formatReason(n: string): string {
  const first = n.charAt(0);
  if (/\d/.test(first)) return 'DNI format is 8 digits followed by a letter';
  if ('XYZ'.includes(first)) return 'NIE format is X, Y or Z, 7 digits and a letter';
  if ('KLM'.includes(first)) return 'K/L/M NIF format is the letter, 7 digits and a letter';
  if (LETRAS_ENTIDAD.includes(first)) {
    return 'CIF format is the entity letter, 7 digits and a digit or a letter A-J';
  }
  return `unknown first character ${first}`;
}

function invalid(reason: string): NifValidation {
  return { valid: false, reason };
}
