// Numbers, dates and times as staff read them: the UI language decides the separators and the
// shop's time zone (Ajustes, Europe/Madrid by default) the clock — never the browser's locale or zone.
import Decimal from 'decimal.js';
import type { Lang } from './dict';

/** The Intl locale of each UI language; Basque and Spanish read a 24-hour clock, and so does English here. */
export const INTL_LOCALE: Record<Lang, string> = { es: 'es-ES', eu: 'eu-ES', en: 'en-GB' };

export const DEFAULT_TIME_ZONE = 'Europe/Madrid';

/** The zones a Spanish shop can be in (the Canaries keep their own clock). */
export const TIME_ZONES = ['Europe/Madrid', 'Atlantic/Canary'] as const;

/**
 * A decimal string for display: thousands grouped (also in four-digit amounts, as on a till) and
 * the language's separators; `decimals` fixes the decimals (money: 2), else they are kept as typed.
 */
export function formatDecimal(lang: Lang, value: string | undefined, decimals?: number): string {
  if (value === undefined || value === '') return '';
  let text: string;
  if (decimals === undefined) {
    // Kept as written ("5.70" stays 5,70): only grouped and given the language's marks.
    if (!/^-?\d+(\.\d+)?$/.test(value)) return value;
    text = value;
  } else {
    try {
      text = new Decimal(value).toFixed(decimals, Decimal.ROUND_HALF_UP);
    } catch {
      return value;
    }
  }
  const negative = text.startsWith('-');
  const [int = '0', frac] = (negative ? text.slice(1) : text).split('.');
  const [group, point] = lang === 'en' ? [',', '.'] : ['.', ','];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${negative ? '-' : ''}${grouped}${frac !== undefined ? `${point}${frac}` : ''}`;
}

/** Money: two decimals, grouped. */
export function formatMoney(lang: Lang, value: string | undefined): string {
  return formatDecimal(lang, value, 2);
}

function dateTimeFormat(lang: Lang, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(INTL_LOCALE[lang], { timeZone, hourCycle: 'h23', ...options });
}

function valid(iso: string | Date | null | undefined): Date | undefined {
  if (!iso) return undefined;
  const d = iso instanceof Date ? iso : new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** dd/mm/aaaa hh:mm:ss in the shop's zone. */
export function formatDateTime(lang: Lang, timeZone: string, iso: string | Date | null | undefined): string {
  const d = valid(iso);
  if (!d) return '—';
  const date = dateTimeFormat(lang, timeZone, { day: '2-digit', month: '2-digit', year: 'numeric' }).formatToParts(d);
  const part = (type: string) => date.find((p) => p.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')} ${formatTime(lang, timeZone, d)}`;
}

/** hh:mm:ss, 24-hour, in the shop's zone. */
export function formatTime(lang: Lang, timeZone: string, iso: string | Date | null | undefined): string {
  const d = valid(iso);
  if (!d) return '—';
  return dateTimeFormat(lang, timeZone, { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(d);
}

/** How long ago, in whole minutes/hours/days, as words of the language ("hace 5 min"). */
export function formatAge(lang: Lang, fromIso: string | null | undefined, now: Date): string {
  const d = valid(fromIso);
  if (!d) return '—';
  const seconds = Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000));
  const rtf = new Intl.RelativeTimeFormat(INTL_LOCALE[lang], { numeric: 'always', style: 'short' });
  if (seconds < 60) return rtf.format(-seconds, 'second');
  if (seconds < 3600) return rtf.format(-Math.floor(seconds / 60), 'minute');
  if (seconds < 86_400) return rtf.format(-Math.floor(seconds / 3600), 'hour');
  return rtf.format(-Math.floor(seconds / 86_400), 'day');
}

/** dd/mm/aaaa typed by staff → yyyy-mm-dd, or null when it is not a real date. '' stays ''. */
export function parseFechaTecleada(text: string): string | null {
  const t = text.trim();
  if (t === '') return '';
  const m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(t);
  if (!m) return null;
  const [, dd = '', mm = '', yyyy = ''] = m;
  const d = new Date(Date.UTC(Number(yyyy), Number(mm) - 1, Number(dd)));
  if (d.getUTCFullYear() !== Number(yyyy) || d.getUTCMonth() !== Number(mm) - 1 || d.getUTCDate() !== Number(dd)) return null;
  return `${yyyy}-${mm.padStart(2, '0')}-${dd.padStart(2, '0')}`;
}

/** yyyy-mm-dd → dd/mm/aaaa. */
export function fechaParaTeclear(iso: string): string {
  const [y, m, d] = iso.split('-');
  return iso ? `${d}/${m}/${y}` : '';
}

/** The engine's dd-mm-aaaa → dd/mm/aaaa, as every date on screen reads. */
export function formatFechaMotor(fecha: string | undefined): string {
  return fecha ? fecha.replaceAll('-', '/') : '—';
}
