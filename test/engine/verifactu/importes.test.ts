import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { importeCanonico, tipoCanonico } from '../../../engine/src/issuing/importes';

describe('Amounts: one canonical rendering (two decimals) for the XML and the hash', () => {
  it.each([
    ['21', '21.00'],
    ['21.0', '21.00'],
    ['21.00', '21.00'],
    ['-5.5', '-5.50'],
    ['0', '0.00'],
    ['-0', '0.00'],
    ['-0.00', '0.00'],
    ['007.5', '7.50'],
    ['999999999999.99', '999999999999.99'],
  ])('%s → %s', (input, expected) => {
    expect(importeCanonico(input)).toBe(expected);
  });

  it('renders a Decimal sum the same way', () => {
    expect(importeCanonico(new Decimal('100').plus('21'))).toBe('121.00');
    expect(importeCanonico(new Decimal('-0.5'))).toBe('-0.50');
  });

  it('never rounds: a third decimal is a bug upstream', () => {
    expect(() => importeCanonico('21.001')).toThrow(RangeError);
    expect(() => importeCanonico(new Decimal('1.005'))).toThrow(RangeError);
    expect(() => importeCanonico('1e3')).toThrow(RangeError);
  });
});

describe('Rates (TipoImpositivo, TipoRecargoEquivalencia): two decimals', () => {
  it.each([
    ['21', '21.00'],
    ['5.2', '5.20'],
    ['0', '0.00'],
    ['0.26', '0.26'],
  ])('%s → %s', (input, expected) => {
    expect(tipoCanonico(input)).toBe(expected);
  });

  it('refuses negative or 4-digit rates', () => {
    expect(() => tipoCanonico('-1')).toThrow(RangeError);
    expect(() => tipoCanonico('1000')).toThrow(RangeError);
  });
});
