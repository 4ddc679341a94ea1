/** Debian's Chromium through playwright-core (no browser download); every launch has a fresh profile. */
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Till {
  browser: Browser;
  context: BrowserContext;
  close(): Promise<void>;
}

/** The browser's own settings: a till must not depend on them (issue 14 runs en-US/UTC too). */
export interface TillBrowserOptions {
  locale?: string;
  timezoneId?: string;
  viewport?: { width: number; height: number };
}

export async function launchTill(options: TillBrowserOptions = {}): Promise<Till> {
  // playwright's launch() gives Chromium a new temporary user-data dir each time.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1440, height: 960 },
    // 2 device pixels per CSS pixel: the 35 mm QR gets whole pixels per module in screenshots.
    deviceScaleFactor: 2,
    locale: options.locale ?? 'es-ES',
    timezoneId: options.timezoneId ?? 'Europe/Madrid',
  });
  return { browser, context, close: () => browser.close() };
}
