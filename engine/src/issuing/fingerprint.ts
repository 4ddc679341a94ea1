// Replay fingerprint of a correction (subsanar): SHA-256 of the PARSED invoice in one canonical
// form, so the same correction sent with other key order, "21" for "21.00" or `"S"` for `true`
// is recognised as a replay instead of being chained a second time.
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { importeCanonico, tipoCanonico } from './importes';

/** How each amount-like field (by key name, at any depth) is written in canonical form. */
export type CanonicalFields = Readonly<Record<string, (value: string) => string>>;

/** VeriFactu amounts (ImporteSgn12.2) and rates (Tipo2.2), as the XML writes them. */
export const CAMPOS_CANONICOS_VERIFACTU: CanonicalFields = {
  baseImponible: importeCanonico,
  cuotaRepercutida: importeCanonico,
  cuotaRecargoEquivalencia: importeCanonico,
  cuotaTotal: importeCanonico,
  importeTotal: importeCanonico,
  baseRectificada: importeCanonico,
  cuotaRectificada: importeCanonico,
  cuotaRecargoRectificada: importeCanonico,
  tipoImpositivo: tipoCanonico,
  tipoRecargoEquivalencia: tipoCanonico,
};

/** Any validated decimal string: no leading zeros, at least two decimals, no trailing zeros beyond, no "-0". */
export function decimalCanonico(value: string): string {
  const d = new Decimal(value);
  if (d.isZero()) return '0.00';
  return d.toFixed(Math.max(2, d.decimalPlaces()));
}

function canonical(value: unknown, fields: CanonicalFields, key: string | null): unknown {
  if (Array.isArray(value)) return value.map((v) => canonical(v, fields, null));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = canonical(v, fields, k);
    }
    return out;
  }
  const canon = key !== null ? fields[key] : undefined;
  if (canon !== undefined && typeof value === 'string') return canon(value);
  return value;
}

/** SHA-256 (hex) of the canonical JSON of a parsed invoice: sorted keys, canonical amounts, no undefined. */
export function fingerprintFactura(parsed: unknown, fields: CanonicalFields): string {
  return createHash('sha256').update(JSON.stringify(canonical(parsed, fields, null))).digest('hex');
}

/**
 * The replay fingerprint of a correction, and which stored fingerprints it matches. idMaquina is
 * left out — a replay is the same correction whichever till sends it — but a correction stored
 * before that rule carries it in its fingerprint, so that form still matches.
 */
export function correctionFingerprint<T extends { idMaquina?: string | undefined }>(
  parsed: T,
  fields: CanonicalFields,
): { print: string; matches: (stored: unknown) => boolean } {
  const { idMaquina: _routing, ...content } = parsed;
  const print = fingerprintFactura(content, fields);
  const withMachine = parsed.idMaquina === undefined ? print : fingerprintFactura(parsed, fields);
  return { print, matches: (stored) => stored === print || stored === withMachine };
}

/** TicketBAI amounts (2 decimals, and up to 8 on detail lines) and rates. */
export const CAMPOS_CANONICOS_TICKETBAI: CanonicalFields = {
  baseImponible: decimalCanonico,
  cuota: decimalCanonico,
  cuotaRecargoEquivalencia: decimalCanonico,
  importeTotal: decimalCanonico,
  cantidad: decimalCanonico,
  importeUnitario: decimalCanonico,
  descuento: decimalCanonico,
  baseRectificada: decimalCanonico,
  cuotaRectificada: decimalCanonico,
  cuotaRecargoRectificada: decimalCanonico,
  tipoImpositivo: tipoCanonico,
  tipoRecargoEquivalencia: tipoCanonico,
};
