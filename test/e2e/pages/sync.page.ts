/** The sync view: queue by estadoEnvio, authorities, retry now, pause, and the emulators' faults. */
import type { Page } from 'playwright-core';

export class SyncPage {
  constructor(readonly page: Page) {}

  async waitLoaded(): Promise<void> {
    await this.page.locator('[data-testid="screen-sync"][data-ready="true"]').waitFor();
  }

  /** Unfolds «Ensayo de incidencias» (the emulators' fault controls stay folded until asked for). */
  async openRehearsal(): Promise<void> {
    const ensayo = this.page.getByTestId('sync-ensayo');
    await ensayo.waitFor();
    if ((await ensayo.getAttribute('open')) === null) await ensayo.locator('summary').click();
  }

  async takeAeatDown(): Promise<void> {
    await this.openRehearsal();
    await this.page.getByTestId('sync-aeat-down').click();
    await this.page.locator('[data-testid="sync-faults-aeat"][data-mode="down"]').waitFor();
  }

  async bringAeatUp(): Promise<void> {
    await this.openRehearsal();
    await this.page.getByTestId('sync-aeat-up').click();
    await this.page.locator('[data-testid="sync-faults-aeat"][data-mode="none"]').waitFor();
  }

  /** AEAT answers the next record Incorrecto (code 1100). */
  async rejectNextAeat(): Promise<void> {
    await this.openRehearsal();
    await this.page.getByTestId('sync-aeat-reject-next').click();
    await this.page.locator('[data-testid="sync-faults-aeat"][data-reject-next="1"]').waitFor();
  }

  /** The fault cards shown, by emulator id. */
  async faultCards(): Promise<string[]> {
    await this.openRehearsal();
    await this.page.locator('[data-testid="sync-faults-aeat"]').waitFor();
    const ids = await this.page.locator('[data-testid^="sync-faults-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid') ?? ''));
    return ids.map((id) => id.replace('sync-faults-', ''));
  }

  /** Pause or resume filing of an environment, and wait for the engine's state to show it. */
  async togglePause(entorno: 'test' | 'live', pausado: boolean): Promise<void> {
    await this.page.getByTestId(`sync-pause-${entorno}`).click();
    await this.page.locator(`[data-testid="sync-entorno-${entorno}"][data-pausado="${pausado}"]`).waitFor();
  }

  async retryNow(): Promise<void> {
    await this.page.getByTestId('sync-retry').click();
  }

  /** Waits until `n` records of the environment are still in flight (not yet concluded). */
  async waitInFlight(entorno: 'test' | 'live', n: number, timeout = 30_000): Promise<void> {
    await this.page.locator(`[data-testid="sync-entorno-${entorno}"][data-en-vuelo="${n}"]`).waitFor({ timeout });
  }

  async inFlight(entorno: 'test' | 'live'): Promise<number> {
    return Number(await this.page.getByTestId(`sync-entorno-${entorno}`).getAttribute('data-en-vuelo'));
  }

  async waitUnreachable(autoridad = 'aeat', entorno: 'test' | 'live' = 'test', timeout = 30_000): Promise<void> {
    await this.page.locator(`[data-testid="sync-authority"][data-autoridad="${autoridad}"][data-entorno="${entorno}"][data-alcanzable="false"]`).waitFor({ timeout });
  }

  /** «Verificar cadenas»: resolves when its answer is shown. */
  async verifyChains(): Promise<void> {
    await this.page.getByTestId('sync-verificar').click();
    await this.page.getByTestId('sync-cadenas').waitFor();
  }
}
