import { describe, expect, it } from 'vitest';
import { fechaHoraHusoGenRegistro, fechaLocalDdMmAaaa, offsetMs } from '../../../engine/src/issuing/fecha-hora';

const at = (iso: string) => new Date(iso);

describe('FechaHoraHusoGenRegistro: YYYY-MM-DDThh:mm:ss±hh:mm in the system\'s local zone', () => {
  it('reproduces the time of the official hash example (CET, +01:00)', () => {
    expect(fechaHoraHusoGenRegistro(at('2024-01-01T18:20:30.999Z'))).toBe('2024-01-01T19:20:30+01:00');
  });

  it('defaults to Europe/Madrid and writes summer time as +02:00', () => {
    expect(fechaHoraHusoGenRegistro(at('2026-07-15T10:00:00Z'))).toBe('2026-07-15T12:00:00+02:00');
  });

  it('writes the Canaries as Atlantic/Canary (+00:00 / +01:00)', () => {
    expect(fechaHoraHusoGenRegistro(at('2026-01-15T10:00:00Z'), 'Atlantic/Canary')).toBe('2026-01-15T10:00:00+00:00');
    expect(fechaHoraHusoGenRegistro(at('2026-07-15T10:00:00Z'), 'Atlantic/Canary')).toBe('2026-07-15T11:00:00+01:00');
  });

  it('crosses a year boundary in local time', () => {
    expect(fechaHoraHusoGenRegistro(at('2026-12-31T23:30:00Z'))).toBe('2027-01-01T00:30:00+01:00');
  });
});

describe('FechaHoraHusoGenRegistro across the 2026 daylight-saving changes', () => {
  it('29 March 2026: 01:59:59 +01:00 is followed by 03:00:00 +02:00', () => {
    expect(fechaHoraHusoGenRegistro(at('2026-03-29T00:59:59Z'))).toBe('2026-03-29T01:59:59+01:00');
    expect(fechaHoraHusoGenRegistro(at('2026-03-29T01:00:00Z'))).toBe('2026-03-29T03:00:00+02:00');
  });

  it('25 October 2026: 02:59:59 +02:00 is followed by 02:00:00 +01:00', () => {
    expect(fechaHoraHusoGenRegistro(at('2026-10-25T00:59:59Z'))).toBe('2026-10-25T02:59:59+02:00');
    expect(fechaHoraHusoGenRegistro(at('2026-10-25T01:00:00Z'))).toBe('2026-10-25T02:00:00+01:00');
  });

  it('Canaries change at the same instant, one hour behind', () => {
    expect(fechaHoraHusoGenRegistro(at('2026-03-29T00:59:59Z'), 'Atlantic/Canary')).toBe('2026-03-29T00:59:59+00:00');
    expect(fechaHoraHusoGenRegistro(at('2026-03-29T01:00:00Z'), 'Atlantic/Canary')).toBe('2026-03-29T02:00:00+01:00');
    expect(fechaHoraHusoGenRegistro(at('2026-10-25T01:00:00Z'), 'Atlantic/Canary')).toBe('2026-10-25T01:00:00+00:00');
  });

  it('the cached offset follows the instant, whatever the order of the calls', () => {
    const times = ['2026-10-25T01:00:00Z', '2026-10-25T00:59:00Z', '2026-10-25T01:00:30Z', '2026-03-29T01:00:00Z'];
    expect(times.map((t) => offsetMs(at(t)) / 3_600_000)).toEqual([1, 2, 1, 2]);
  });
});

describe('fechaLocalDdMmAaaa: the local date, for "today" in the date rules', () => {
  it('is the Madrid date, not the UTC one, around midnight', () => {
    expect(fechaLocalDdMmAaaa(at('2026-03-01T23:30:00Z'))).toBe('02-03-2026');
    expect(fechaLocalDdMmAaaa(at('2026-03-01T23:30:00Z'), 'Atlantic/Canary')).toBe('01-03-2026');
  });

  it('the remembered date follows the instant: each side of local midnight, back and forth, per zone', () => {
    const madrid = ['2026-03-01T22:59:59Z', '2026-03-01T23:00:00Z', '2026-03-01T23:00:59Z', '2026-03-01T22:59:30Z', '2026-03-01T23:01:00Z'];
    expect(madrid.map((t) => fechaLocalDdMmAaaa(at(t)))).toEqual(['01-03-2026', '02-03-2026', '02-03-2026', '01-03-2026', '02-03-2026']);
    expect(fechaLocalDdMmAaaa(at('2026-03-01T23:01:00Z'), 'Atlantic/Canary')).toBe('01-03-2026');
    expect(fechaLocalDdMmAaaa(at('2026-03-01T23:01:00Z'))).toBe('02-03-2026');
  });
});
