// Differential property test of the AEAT rules: the production rules (integer cents) against the
// reference on decimal.js (referencia/reglas-decimal.ts, the rules as they were), on generated
// invoices valid and invalid: same errors (campo, code and message, in order), same avisos.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifactuCrearBody } from '../../../src-shared/api/verifactu';
import { validarAlta } from '../../../engine/src/regimes/verifactu/reglas';
import { contexto, cuerpoCrear } from './referencia/arbitrarias';
import { validarAltaDecimal } from './referencia/reglas-decimal-vigentes';

const RUNS = Number(process.env.DIFF_RUNS ?? 3000);

describe('AEAT rules on integer cents = the decimal.js reference', () => {
  it(`${RUNS} generated invoices: identical errors and avisos`, () => {
    let conErrores = 0;
    let conAvisos = 0;
    let con1142 = 0;
    fc.assert(
      fc.property(cuerpoCrear, contexto, (body, ctx) => {
        const parsed = verifactuCrearBody.safeParse(body);
        if (!parsed.success) return;
        const nuevo = validarAlta(parsed.data, ctx);
        expect(nuevo).toEqual(validarAltaDecimal(parsed.data, ctx));
        if (nuevo.errors.length > 0) conErrores++;
        if (nuevo.avisos.length > 0) conAvisos++;
        if (nuevo.errors.some((e) => e.codigo === '1142')) con1142++;
      }),
      { numRuns: RUNS },
    );
    // The generator reaches both outcomes (a property over empty cases proves nothing).
    expect(conErrores).toBeGreaterThan(RUNS / 20);
    expect(conAvisos).toBeGreaterThan(RUNS / 20);
    expect(con1142).toBeGreaterThan(0);
  });

  it('edge amounts: signed zeros, 12 integer digits, products beyond 2^53, half-cent rounding of the expected cuota', () => {
    const linea = (baseImponible: string, tipoImpositivo: string, cuotaRepercutida: string) => ({
      impuesto: '01', claveRegimen: '01', calificacionOperacion: 'S1', baseImponible, tipoImpositivo, cuotaRepercutida,
    });
    const casos: [string, string, string][] = [
      ['-0.00', '21', '-0'],
      ['-0.01', '21', '5'],
      ['-0.03', '7.5', '10.01'],
      ['999999999999.99', '999.99', '0'],
      ['-999999999999.99', '999.99', '999999999999.99'],
      ['450000000.00', '21', '94500010.00'],
      ['450000000.00', '21', '94500010.01'],
      ['449999999.99', '21', '94499989.99'],
      ['0.02', '25', '10.01'],
      ['-0.02', '25', '-10.01'],
      ['123456789012.34', '21', '25925925692.59'],
      // base × tipo ≈ 10^18 (beyond 2^53): cuota × 10 000 − base × tipo is exactly 10,00 € ± 1
      // unit, which a double would round onto the tolerance itself.
      ['999899999999.99', '100.01', '999999990009.99'],
      ['999800000000.01', '100.01', '999899980010.01'],
    ];
    for (const [base, tipo, cuota] of casos) {
      const f = verifactuCrearBody.parse({
        version: '1.0',
        emisor: { nif: 'B12345674', nombre: 'X' },
        cabecera: { numero: '1', fechaExpedicion: '02-03-2026', tipoFactura: 'F1', descripcion: 'x' },
        destinatario: { nif: '12345678Z', nombre: 'Y' },
        detalleDesglose: [linea(base, tipo, cuota), linea(base, tipo, cuota)],
        totales: { cuotaTotal: '-0.00', importeTotal: base },
      });
      const ctx = { hoy: '02-03-2026' };
      expect(validarAlta(f, ctx), `${base} × ${tipo} vs ${cuota}`).toEqual(validarAltaDecimal(f, ctx));
    }
  });
});
