// AEAT 1287: "El valor del campo %s contiene carácteres no validos (<, >, ", ', =)". In September
// 2025 the AEAT refused these characters in free-text fields too (DescripcionOperacion, a
// recipient's NombreRazon: mdiago/VeriFactu #134); since November 2025 it checks them in IDFactura
// only (mdiago/VeriFactu #208, "se mantienen exclusivamente en IDFactura"), i.e. NumSerieFactura,
// which the API writes from `cabecera.serie` and `cabecera.numero`. Free text keeps them (it is
// escaped in the XML). Refused before anything is chained: the invoice number cannot be changed
// once the AEAT holds a rejection for it.
import type { FacturaVerifactu } from '../../../../src-shared/api/verifactu';
import type { ErrorRegla } from './reglas';

/** The characters, in the AEAT's order. */
export const CARACTERES_NO_VALIDOS = ['<', '>', '"', "'", '='] as const;

/** The first character of `s` the AEAT refuses in IDFactura, or null (a scan: runs on every invoice). */
export function caracterNoValido(s: string): string | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 60 || c === 62 || c === 34 || c === 39 || c === 61) return s.charAt(i);
  }
  return null;
}

/** The 1287 errors of an invoice's identity (serie, numero), none when both are clean. */
export function erroresCaracteres(f: FacturaVerifactu): ErrorRegla[] {
  const out: ErrorRegla[] = [];
  const cab = f.cabecera;
  for (const [campo, valor] of [
    ['cabecera.serie', cab.serie],
    ['cabecera.numero', cab.numero],
  ] as const) {
    if (valor === undefined) continue;
    const c = caracterNoValido(valor);
    if (c !== null) {
      out.push({
        campo,
        codigo: '1287',
        message: `${campo.slice(9)} contains the character ${c}, which the AEAT refuses in an invoice number (< > " ' =) (AEAT 1287)`,
      });
    }
  }
  return out;
}
