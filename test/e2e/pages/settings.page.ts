/** Settings and support. */
import type { Page } from 'playwright-core';

export class SettingsPage {
  constructor(readonly page: Page) {}

  async setLanguage(lang: 'es' | 'eu' | 'en'): Promise<void> {
    await this.page.getByTestId('settings-lang').selectOption(lang);
  }

  idMaquina() {
    return this.page.getByTestId('settings-idmaquina');
  }

  dataDir() {
    return this.page.getByTestId('settings-datadir');
  }

  heading() {
    return this.page.getByTestId('screen-ajustes').locator('h1');
  }

  /** Creates an API key for POS software; resolves with the key shown once. */
  async createKey(entorno: 'test' | 'live'): Promise<string> {
    await this.page.getByTestId(`settings-new-key-${entorno}`).click();
    const shown = this.page.getByTestId('settings-new-key').locator('code');
    await shown.waitFor();
    return (await shown.textContent()) ?? '';
  }
}
