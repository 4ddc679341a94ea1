// Values of a record read in place, by character: they run for every record of every request
// (the drain's hot path), so they build no match arrays or substrings.

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The number the digits of `s` from `from` to `to` write, or -1 if one is not a digit. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    n = n * 10 + (c - 48);
  }
  return n;
}

/** DD-MM-YYYY as YYYYMMDD, null unless /^(\d{2})-(\d{2})-(\d{4})$/ matches a real date (read by character: no match array per record). */
export function dayNumber(ddmmyyyy: string): number | null {
  const t = ddmmyyyy.trim();
  if (t.length !== 10 || t.charCodeAt(2) !== 45 /* - */ || t.charCodeAt(5) !== 45) return null;
  const d = digitsAt(t, 0, 2);
  const mo = digitsAt(t, 3, 5);
  const y = digitsAt(t, 6, 10);
  if (d < 0 || mo < 0 || y < 0) return null;
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
  return y * 10_000 + mo * 100 + d;
}

/**
 * An amount in cents, as /^([+-]?)(\d+)(?:\.(\d{0,2}))?$/ reads it (NaN when it does not match;
 * absent or blank is 0). Read by character: five amounts a record, each match cost an array and
 * four strings.
 */
export function cents(s: string | undefined): number {
  if (s === undefined) return 0;
  const t = s.trim();
  if (t === '') return 0;
  const sign = t.charCodeAt(0);
  let i = sign === 43 /* + */ || sign === 45 /* - */ ? 1 : 0;
  const intStart = i;
  while (i < t.length && isDigit(t.charCodeAt(i))) i++;
  if (i === intStart) return Number.NaN;
  const whole = Number(t.slice(intStart, i));
  let fraction = 0;
  if (i < t.length) {
    if (t.charCodeAt(i) !== 46 /* . */) return Number.NaN;
    const fracStart = i + 1;
    const fracEnd = t.length;
    if (fracEnd - fracStart > 2) return Number.NaN;
    for (let k = fracStart; k < fracEnd; k++) {
      const c = t.charCodeAt(k);
      if (!isDigit(c)) return Number.NaN;
      fraction += (c - 48) * (k === fracStart ? 10 : 1);
    }
  }
  const v = whole * 100 + fraction;
  return sign === 45 ? -v : v;
}

