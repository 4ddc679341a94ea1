// importeCanonico against decimal.js on every spelling of an amount the schema accepts (its
// shortcut for already-canonical strings included), and its refusals.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importeCanonico } from '../../../engine/src/issuing/importes';

describe('importeCanonico = decimal.js toFixed(2)', () => {
  it('any schema-valid amount, canonical or not', () => {
    const importe = fc.oneof(
      fc.stringMatching(/^-?\d{1,12}(\.\d{1,2})?$/),
      fc.stringMatching(/^-?(0|[1-9]\d{0,11})\.\d\d$/),
      fc.constantFrom('-0.00', '0.00', '-0', '00.00', '-00.10', '999999999999.99', '-999999999999.99', '0.5', '-0.01'),
    );
    fc.assert(
      fc.property(importe, (s) => {
        expect(importeCanonico(s)).toBe(new Decimal(s).toFixed(2));
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses what is not an amount, canonical-looking or not', () => {
    for (const s of ['1.234', '1e3', '1234567890123.00', '-.10', '.10', '1.1a', '12,10', '+1.00', '', '-', 'a.bc', '1-.00']) {
      expect(() => importeCanonico(s), s).toThrow(RangeError);
    }
  });
});
