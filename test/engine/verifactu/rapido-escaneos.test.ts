// The char scans of the precompiled crear check against the schema's own predicates, on strings
// generated from the characters each pattern turns on (digits, signs, dots, dashes, entity
// starts, controls, surrogates, XML-illegal and blank characters) and on the lengths at its limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as escaneo from '../../../src-shared/api/verifactu-rapido-escaneos';
import { esAsciiImprimible, esFechaDdMmAaaa, esTextoPlano, IMPORTE, NIF_BASICO, PORCENTAJE } from '../../../src-shared/primitives';

const RUNS = Number(process.env.DIFF_RUNS ?? 20_000);

/** Strings of `unidades`, up to `max` characters, plus the values every pattern is written for. */
function cadenas(unidades: readonly string[], max: number, muestras: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom(...unidades), maxLength: max }) },
    { weight: 1, arbitrary: fc.constantFrom('', ...muestras) },
  );
}

const NUMERICAS = ['0', '1', '5', '9', '-', '.', '+', ' ', 'e', ',', '\n', '٣'];
const TEXTO = [
  'a', 'Z', 'x', 'X', '0', '9', '#', ';', '&', ' ', '\t', '\n', '\r', '\u0000', '\u0008', '\u000b', '\u001f',
  '\u007e', '\u007f', '\u0085', '\u00a0', 'é', 'Ñ', '€', '\u2028', '\u3000', '\ud7ff', '\ud800', '\udc00', '\ue000', '\ufeff', '\ufffe', '\uffff',
];

describe('crear char scans = the schema predicates', () => {
  it('importe: /^-?\\d{1,12}(\\.\\d{1,2})?$/', () => {
    fc.assert(
      fc.property(cadenas(NUMERICAS, 17, ['-0', '123456789012', '1234567890123', '-123456789012.34', '1.', '.5', '1.234', '0.00']), (v) => {
        expect(escaneo.esImporteEscaneo(v), JSON.stringify(v)).toBe(IMPORTE.test(v));
      }),
      { numRuns: RUNS },
    );
  });

  it('porcentaje: /^\\d{1,3}(\\.\\d{1,2})?$/', () => {
    fc.assert(
      fc.property(cadenas(NUMERICAS, 7, ['21', '7.5', '100.00', '1000', '-1', '21.', '21.000']), (v) => {
        expect(escaneo.esPorcentajeEscaneo(v), JSON.stringify(v)).toBe(PORCENTAJE.test(v));
      }),
      { numRuns: RUNS },
    );
  });

  it('NIF: /^[A-Z0-9]{9}$/', () => {
    const unidades = ['A', 'Z', 'B', '0', '9', 'a', 'z', '@', '[', '/', ':', ' ', '-', 'Ñ'];
    fc.assert(
      fc.property(cadenas(unidades, 11, ['B12345674', '12345678Z', 'B1234567', 'B123456745']), (v) => {
        expect(escaneo.esNifBasicoEscaneo(v), JSON.stringify(v)).toBe(NIF_BASICO.test(v));
      }),
      { numRuns: RUNS },
    );
  });

  it('fecha: dd-mm-aaaa and a real calendar date', () => {
    const fechas = fc
      .tuple(fc.integer({ min: 0, max: 39 }), fc.integer({ min: 0, max: 19 }), fc.integer({ min: 0, max: 2400 }))
      .map(([d, m, a]) => `${String(d).padStart(2, '0')}-${String(m).padStart(2, '0')}-${String(a).padStart(4, '0')}`);
    fc.assert(
      fc.property(fc.oneof(fechas, cadenas(['0', '1', '2', '9', '-', '/', ' '], 11, ['29-02-2024', '29-02-2100', '29-02-2000', '31-04-2026', '00-01-2026'])), (v) => {
        expect(escaneo.esFechaEscaneo(v), JSON.stringify(v)).toBe(esFechaDdMmAaaa(v));
      }),
      { numRuns: RUNS },
    );
  });

  it('serie and numero: printable ASCII, no entity, no edge spaces, at most 60', () => {
    const muestras = ['T', 'A&B', '&amp;', 'A&#38;', 'A&#x26;', 'A&b;', 'A& b;', 'A&', ' A', 'A ', 'X'.repeat(60), 'X'.repeat(61)];
    fc.assert(
      fc.property(cadenas(TEXTO, 62, muestras), (v) => {
        expect(escaneo.esAsciiImprimibleEscaneo(v), JSON.stringify(v)).toBe(esAsciiImprimible(v));
      }),
      { numRuns: RUNS },
    );
  });

  it('plain text: not blank, at most max code points, XML-legal, no entity', () => {
    const muestras = ['Ferretería López & Hijos, S.L.', '&amp;', 'a &lt; b', 'a&#1;', '   ', '\u00a0\u3000', 'é', '😀', '\ud83d', 'x'.repeat(6)];
    fc.assert(
      fc.property(cadenas(TEXTO, 8, muestras), fc.integer({ min: 1, max: 6 }), (v, max) => {
        expect(escaneo.esTextoPlanoEscaneo(v, max), `${JSON.stringify(v)} max ${max}`).toBe(esTextoPlano(v, max));
      }),
      { numRuns: RUNS },
    );
  });
});
