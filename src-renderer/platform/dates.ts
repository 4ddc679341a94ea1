/** Today's date in Europe/Madrid as dd-mm-aaaa (the invoice date AEAT expects). */
export function todayInMadrid(now: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Madrid', day: '2-digit', month: '2-digit', year: 'numeric' }).formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('day')}-${get('month')}-${get('year')}`;
}

/** hh:mm:ss in Europe/Madrid. */
export function timeInMadrid(now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Madrid', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(now);
}

/** An ISO timestamp shown in local Madrid time, short. */
export function formatTimestamp(iso: string | null | undefined, locale = 'es-ES'): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { timeZone: 'Europe/Madrid', dateStyle: 'short', timeStyle: 'medium' }).format(d);
}
