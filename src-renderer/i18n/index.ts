import { DICTS, LANGS, type Lang, type MessageKey } from './dict';
import { formatDecimal } from './format';

export { LANGS, type Lang, type MessageKey } from './dict';

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/** Keys screens build from data (an engine state, an environment…): checked at run time only. */
export type DynamicKey = `${'estado' | 'entorno' | 'regimen' | 'emulador' | 'censo' | 'registro' | 'tipo' | 'lote' | 'respuesta' | 'modo' | 'problema' | 'sistema' | 'ticket' | 'zona' | 'cliente' | 'webhook' | 'impresora' | 'fase' | 'modoCadena'}.${string}`;

const pluralRules = new Map<Lang, Intl.PluralRules>();

/**
 * A message with a count `{n}` has its singular as `key|one` (Intl.PluralRules of the language):
 * «Se quitará su línea», never «sus 1 líneas». Keys without plural forms are used as they are.
 */
function pluralKey(lang: Lang, key: MessageKey, vars: Record<string, string | number>): MessageKey {
  if (typeof vars.n !== 'number') return key;
  let rules = pluralRules.get(lang);
  if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(lang)));
  const form = `${key}|${rules.select(vars.n)}` as MessageKey;
  return form in DICTS[lang] || form in DICTS.es ? form : key;
}

/** Keys already reported missing: a screen re-renders often, the log says it once. */
const reportedMissing = new Set<string>();

/** Where a missing key is reported (tests replace it). */
export const i18nLog: { warn: (message: string) => void } = { warn: (message) => console.warn(message) };

/**
 * The message in `lang` (Spanish when missing), with `{name}` placeholders filled. Screens build
 * some keys from data (`estado.${x}`): a key no catalogue has shows as itself, never throws.
 */
export function translate(lang: Lang, key: MessageKey | DynamicKey, vars: Record<string, string | number> = {}): string {
  const k = pluralKey(lang, key as MessageKey, vars);
  const text = DICTS[lang][k] ?? DICTS.es[k];
  if (text === undefined) {
    if (!reportedMissing.has(key)) {
      reportedMissing.add(key);
      i18nLog.warn(`i18n: falta la clave «${key}»`);
    }
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** A decimal string for display, grouped, with the language's separators ("1234.5" → "1.234,5"). */
export function formatAmount(lang: Lang, value: string | undefined): string {
  return formatDecimal(lang, value);
}

/** Whether a catalogue has the key (screens built from data fall back to a general word instead). */
export function hasMessage(key: string): boolean {
  return key in DICTS.es;
}

export { formatDecimal, formatMoney } from './format';
