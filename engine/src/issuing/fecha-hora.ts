// FechaHoraHusoGenRegistro: `YYYY-MM-DDThh:mm:ss±hh:mm` in the system's local zone
// (Europe/Madrid on the peninsula, Atlantic/Canary in the Canaries). Pure: the instant is passed in.
//
// Hot path: Intl formatting costs microseconds, so the zone offset is computed once per zone and
// UTC minute (every tz transition falls on a whole minute) and the string is built by hand.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

interface ZoneCache {
  lastMinute: number;
  lastOffset: number;
  byMinute: Map<number, number>;
}
const caches = new Map<string, ZoneCache>();
const MINUTE = 60_000;

function computeOffsetMs(minuteStartMs: number, zone: string): number {
  let y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  for (const p of formatter(zone).formatToParts(minuteStartMs)) {
    switch (p.type) {
      case 'year': y = Number(p.value); break;
      case 'month': mo = Number(p.value); break;
      case 'day': d = Number(p.value); break;
      case 'hour': h = Number(p.value); break;
      case 'minute': mi = Number(p.value); break;
      case 'second': s = Number(p.value); break;
      default: break;
    }
  }
  return Date.UTC(y, mo - 1, d, h, mi, s) - minuteStartMs;
}

/** Offset of `zone` from UTC at `instant`, in milliseconds (e.g. +3_600_000 for CET). */
export function offsetMs(instant: Date, zone = 'Europe/Madrid'): number {
  const minute = Math.floor(instant.getTime() / MINUTE);
  let c = caches.get(zone);
  if (c === undefined) {
    c = { lastMinute: NaN, lastOffset: 0, byMinute: new Map() };
    caches.set(zone, c);
  }
  if (minute === c.lastMinute) return c.lastOffset;
  let off = c.byMinute.get(minute);
  if (off === undefined) {
    off = computeOffsetMs(minute * MINUTE, zone);
    if (c.byMinute.size >= 4096) c.byMinute.clear();
    c.byMinute.set(minute, off);
  }
  c.lastMinute = minute;
  c.lastOffset = off;
  return off;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function pad4(n: number): string {
  return n < 1000 ? String(n).padStart(4, '0') : String(n);
}

// Records issued in a burst share their second: remember the last one per zone.
const lastSecond = new Map<string, { second: number; text: string }>();

/** `YYYY-MM-DDThh:mm:ss±hh:mm` of `instant` in `zone` (seconds truncated). */
export function fechaHoraHusoGenRegistro(instant: Date, zone = 'Europe/Madrid'): string {
  const second = Math.floor(instant.getTime() / 1000);
  const last = lastSecond.get(zone);
  if (last !== undefined && last.second === second) return last.text;
  const text = formatFechaHora(instant, zone);
  if (last === undefined) lastSecond.set(zone, { second, text });
  else {
    last.second = second;
    last.text = text;
  }
  return text;
}

function formatFechaHora(instant: Date, zone: string): string {
  const off = offsetMs(instant, zone);
  const local = new Date(instant.getTime() + off);
  const offMin = Math.round(off / MINUTE);
  const sign = offMin < 0 ? '-' : '+';
  const abs = Math.abs(offMin);
  return (
    pad4(local.getUTCFullYear()) + '-' + pad2(local.getUTCMonth() + 1) + '-' + pad2(local.getUTCDate()) +
    'T' + pad2(local.getUTCHours()) + ':' + pad2(local.getUTCMinutes()) + ':' + pad2(local.getUTCSeconds()) +
    sign + pad2(Math.floor(abs / 60)) + ':' + pad2(abs % 60)
  );
}

// "Today" is asked for every record: remember the last answer per zone and UTC minute (a local
// date, like the zone offset, can only change on a whole minute).
const lastDate = new Map<string, { minute: number; text: string }>();

/** Local calendar date `dd-mm-aaaa` of `instant` in `zone` (e.g. "today" for the date rules). */
export function fechaLocalDdMmAaaa(instant: Date, zone = 'Europe/Madrid'): string {
  const minute = Math.floor(instant.getTime() / MINUTE);
  const last = lastDate.get(zone);
  if (last !== undefined && last.minute === minute) return last.text;
  const local = new Date(instant.getTime() + offsetMs(instant, zone));
  const text = pad2(local.getUTCDate()) + '-' + pad2(local.getUTCMonth() + 1) + '-' + pad4(local.getUTCFullYear());
  if (last === undefined) lastDate.set(zone, { minute, text });
  else {
    last.minute = minute;
    last.text = text;
  }
  return text;
}
