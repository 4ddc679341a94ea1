// Europe/Madrid rendering: AEAT stamps its answers in the peninsula's zone.
const madridFmt = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Madrid',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  offsetMinutes: number;
}

export function madridParts(d: Date): LocalParts {
  const p: Record<string, number> = {};
  for (const part of madridFmt.formatToParts(d)) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const year = p.year ?? 1970;
  const month = p.month ?? 1;
  const day = p.day ?? 1;
  const hour = p.hour ?? 0;
  const minute = p.minute ?? 0;
  const second = p.second ?? 0;
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  const offsetMinutes = Math.round((asUtc - Math.floor(d.getTime() / 1000) * 1000) / 60_000);
  return { year, month, day, hour, minute, second, offsetMinutes };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DDThh:mm:ss+01:00` in Europe/Madrid. */
export function isoMadrid(d: Date): string {
  const p = madridParts(d);
  const sign = p.offsetMinutes >= 0 ? '+' : '-';
  const off = Math.abs(p.offsetMinutes);
  return (
    `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` +
    `${sign}${pad(Math.floor(off / 60))}:${pad(off % 60)}`
  );
}

/** Comparable YYYYMMDD number of the Madrid calendar day. */
export function madridDayNumber(d: Date): number {
  const p = madridParts(d);
  return p.year * 10_000 + p.month * 100 + p.day;
}

/** `YYYYMMDDhhmmss` in Madrid time (prefix of AEAT's IdPeticion). */
export function madridCompact(d: Date): string {
  const p = madridParts(d);
  return `${p.year}${pad(p.month)}${pad(p.day)}${pad(p.hour)}${pad(p.minute)}${pad(p.second)}`;
}
