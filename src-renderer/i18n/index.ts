import { DICTS, LANGS, type Lang, type MessageKey } from './dict';

export { LANGS, type Lang, type MessageKey } from './dict';

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/** The message in `lang` (Spanish when missing), with `{name}` placeholders filled. */
export function translate(lang: Lang, key: MessageKey, vars: Record<string, string | number> = {}): string {
  const text = DICTS[lang][key] ?? DICTS.es[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** Formats a decimal string for display with the locale's separator ("12.10" → "12,10"). */
export function formatAmount(lang: Lang, value: string | undefined): string {
  if (value === undefined) return '';
  return lang === 'en' ? value : value.replace('.', ',');
}
