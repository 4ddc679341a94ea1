// Limits, rate windows and aviso texts shared by the general AEAT rules (reglas.ts) and the
// common-case path (reglas-comunes.ts): both decide with the same figures and word their avisos
// with the same functions, so the two paths cannot drift apart in a constant or a message.
import { textoCentimos } from './centimos';

/** `dd-mm-aaaa` → yyyymmdd as an integer, so dates compare with < and >. */
export function ymd(fecha: string): number {
  // Digits read in place (no inner closure: this runs for every date of every record).
  return (
    ((fecha.charCodeAt(6) - 48) * 1000 + (fecha.charCodeAt(7) - 48) * 100 + (fecha.charCodeAt(8) - 48) * 10 + (fecha.charCodeAt(9) - 48)) * 10000 +
    ((fecha.charCodeAt(3) - 48) * 10 + (fecha.charCodeAt(4) - 48)) * 100 +
    (fecha.charCodeAt(0) - 48) * 10 +
    (fecha.charCodeAt(1) - 48)
  );
}

/** 28-10-2024, entry into force of the Order (AEAT 1152). */
export const VIGOR_VERIFACTU = 20241028;
/** Twenty years in yyyymmdd units (AEAT 1133, 1134). */
export const VEINTE_ANOS = 200000;

/** IVA rates AEAT accepts with S1 (1124), in hundredths of a percent. */
export const TIPOS_IVA: ReadonlySet<number> = new Set([0, 200, 400, 500, 750, 1000, 2100]);
/** IVA 5 % only for operations in this window (1194). */
export const IVA_5_DESDE = 20220701;
export const IVA_5_HASTA = 20240930;
/** IVA rates of up to 2012 (16 % and 7 % to 06-2010, 18 % and 8 % to 08-2012): allowed only for
 * operations (or, without FechaOperacion, invoices) of 2012 or before (1132), as the recargo 4 % of
 * those years (1135). Not in TIPOS_IVA: no everyday sale carries them (reglas-comunes.ts). */
export const TIPOS_IVA_HASTA_2012: ReadonlySet<number> = new Set([700, 800, 1600, 1800]);
export const RECARGO_HASTA_2012 = 400;
export const FIN_2012 = 20121231;
/** NIF-IVA of the United Kingdom after Brexit (1254/1255): XI from 01-01-2021, GB up to 31-01-2021. */
export const XI_DESDE = 20210101;
export const GB_HASTA = 20210131;
/** IVA 2 % and 7,5 % only for operations in this window (1235/1236). */
export const IVA_2_Y_7_5_DESDE = 20241001;
export const IVA_2_Y_7_5_HASTA = 20241231;

/** AEAT's tolerance on totals, 10,00 €, in cents. */
export const DIEZ_EUROS = 1000n;
// In cents.
export const LIMITE_F2_RD = 400_00n;
export const LIMITE_F2 = 3000_00n;
export const LIMITE_F2_AEAT = 3010_00n; // 3000.00 plus AEAT's 10.00 margin

/**
 * Aviso of a total that differs from the sum of its parts by `delta` (never 0): within AEAT's
 * 10.00 tolerance it is said, beyond it AEAT accepts the record with errors (`codigo`).
 */
function avisoDescuadre(campo: string, valor: string, codigo: string, partes: string, delta: bigint, suma: bigint): string {
  const abs = delta < 0n ? -delta : delta;
  const diff = textoCentimos(abs);
  return abs > DIEZ_EUROS
    ? `AEAT ${codigo}: ${campo} ${valor} differs by ${diff} from the sum of ${partes} (${textoCentimos(suma)}); AEAT accepts the record with errors and it must be corrected (subsanar)`
    : `${campo} ${valor} differs by ${diff} from the sum of ${partes} (${textoCentimos(suma)}); within AEAT's 10.00 tolerance (code ${codigo} beyond it)`;
}

/** Aviso on totales.importeTotal (2005 beyond the tolerance); `delta` = importeTotal − suma, never 0. */
export function avisoImporteTotal(importeTotal: string, delta: bigint, suma: bigint): string {
  return avisoDescuadre('importeTotal', importeTotal, '2005', 'the desglose', delta, suma);
}

/** Aviso on totales.cuotaTotal (2006 beyond the tolerance); `delta` = cuotaTotal − suma, never 0. */
export function avisoCuotaTotal(cuotaTotal: string, delta: bigint, suma: bigint): string {
  return avisoDescuadre('cuotaTotal', cuotaTotal, '2006', 'the cuotas', delta, suma);
}

/** Aviso of a simplified invoice between 400,00 and 3.000,00 € (RD 1619/2012 art. 4.1). */
export function avisoSimplificadaSobre400(importeTotal: string): string {
  return `simplified invoice (F2) of ${importeTotal}: above 400.00 it is only allowed for the activities of RD 1619/2012 art. 4.1.b (limit 3000.00, AEAT code 1150); AEAT does not check the 400.00 limit`;
}
