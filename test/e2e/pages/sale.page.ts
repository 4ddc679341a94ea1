/** The sale screen, driven by the keyboard only. */
import type { Page } from 'playwright-core';

export class SalePage {
  constructor(readonly page: Page) {}

  root() {
    return this.page.getByTestId('screen-venta');
  }

  description() {
    return this.page.getByTestId('entry-descripcion');
  }

  /** description ⏎ quantity ⏎ price ⏎ VAT ⏎ — the line is added and the description has focus again. */
  async typeLine(descripcion: string, cantidad: string, precio: string, tipoIva: string): Promise<void> {
    const k = this.page.keyboard;
    await k.type(descripcion);
    await k.press('Enter');
    await k.type(cantidad);
    await k.press('Enter');
    await k.type(precio);
    await k.press('Enter');
    await k.type(tipoIva);
    await k.press('Enter');
  }

  /** The data-testid of the element with keyboard focus. */
  async focusedField(): Promise<string | null> {
    return (await this.page.evaluate("document.activeElement && document.activeElement.getAttribute('data-testid')")) as string | null;
  }

  /** F4 opens the customer (full invoice F1): NIF ⏎ name ⏎ — focus returns to the lines. */
  async typeCustomer(nif: string, nombre: string): Promise<void> {
    await this.page.keyboard.press('F4');
    await this.page.getByTestId('cliente-nif').waitFor();
    await this.page.keyboard.type(nif);
    await this.page.keyboard.press('Enter');
    await this.page.keyboard.type(nombre);
    await this.page.keyboard.press('Enter');
  }

  customerCheck() {
    return this.page.getByTestId('cliente-check');
  }

  tipo() {
    return this.page.getByTestId('sale-tipo');
  }

  mode() {
    return this.page.getByTestId('sale-mode');
  }

  lines() {
    return this.page.getByTestId('sale-line');
  }

  total() {
    return this.page.getByTestId('sale-total');
  }

  /** Waits for the running total to read `text` (e.g. "5,70 €"). */
  async waitForTotal(text: string): Promise<void> {
    await this.page.locator('[data-testid="sale-total"]', { hasText: text }).waitFor();
  }

  /** ⏎ on the empty description completes the sale; resolves when its answer is on screen. */
  async completeWithEnter(): Promise<string> {
    const before = (await this.page.getByTestId('sale-result').getAttribute('data-id-factura')) ?? '';
    await this.page.keyboard.press('Enter');
    const result = this.page.locator(`[data-testid="sale-result"][data-id-factura]:not([data-id-factura="${before}"])`);
    await result.waitFor();
    return (await result.getAttribute('data-id-factura')) ?? '';
  }

  /** ⏎ issues the correction (subsanar): same invoice, so it resolves when the mode is left. */
  async completeCorrectionWithEnter(): Promise<void> {
    await this.page.keyboard.press('Enter');
    await this.page.getByTestId('sale-mode').waitFor({ state: 'detached' });
  }

  /** The warnings (avisos) of the last answer, if any. */
  avisos() {
    return this.page.getByTestId('sale-avisos');
  }

  numero() {
    return this.page.getByTestId('sale-numero');
  }

  async waitForStatus(estado: string, timeout = 30_000): Promise<void> {
    await this.page.locator(`[data-testid="sale-status"][data-estado="${estado}"]`).waitFor({ timeout });
  }

  status() {
    return this.page.getByTestId('sale-status');
  }

  receipt() {
    return this.page.getByTestId('sale-result').getByTestId('receipt');
  }

  qr() {
    return this.page.getByTestId('sale-result').getByTestId('receipt-qr');
  }

  qrLabel() {
    return this.receipt().getByText('QR tributario:', { exact: true });
  }

  qrLegend() {
    return this.receipt().getByTestId('receipt-legend');
  }

  error() {
    return this.page.getByTestId('sale-error');
  }
}
