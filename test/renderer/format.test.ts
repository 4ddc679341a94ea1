// Rule 6 of issue 14: times and dates follow the UI language and the shop's time zone — 24-hour in
// Spanish and Basque (English too) — whatever the browser's locale or zone; amounts are grouped.
import { describe, expect, it } from 'vitest';
import { formatAge, formatDateTime, formatDecimal, formatFechaMotor, formatMoney, formatTime, parseFechaTecleada } from '../../src-renderer/i18n/format';
import { timeInMadrid, todayInMadrid } from '../../src-renderer/platform/dates';

const afternoonUtc = new Date('2026-11-25T12:54:56Z'); // 13:54:56 in Madrid, 12:54:56 in the Canaries

describe('Times in the shop’s zone, 24-hour in every language', () => {
  it('Madrid by default, the Canaries when the shop says so', () => {
    expect(formatTime('es', 'Europe/Madrid', afternoonUtc)).toBe('13:54:56');
    expect(formatTime('es', 'Atlantic/Canary', afternoonUtc)).toBe('12:54:56');
  });
  it('no AM/PM in es, eu or en', () => {
    for (const lang of ['es', 'eu', 'en'] as const) {
      const text = formatDateTime(lang, 'Europe/Madrid', afternoonUtc);
      expect(text).toBe('25/11/2026 13:54:56');
      expect(text).not.toMatch(/AM|PM|a\. m\.|p\. m\./i);
    }
  });
  it('the invoice date and time are the shop’s', () => {
    const lateUtc = new Date('2026-11-25T23:30:00Z');
    expect(todayInMadrid(lateUtc)).toBe('26-11-2026');
    expect(todayInMadrid(lateUtc, 'Atlantic/Canary')).toBe('25-11-2026');
    expect(timeInMadrid(lateUtc)).toBe('00:30:00');
  });
  it('ages in words of the language', () => {
    const now = new Date('2026-11-25T13:05:00Z');
    expect(formatAge('es', '2026-11-25T13:00:00Z', now)).toBe('hace 5 min');
    expect(formatAge('en', '2026-11-25T11:00:00Z', now)).toMatch(/^2 hr\.? ago$/);
    expect(formatAge('es', null, now)).toBe('—');
  });
  it('missing or broken timestamps show a dash, never "Invalid Date"', () => {
    expect(formatDateTime('es', 'Europe/Madrid', 'nonsense')).toBe('—');
    expect(formatTime('es', 'Europe/Madrid', undefined)).toBe('—');
  });
});

describe('Amounts grouped, with the language’s marks', () => {
  it('thousands and two decimals for money', () => {
    expect(formatMoney('es', '1234.5')).toBe('1.234,50');
    expect(formatMoney('eu', '1234567.891')).toBe('1.234.567,89');
    expect(formatMoney('en', '1234.5')).toBe('1,234.50');
    expect(formatMoney('es', '-3000')).toBe('-3.000,00');
  });
  it('other decimals as written', () => {
    expect(formatDecimal('es', '5.70')).toBe('5,70');
    expect(formatDecimal('es', '1.5')).toBe('1,5');
    expect(formatDecimal('es', '21')).toBe('21');
  });
});

describe('Dates typed as dd/mm/aaaa (our own field, not the browser’s)', () => {
  it('accepts real dates, refuses the rest', () => {
    expect(parseFechaTecleada('25/11/2026')).toBe('2026-11-25');
    expect(parseFechaTecleada('5/1/2026')).toBe('2026-01-05');
    expect(parseFechaTecleada('')).toBe('');
    expect(parseFechaTecleada('31/02/2026')).toBeNull();
    expect(parseFechaTecleada('2026-11-25')).toBeNull();
    expect(parseFechaTecleada('11/25/2026')).toBeNull();
  });
  it('the engine’s dd-mm-aaaa reads dd/mm/aaaa on screen', () => {
    expect(formatFechaMotor('25-11-2026')).toBe('25/11/2026');
  });
});
