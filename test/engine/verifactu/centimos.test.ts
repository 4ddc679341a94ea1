import { describe, expect, it } from 'vitest';
import { centesimas, centimos, excesoCuota, textoCentimos, textoCuotaEsperada } from '../../../engine/src/regimes/verifactu/centimos';

describe('Integer cents (bigint) of schema-validated amounts', () => {
  it('reads every spelling the schema accepts, a signed zero as zero', () => {
    expect(centimos('12')).toBe(1200n);
    expect(centimos('12.5')).toBe(1250n);
    expect(centimos('012.05')).toBe(1205n);
    expect(centimos('-5.50')).toBe(-550n);
    expect(centimos('-5')).toBe(-500n);
    expect(centimos('999999999999.99')).toBe(99_999_999_999_999n);
    expect(centimos('-0.00')).toBe(0n);
    expect(centesimas('7.5')).toBe(750);
    expect(centesimas('21')).toBe(2100);
    expect(centesimas('0.26')).toBe(26);
    expect(centesimas('007.50')).toBe(750);
  });

  it('writes cents as decimal.js toFixed(2) writes an exact amount', () => {
    expect(textoCentimos(0n)).toBe('0.00');
    expect(textoCentimos(-5n)).toBe('-0.05');
    expect(textoCentimos(123456n)).toBe('1234.56');
    expect(textoCentimos(-99_999_999_999_999n)).toBe('-999999999999.99');
  });

  it('1142 tolerance: strictly more than 10,00 €, exact beyond 2^53', () => {
    // 100.00 × 21 % = 21.00: 31.00 is exactly 10,00 off (allowed), 31.01 is not.
    expect(excesoCuota(3100n, 10000n, 2100)).toBe(false);
    expect(excesoCuota(3101n, 10000n, 2100)).toBe(true);
    expect(excesoCuota(1099n, 10000n, 2100)).toBe(true);
    expect(excesoCuota(99_999_999_000_999n, 99_989_999_999_999n, 10001)).toBe(true);
    expect(excesoCuota(99_989_998_001_001n, 99_980_000_000_001n, 10001)).toBe(false);
  });

  it('expected cuota rounded half away from zero, a negative that rounds to zero keeps its sign', () => {
    expect(textoCuotaEsperada(2n, 2500)).toBe('0.01');
    expect(textoCuotaEsperada(-2n, 2500)).toBe('-0.01');
    expect(textoCuotaEsperada(-1n, 2100)).toBe('-0.00');
    expect(textoCuotaEsperada(0n, 2100)).toBe('0.00');
  });
});
