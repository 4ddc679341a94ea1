import { describe, expect, it } from 'vitest';
import { madridDate, madridParts, madridPeriod, startOfNextMadridMonth } from '../../../engine/src/platform/madrid-calendar';

/** Madrid's wall clock as Intl formats it, the reference the cached offsets must match. */
const intl = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Madrid',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
function reference(instant: Date) {
  const out: Record<string, number> = {};
  for (const p of intl.formatToParts(instant)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return { year: out.year, month: out.month, day: out.day, hour: out.hour, minute: out.minute, second: out.second };
}

describe('Madrid wall clock: the same as Intl for every instant, across summer-time changes', () => {
  it('every 7 minutes and 13 seconds through 2026 and the turn of the year', () => {
    const from = Date.parse('2025-12-31T20:00:00.000Z');
    const to = Date.parse('2027-01-01T02:00:00.000Z');
    for (let t = from; t < to; t += 433_000) expect(madridParts(new Date(t)), new Date(t).toISOString()).toEqual(reference(new Date(t)));
  });

  it('each second around the spring and autumn changes (01:00 UTC on the last Sunday of March and October)', () => {
    for (const change of ['2026-03-29T01:00:00.000Z', '2026-10-25T01:00:00.000Z']) {
      const at = Date.parse(change);
      for (let t = at - 90_000; t < at + 90_000; t += 1000) expect(madridParts(new Date(t))).toEqual(reference(new Date(t)));
    }
  });

  it('period, date and the start of the next month read from it', () => {
    expect(madridPeriod(new Date('2026-10-31T23:30:00.000Z'))).toBe('2026-11');
    expect(madridDate(new Date('2026-03-29T00:59:59.000Z'))).toBe('29-03-2026');
    expect(startOfNextMadridMonth(new Date('2026-10-15T12:00:00.000Z')).toISOString()).toBe('2026-10-31T23:00:00.000Z');
    expect(startOfNextMadridMonth(new Date('2026-03-15T12:00:00.000Z')).toISOString()).toBe('2026-03-31T22:00:00.000Z');
  });
});
