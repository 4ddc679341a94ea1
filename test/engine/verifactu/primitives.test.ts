import { describe, expect, it } from 'vitest';
import {
  fechaDdMmAaaa,
  idMaquina,
  importe,
  importe8,
  nifBasico,
  numeroFactura,
  porcentaje,
  serieFactura,
  textoPlano,
} from '../../../src-shared/primitives';

function message(r: { success: boolean; error?: { issues: Array<{ message: string }> } }): string {
  return r.error?.issues.map((i) => i.message).join('; ') ?? '';
}

describe('Amounts: decimal strings, dot separator, at most 12 integer digits and 2 decimals', () => {
  it.each(['21', '21.0', '21.00', '-5.5', '0', '999999999999.99', '-999999999999.99'])('accepts %j', (v) => {
    expect(importe.safeParse(v).success).toBe(true);
  });

  it.each([
    ['21.001', /at most 2 decimals/],
    ['1e3', /scientific notation/],
    ['21,00', /comma/],
    ['1234567890123', /12 integer digits/],
    ['abc', /only digits/],
    ['', /non-empty/],
    [' 21', /without spaces/],
    ['+21', /leading "\+"/],
    ['21.', /at least one decimal/],
    ['.5', /at least one digit before the dot/],
  ])('refuses %j', (v, why) => {
    const r = importe.safeParse(v);
    expect(r.success).toBe(false);
    expect(message(r)).toMatch(why);
  });

  it.each([21.5, 21, null, true])('refuses the JSON value %j (floating-point numbers are not amounts)', (v) => {
    const r = importe.safeParse(v);
    expect(r.success).toBe(false);
    expect(message(r)).toMatch(/expected a string/);
  });
});

describe('TicketBAI amounts: up to 8 decimals', () => {
  it('accepts 8 decimals and refuses 9', () => {
    expect(importe8.safeParse('1.12345678').success).toBe(true);
    expect(message(importe8.safeParse('1.123456789'))).toMatch(/at most 8 decimals/);
  });
});

describe('Rates: Tipo2.2 (at most 3 integer digits, 2 decimals, not negative)', () => {
  it.each(['21', '21.00', '5.2', '0', '100'])('accepts %j', (v) => expect(porcentaje.safeParse(v).success).toBe(true));
  it.each(['-1', '1000', '5.255', '5,2', 5.2])('refuses %j', (v) => expect(porcentaje.safeParse(v).success).toBe(false));
});

describe('Invoice dates: dd-mm-aaaa, two digits for day and month, a real date', () => {
  it.each(['01-01-2026', '29-02-2024', '31-12-2026'])('accepts %s', (v) => expect(fechaDdMmAaaa.safeParse(v).success).toBe(true));

  it.each([
    ['31-02-2026', /not a calendar date/],
    ['29-02-2026', /not a calendar date/],
    ['00-01-2026', /not a calendar date/],
    ['01-13-2026', /not a calendar date/],
    ['2026-01-01', /dd-mm-aaaa/],
    ['1-1-2026', /dd-mm-aaaa/],
    ['01/01/2026', /dd-mm-aaaa/],
  ])('refuses %s', (v, why) => {
    expect(message(fechaDdMmAaaa.safeParse(v))).toMatch(why);
  });
});

describe('Text fields: plain text; already-encoded entities and XML-illegal characters are rejected', () => {
  const t = textoPlano(20);
  it.each(['A & B', 'Pérez & Cía', 'a < b > c', 'tab\there', 'AT&T', '😀'])('accepts %j', (v) => {
    expect(t.safeParse(v).success).toBe(true);
  });

  it.each([
    ['A &amp; B', /already-encoded entity "&amp;"/],
    ['&#38;', /already-encoded entity/],
    ['&#x26;', /already-encoded entity/],
    ['&lt;b&gt;', /already-encoded entity/],
    ['x\u0001y', /XML cannot carry/],
    ['x\uFFFEy', /XML cannot carry/],
    ['x\uD800y', /XML cannot carry/],
    ['123456789012345678901', /at most 20/],
    ['   ', /must not be empty/],
  ])('refuses %j', (v, why) => {
    expect(message(t.safeParse(v))).toMatch(why);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(textoPlano(3).safeParse('😀😀😀').success).toBe(true);
    expect(textoPlano(3).safeParse('😀😀😀😀').success).toBe(false);
  });
});

describe('serie and numero: printable ASCII (AEAT 1130), at most 60 characters', () => {
  it('accepts printable ASCII including "&" and "/"', () => {
    expect(serieFactura.safeParse('12345678&G33/').success).toBe(true);
    expect(numeroFactura.safeParse('0001').success).toBe(true);
  });
  it.each(['Ñ1', 'A\tB', '', ' A', 'x'.repeat(61), 'A&amp;B'])('refuses %j', (v) => {
    expect(serieFactura.safeParse(v).success).toBe(false);
  });
});

describe('idMaquina: max 64 characters, pattern A-Za-z0-9._-', () => {
  it('accepts the pattern and 64 characters', () => {
    expect(idMaquina.safeParse('till-01.front_A').success).toBe(true);
    expect(idMaquina.safeParse('x'.repeat(64)).success).toBe(true);
  });
  it.each(['till 01', 'caja/1', 'x'.repeat(65), ''])('refuses %j', (v) => expect(idMaquina.safeParse(v).success).toBe(false));
});

describe('nifBasico: shape only, 9 upper-case letters or digits', () => {
  it('accepts any 9-character upper-case alphanumeric (check digit is not its job)', () => {
    expect(nifBasico.safeParse('89890001K').success).toBe(true);
    expect(nifBasico.safeParse('B00000000').success).toBe(true);
  });
  it.each(['89890001k', '8989001K', '8989000011K', '89890001-'])('refuses %j', (v) => {
    expect(nifBasico.safeParse(v).success).toBe(false);
  });
});
