import { describe, expect, it } from 'vitest';
import { centesimas, centimos, excesoCuota, textoCentimos, textoCuotaEsperada } from '../../../engine/src/verifactu/centimos';

describe('Integer cents of schema-validated amounts', () => {
  it('reads every spelling the schema accepts, signed zero as plain zero', () => {
    expect(centimos('12')).toBe(1200);
    expect(centimos('12.5')).toBe(1250);
    expect(centimos('012.05')).toBe(1205);
    expect(centimos('-5.50')).toBe(-550);
    expect(centimos('999999999999.99')).toBe(99_999_999_999_999);
    expect(Object.is(centimos('-0.00'), 0)).toBe(true);
    expect(centesimas('7.5')).toBe(750);
    expect(centesimas('21')).toBe(2100);
  });

  it('writes cents as decimal.js toFixed(2) writes an exact amount', () => {
    expect(textoCentimos(0)).toBe('0.00');
    expect(textoCentimos(-5)).toBe('-0.05');
    expect(textoCentimos(123456)).toBe('1234.56');
    expect(textoCentimos(-99_999_999_999_999)).toBe('-999999999999.99');
  });

  it('1142 tolerance: strictly more than 10,00 €, exact beyond 2^53', () => {
    // 100.00 × 21 % = 21.00: 31.00 is exactly 10,00 off (allowed), 31.01 is not.
    expect(excesoCuota(3100, 10000, 2100)).toBe(false);
    expect(excesoCuota(3101, 10000, 2100)).toBe(true);
    expect(excesoCuota(1099, 10000, 2100)).toBe(true);
    expect(excesoCuota(99_999_999_000_999, 99_989_999_999_999, 10001)).toBe(true);
    expect(excesoCuota(99_989_998_001_001, 99_980_000_000_001, 10001)).toBe(false);
  });

  it('expected cuota rounded half away from zero, a negative that rounds to zero keeps its sign', () => {
    expect(textoCuotaEsperada(2, 2500)).toBe('0.01');
    expect(textoCuotaEsperada(-2, 2500)).toBe('-0.01');
    expect(textoCuotaEsperada(-1, 2100)).toBe('-0.00');
    expect(textoCuotaEsperada(0, 2100)).toBe('0.00');
  });
});
