import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { TillAppPage } from '../pages/app.page';
import { InvoicesPage } from '../pages/invoices.page';
import { SalePage } from '../pages/sale.page';
import { SettingsPage } from '../pages/settings.page';
import { SyncPage } from '../pages/sync.page';
import { launchTill, type Till, type TillBrowserOptions } from './chromium';
import { ensureUiBuilt, startHeadless, type Headless } from './headless';

/** A fresh browser till opened on the headless engine's panel, with one page object per screen. */
export interface OpenTill {
  till: Till;
  page: Page;
  app: TillAppPage;
  sale: SalePage;
  invoices: InvoicesPage;
  sync: SyncPage;
  settings: SettingsPage;
}

export async function openTill(server: Headless, options: TillBrowserOptions = {}): Promise<OpenTill> {
  const till = await launchTill(options);
  const page = await till.context.newPage();
  page.setDefaultTimeout(20_000);
  const app = new TillAppPage(page);
  const opened = { till, page, app, sale: new SalePage(page), invoices: new InvoicesPage(page), sync: new SyncPage(page), settings: new SettingsPage(page) };
  await app.open(server.keys.panelUrl);
  return opened;
}

/**
 * The frame of an e2e file on one headless start: before its tests the UI is built, the start
 * launched and handed to `open` (which opens the file's browser till); a failed test leaves a
 * picture of the screen it failed on (`<screenshotPrefix><test name>`); after them the browser
 * closes and the start stops cleanly (exit 0). `opened` reads the file's till and app page, unset
 * while `open` has not set them.
 */
export function useHeadlessTill(options: {
  screenshotPrefix: string;
  open: (server: Headless) => Promise<void>;
  opened: () => { till: Till | undefined; app: TillAppPage | undefined };
}): void {
  let server: Headless | undefined;
  beforeAll(async () => {
    ensureUiBuilt();
    server = await startHeadless();
    await options.open(server);
  }, 90_000);
  afterEach(async (ctx) => {
    const { app } = options.opened();
    if (ctx.task.result?.state === 'fail' && app) await app.screenshot(`${options.screenshotPrefix}${ctx.task.name.slice(0, 40).replace(/[^A-Za-z0-9]+/g, '-')}`);
  });
  afterAll(async () => {
    await options.opened().till?.close();
    if (server) expect(await server.stop()).toBe(0);
  });
}
