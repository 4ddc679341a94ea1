import { DEFAULT_TIME_ZONE } from '../i18n/format';

function parts(now: Date, timeZone: string, options: Intl.DateTimeFormatOptions) {
  const p = new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', ...options }).formatToParts(now);
  return (type: string) => p.find((x) => x.type === type)?.value ?? '';
}

/** Today's date in the shop's zone as dd-mm-aaaa (the invoice date AEAT expects). */
export function todayInMadrid(now: Date = new Date(), timeZone: string = DEFAULT_TIME_ZONE): string {
  const get = parts(now, timeZone, { day: '2-digit', month: '2-digit', year: 'numeric' });
  return `${get('day')}-${get('month')}-${get('year')}`;
}

/** hh:mm:ss (24-hour) in the shop's zone. */
export function timeInMadrid(now: Date = new Date(), timeZone: string = DEFAULT_TIME_ZONE): string {
  const get = parts(now, timeZone, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return `${get('hour')}:${get('minute')}:${get('second')}`;
}
