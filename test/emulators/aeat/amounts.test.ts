import { describe, expect, it } from 'vitest';
import { cents, dayNumber } from '../../../engine/emulators/aeat/processor';

// The processor reads amounts and dates by character; these are the regular expressions it
// replaced, as they were, and both must read every string alike.

function centsByRegex(s: string | undefined): number {
  if (s === undefined || s.trim() === '') return 0;
  const m = /^([+-]?)(\d+)(?:\.(\d{0,2}))?$/.exec(s.trim());
  if (!m) return Number.NaN;
  const v = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] === '-' ? -v : v;
}

function dayNumberByRegex(ddmmyyyy: string): number | null {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(ddmmyyyy.trim());
  if (!m) return null;
  const d = Number(m[1]);
  const mo = Number(m[2]);
  const y = Number(m[3]);
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
  return y * 10_000 + mo * 100 + d;
}

/** Every string of up to `len` characters over `alphabet`. */
function strings(alphabet: string, len: number): string[] {
  let out = [''];
  const all = [''];
  for (let n = 0; n < len; n++) {
    out = out.flatMap((s) => [...alphabet].map((c) => s + c));
    all.push(...out);
  }
  return all;
}

describe('amounts and dates read by character, as the regular expressions read them', () => {
  it('cents: every short string over digits, signs, dot and noise, and the real shapes', () => {
    const inputs = [
      ...strings('05+-. a', 5),
      undefined,
      ' 121.00 ',
      '\t-3.5\n',
      '99999999999999999999.99',
      '1234567890123.45',
      '١٢.٣٤',
      '12.3.4',
      '1e5',
      '0x10',
      '+.',
      '-0',
      '-0.00',
    ];
    for (const s of inputs) expect({ s, v: cents(s) }).toEqual({ s, v: centsByRegex(s) });
  });

  it('dayNumber: valid and invalid days, months, years, separators and lengths', () => {
    const inputs = [
      '01-03-2025', '29-02-2024', '29-02-2025', '31-04-2025', '00-01-2025', '01-13-2025', '01-00-2025',
      '31-12-9999', '01-01-0000', '01-01-0099', '01-01-0100', ' 26-11-2026 ', '26/11/2026', '26-11-26',
      '2026-11-26', '26-11-2026x', 'a6-11-2026', '26-1a-2026', '26-11-202a', '', '١٢-١١-٢٠٢٦',
    ];
    for (const day of ['00', '01', '09', '10', '28', '29', '30', '31', '32', '99']) {
      for (const month of ['00', '01', '02', '04', '12', '13']) {
        for (const year of ['0000', '0001', '0099', '0100', '1900', '2000', '2024', '2100', '9999']) inputs.push(`${day}-${month}-${year}`);
      }
    }
    for (const s of inputs) expect({ s, v: dayNumber(s) }).toEqual({ s, v: dayNumberByRegex(s) });
  });
});
