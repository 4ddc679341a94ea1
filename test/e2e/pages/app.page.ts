/** The till shell: opening it, the app-ready marker, navigation by keyboard, screenshots. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from '../support/headless';

export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'e2e');

const SCREEN_KEYS = { venta: '1', facturas: '2', sync: '3', ajustes: '4' } as const;
export type ScreenName = keyof typeof SCREEN_KEYS;

export class TillAppPage {
  constructor(readonly page: Page) {}

  /**
   * Opens the panel URL (with its ?token=) and waits for the app-ready marker. A fresh browser
   * profile first asks which till it is: it is registered as a new till named `caja`.
   */
  async open(panelUrl: string, caja = 'Caja de pruebas'): Promise<void> {
    await this.page.goto(panelUrl);
    await this.page.locator('[data-app-state="ready"], [data-app-state="identify"]').first().waitFor();
    if (await this.page.getByTestId('identity').count()) await this.identifyAsNew(caja);
    await this.ready();
  }

  /** First run: a new till with this name (the till makes up its identity). */
  async identifyAsNew(caja: string): Promise<void> {
    await this.page.getByTestId('identity-nombre').fill(caja);
    await this.page.getByTestId('identity-crear').click();
    await this.ready();
  }

  async ready(): Promise<void> {
    await this.page.locator('[data-app-state="ready"]').waitFor();
  }

  /** Alt+1…4, as staff switch screens. */
  async goTo(screen: ScreenName): Promise<void> {
    await this.page.keyboard.press(`Alt+${SCREEN_KEYS[screen]}`);
    await this.page.getByTestId(`screen-${screen}`).waitFor();
  }

  entorno() {
    return this.page.getByTestId('entorno');
  }

  currentUrl(): string {
    return this.page.url();
  }

  /** The in-app confirmation on screen (role=alertdialog): its question. */
  async confirmQuestion(): Promise<string> {
    const dialog = this.page.getByRole('alertdialog');
    await dialog.waitFor();
    return (await this.page.getByTestId('confirm-mensaje').textContent()) ?? '';
  }

  /** Answers the in-app confirmation by keyboard (Intro yes, Esc no) and waits for it to go. */
  async answerConfirm(yes: boolean): Promise<void> {
    await this.page.getByRole('alertdialog').waitFor();
    await this.page.keyboard.press(yes ? 'Enter' : 'Escape');
    await this.page.getByRole('alertdialog').waitFor({ state: 'detached' });
  }

  async screenshot(name: string): Promise<string> {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }
}
