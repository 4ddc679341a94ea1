/** The invoices screen: list, search, detail, reprint. */
import type { Page } from 'playwright-core';

export class InvoicesPage {
  constructor(readonly page: Page) {}

  rows() {
    return this.page.getByTestId('invoice-row');
  }

  row(numeroFactura: string) {
    return this.page.locator(`[data-testid="invoice-row"][data-numero="${numeroFactura}"]`);
  }

  async waitForRow(numeroFactura: string, estado: string, timeout = 30_000): Promise<void> {
    await this.page.locator(`[data-testid="invoice-row"][data-numero="${numeroFactura}"][data-estado="${estado}"]`).waitFor({ timeout });
  }

  /** "/" focuses the search (its text selected), typing replaces it. */
  async search(text: string): Promise<void> {
    await this.page.keyboard.press('/');
    await this.page.keyboard.press('ControlOrMeta+A');
    if (text) await this.page.keyboard.type(text);
    else await this.page.keyboard.press('Backspace');
  }

  async clearSearch(): Promise<void> {
    await this.search('');
    await this.page.keyboard.press('Tab');
  }

  /** "/" focuses the search, the number filters the list, ⏎ opens the first match. */
  async openByKeyboard(numeroFactura: string): Promise<void> {
    await this.search(numeroFactura);
    await this.row(numeroFactura).waitFor();
    await this.page.keyboard.press('Enter');
    await this.page.locator(`[data-testid="invoice-detail"]`, { hasText: numeroFactura }).waitFor();
  }

  detail() {
    return this.page.getByTestId('invoice-detail');
  }

  records() {
    return this.page.getByTestId('invoice-record');
  }

  async reprint(): Promise<void> {
    await this.page.getByTestId('invoice-reprint').click();
    await this.page.getByTestId('invoice-reprint-preview').getByTestId('receipt-qr').waitFor();
  }

  status() {
    return this.page.getByTestId('invoice-status');
  }

  async waitForStatus(estado: string, timeout = 30_000): Promise<void> {
    await this.page.locator(`[data-testid="invoice-status"][data-estado="${estado}"]`).waitFor({ timeout });
  }

  /** The estado filter ('' all; pendiente and rechazada are derived by the till). */
  async filterEstado(estado: string): Promise<void> {
    await this.page.getByTestId('invoices-estado').selectOption(estado);
  }

  /** Correct a rejected invoice (subsanar): the sale screen opens with its lines, same number. */
  async correct(): Promise<void> {
    await this.page.locator('[data-testid="invoice-correct"]:not([disabled])').click();
    await this.page.getByTestId('sale-mode').waitFor();
  }

  /** Refund (R5): the sale screen opens with the ticket's lines negated. */
  async refund(): Promise<void> {
    await this.page.getByTestId('invoice-refund').click();
    await this.page.getByTestId('sale-mode').waitFor();
  }

  /** Cancel: confirms the dialog; the cancellation is issued at once. */
  async cancel(): Promise<void> {
    await this.page.getByTestId('invoice-cancel').click();
    // The in-app confirmation: Intro confirms.
    await this.page.getByRole('alertdialog').waitFor();
    await this.page.keyboard.press('Enter');
    await this.page.getByRole('alertdialog').waitFor({ state: 'detached' });
  }

  reprintQr() {
    return this.page.getByTestId('invoice-reprint-preview').getByTestId('receipt-qr');
  }
}
