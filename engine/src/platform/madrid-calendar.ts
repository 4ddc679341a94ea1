/** Calendar arithmetic in Europe/Madrid, where the monthly quota restarts on day 1. */
const partsFormatter = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Madrid',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export interface MadridParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const MINUTE_MS = 60_000;
// Every request reads its month (quota) here, and Intl formatting costs microseconds: Madrid's
// offset is formatted once per UTC minute (every time-zone change falls on a whole minute), then
// the wall clock is plain UTC arithmetic on the shifted instant.
const offsetByMinute = new Map<number, number>();
let lastMinute = Number.NaN;
let lastOffsetMs = 0;

function formattedParts(instantMs: number): MadridParts {
  const out: Record<string, number> = {};
  for (const p of partsFormatter.formatToParts(instantMs)) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out.year ?? 0,
    month: out.month ?? 0,
    day: out.day ?? 0,
    hour: out.hour ?? 0,
    minute: out.minute ?? 0,
    second: out.second ?? 0,
  };
}

function madridOffsetMs(instantMs: number): number {
  const minute = Math.floor(instantMs / MINUTE_MS);
  if (minute === lastMinute) return lastOffsetMs;
  let offset = offsetByMinute.get(minute);
  if (offset === undefined) {
    const p = formattedParts(minute * MINUTE_MS);
    offset = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - minute * MINUTE_MS;
    if (offsetByMinute.size >= 4096) offsetByMinute.clear();
    offsetByMinute.set(minute, offset);
  }
  lastMinute = minute;
  lastOffsetMs = offset;
  return offset;
}

export function madridParts(instant: Date): MadridParts {
  const wall = new Date(instant.getTime() + madridOffsetMs(instant.getTime()));
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
  };
}

/** `YYYY-MM` of the instant in Madrid. */
export function madridPeriod(instant: Date): string {
  const p = madridParts(instant);
  return `${p.year}-${String(p.month).padStart(2, '0')}`;
}

/** The instant Madrid's wall clock reads 00:00 on the 1st of the month after `instant`'s. */
export function startOfNextMadridMonth(instant: Date): Date {
  const p = madridParts(instant);
  const year = p.month === 12 ? p.year + 1 : p.year;
  const month = p.month === 12 ? 1 : p.month + 1;
  // Madrid is UTC+1 or UTC+2: try both offsets and keep the one that reads midnight there.
  for (const offsetHours of [1, 2]) {
    const candidate = new Date(Date.UTC(year, month - 1, 1, -offsetHours, 0, 0));
    const q = madridParts(candidate);
    if (q.day === 1 && q.hour === 0 && q.minute === 0) return candidate;
  }
  return new Date(Date.UTC(year, month - 1, 1));
}

/** `dd-mm-aaaa` of the instant in Madrid (the date a till prints). */
export function madridDate(instant: Date): string {
  const p = madridParts(instant);
  return `${String(p.day).padStart(2, '0')}-${String(p.month).padStart(2, '0')}-${p.year}`;
}
