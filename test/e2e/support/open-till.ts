import type { Page } from 'playwright-core';
import { TillAppPage } from '../pages/app.page';
import { InvoicesPage } from '../pages/invoices.page';
import { SalePage } from '../pages/sale.page';
import { SettingsPage } from '../pages/settings.page';
import { SyncPage } from '../pages/sync.page';
import { launchTill, type Till, type TillBrowserOptions } from './chromium';
import type { Headless } from './headless';

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
