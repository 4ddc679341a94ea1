// The page's address, session storage, language and print, reached through `globalThis` with the
// few members used written out: the stores that use them type-check (and run in tests) without
// the DOM library, like storage.ts.

interface PageGlobals {
  location?: { href: string; hash: string };
  history?: { replaceState(data: unknown, unused: string, url?: string): void };
  sessionStorage?: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  document?: { documentElement: { lang: string } };
  print?: () => void;
}

const page = () => globalThis as unknown as PageGlobals;

export function pageHref(): string {
  return page().location?.href ?? 'http://localhost/';
}

export function pageHash(): string {
  return page().location?.hash ?? '';
}

/** Changes the address bar without a navigation (drops the token, follows the screen). */
export function replacePageUrl(url: string): void {
  page().history?.replaceState(null, '', url);
}

export function sessionGet(key: string): string | null {
  return page().sessionStorage?.getItem(key) ?? null;
}

export function sessionSet(key: string, value: string): void {
  page().sessionStorage?.setItem(key, value);
}

export function setPageLang(lang: string): void {
  const doc = page().document;
  if (doc) doc.documentElement.lang = lang;
}

/** The browser's print of the page (the print stylesheet shows only the ticket). */
export function printPage(): void {
  page().print?.();
}
