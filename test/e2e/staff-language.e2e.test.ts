/**
 * Issue 14 end to end: the till speaks the staff's language, explains every refusal and never
 * shows a state that is not true. One headless start (`npm start`'s serve.ts with its emulators);
 * the Spanish UI in a browser set to en-US and UTC at 1366×768, so nothing may lean on the
 * browser's locale or zone. Every wait is on the UI's markers and aria-live text, never a sleep.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ScreenName, TillAppPage } from './pages/app.page';
import type { InvoicesPage } from './pages/invoices.page';
import type { SalePage } from './pages/sale.page';
import type { SyncPage } from './pages/sync.page';
import type { Till } from './support/chromium';
import { openTill, useHeadlessTill } from './support/open-till';

/** English UI words and raw engine values that must never reach a Spanish screen. */
const DENY = [
  /\b(Cancel|Retry|Loading|Updated|Pending|Rejected|Registered|Queue|Settings|Invoices?|Sale|Sync|Unreachable|Reachable|Error:)\b/,
  /\b(none|down|slow|true|false|undefined|null|NaN|Invalid Date|TEST|LIVE)\b/,
  /\b(pendiente_envio|pendiente_proceso|pendiente_respuesta|en_cola|en_lote|procesando|aceptada_con_errores|no_identificado|identificado_baja|respondido|anulacion_pendiente|anulacion|idMaquina|ParcialmenteCorrecto|Correcto|Incorrecto)\b/,
  /ECONNRESET|ECONNREFUSED|test\|aeat\||VALIDATION_ERROR|INVOICE_[A-Z_]+/,
];
/** A 12-hour clock in any form ("1:54:56 PM", "p. m."). */
const TWELVE_HOUR = /\d{1,2}:\d{2}(:\d{2})?\s?(AM|PM|a\.\s?m\.|p\.\s?m\.)/i;

let till: Till;
let page: Page;
let app: TillAppPage;
let sale: SalePage;
let invoices: InvoicesPage;
let sync: SyncPage;
let numero = '';

/** The visible text of the screen, technical details folded away (they are support's). */
async function screenText(): Promise<string> {
  // A string, as the other e2e files do: the test compiles without the DOM library.
  return (await page.evaluate(`(() => {
    const root = document.querySelector('[data-app-state="ready"]')?.cloneNode(true);
    if (!root) return '';
    root.querySelectorAll('details:not([open]) > :not(summary), .problem-detail, .receipt, .xml, code').forEach((e) => e.remove());
    return root.innerText;
  })()`)) as string;
}

async function expectSpanishOnly(screen: ScreenName): Promise<void> {
  const text = await screenText();
  expect(text.length, screen).toBeGreaterThan(50);
  for (const re of DENY) expect(text, `${screen}: ${re}`).not.toMatch(re);
  expect(text, screen).not.toMatch(TWELVE_HOUR);
}

useHeadlessTill({
  screenshotPrefix: 'FALLO-14-',
  open: async (started) => {
    ({ till, page, app, sale, invoices, sync } = await openTill(started, { locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1366, height: 768 } }));
  },
  opened: () => ({ till, app }),
});

describe('2. Every refused input explained next to its field; every risky action confirmed', () => {
  it('letters, 1e3, 99999999999 and 0 say why next to the field (aria-describedby, announced)', async () => {
    await sale.description().waitFor();
    const k = page.keyboard;
    const motivo = page.getByTestId('draft-motivo');
    await k.type('Café');
    await k.press('Enter');
    await k.type('0');
    await k.press('Enter');
    // Refused as Enter leaves the field (issue 29): the quantity, not a field later.
    await page.locator('[data-testid="draft-motivo"][data-campo="cantidad"]', { hasText: 'La cantidad no puede ser 0.' }).waitFor();
    expect(await sale.focusedField()).toBe('entry-cantidad');
    expect(await motivo.getAttribute('aria-live')).toBe('assertive');
    expect(await page.getByTestId('entry-cantidad').getAttribute('aria-describedby')).toBe('draft-motivo');
    await page.getByTestId('entry-cantidad').fill('1');
    await k.press('Enter');
    await k.type('abc');
    await k.press('Enter');
    await page.locator('[data-testid="draft-motivo"][data-campo="precio"]', { hasText: 'Solo cifras' }).waitFor();
    expect(await sale.focusedField()).toBe('entry-precio');
    for (const [typed, why] of [
      ['1e3', 'Solo cifras'],
      ['99999999999', 'demasiado grande'],
      ['2,555', 'Como mucho 2 decimales'],
    ] as const) {
      await page.getByTestId('entry-precio').fill(typed);
      await page.getByTestId('entry-precio').press('Enter');
      await page.locator('[data-testid="draft-motivo"][data-campo="precio"]', { hasText: why }).waitFor();
      expect(await page.getByTestId('entry-precio').getAttribute('aria-invalid')).toBe('true');
    }
    expect(await sale.lines().count()).toBe(0);
  });

  it('the Spanish form 1.234,56 is accepted; over 3.000 € as F2 is said while building; Esc asks first', async () => {
    await page.getByTestId('entry-precio').fill('1.234,56');
    await page.getByTestId('entry-tipoIva').press('Enter');
    await sale.waitForTotal('1.234,56');
    expect(await page.getByTestId('sale-limite-f2').count()).toBe(0);
    await sale.typeLine('Portátil', '2', '1.000,00', '21');
    await page.getByTestId('sale-limite-f2').filter({ hasText: 'pulse F4 para una factura completa' }).waitFor();
    expect(await page.getByTestId('sale-limite-f2').getAttribute('role')).toBe('status');
    // Esc on a sale with lines asks (in the till, not the browser's dialog); Esc keeps them, Intro clears.
    await page.keyboard.press('Escape');
    expect(await app.confirmQuestion()).toBe('¿Vaciar la venta? Se quitarán sus 2 líneas.');
    await app.answerConfirm(false);
    expect(await sale.lines().count()).toBe(2);
    await page.keyboard.press('Escape');
    await app.answerConfirm(true);
    await page.getByTestId('sale-line').first().waitFor({ state: 'detached' });
  });

  it('a description near 120 characters is counted and the limit is said', async () => {
    await sale.description().fill('x'.repeat(110));
    await page.getByTestId('draft-descripcion-cuenta').filter({ hasText: '110 de 120 caracteres' }).waitFor();
    await sale.description().fill('');
    await page.keyboard.type('y'.repeat(130));
    expect((await sale.description().inputValue()).length).toBe(120);
    await page.getByTestId('draft-descripcion-cuenta').filter({ hasText: 'Máximo 120 caracteres' }).waitFor();
    await sale.description().fill('');
  });

  it('a 0,00 € sale asks first; dismissed, nothing is issued; «Quitar» is reachable by Tab', async () => {
    await sale.description().focus();
    await sale.typeLine('Regalo', '1', '0', '21');
    await page.getByTestId('sale-line-remove').focus();
    expect(await sale.focusedField()).toBe('sale-line-remove');
    expect(await page.getByTestId('sale-line-remove').getAttribute('tabindex')).toBeNull();
    await sale.description().focus();
    await page.keyboard.press('Enter');
    expect(await app.confirmQuestion()).toBe('La venta suma 0,00 €. ¿Registrarla igualmente?');
    await app.answerConfirm(false);
    expect(await page.getByTestId('sale-result').getAttribute('data-id-factura')).toBe('');
    await page.getByTestId('sale-line-remove').click();
    await page.getByTestId('sale-line').first().waitFor({ state: 'detached' });
  });
});

describe('1 and 8. Refusals in words, statuses announced, the favicon served', () => {
  it('a sale is registered; its status is in an aria-live region; 24-hour time on the ticket', async () => {
    await sale.description().focus();
    await sale.typeLine('Café con leche', '2', '1,60', '10');
    await sale.completeWithEnter();
    numero = (await sale.numero().textContent()) ?? '';
    await sale.waitForStatus('registrada');
    expect(await sale.status().textContent()).toBe('Registrada');
    expect(await page.locator('dd[aria-live="polite"]').getByTestId('sale-status').count()).toBe(1);
    expect(await sale.receipt().textContent()).not.toMatch(TWELVE_HOUR);
  });

  it('favicon served beside the UI', async () => {
    const res = await page.evaluate(`fetch('/favicon.svg').then((r) => ({ status: r.status, type: r.headers.get('content-type') }))`);
    expect(res).toEqual({ status: 200, type: 'image/svg+xml' });
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
  });

  it('invoice rows are reachable and opened by keyboard (a button, not a plain cell)', async () => {
    await app.goTo('facturas');
    await invoices.waitForRow(numero, 'registrada');
    const open = invoices.row(numero).getByTestId('invoice-open');
    await open.focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="invoice-detail"]', { hasText: numero }).waitFor();
    expect(await open.getAttribute('aria-label')).toBe(`Abrir la factura ${numero}`);
  });
});

describe('3 and 4. The cancel flow follows the real record states through an AEAT outage', () => {
  it('AEAT down: the sale screen and the sync view say it at once, with the error in words', async () => {
    await app.goTo('sync');
    await sync.waitLoaded();
    await sync.takeAeatDown();
    // A sale while AEAT is down: it is kept and queued.
    await app.goTo('venta');
    await sale.typeLine('Tostada', '1', '2,50', '10');
    await sale.completeWithEnter();
    await sale.waitForStatus('pendiente_envio');
    expect(await sale.status().textContent()).toBe('Pendiente de envío');
    await page.getByTestId('sale-autoridad-caida').filter({ hasText: 'Sin conexión con AEAT (VeriFactu)' }).waitFor({ timeout: 30_000 });
    await app.goTo('sync');
    await sync.waitUnreachable('aeat', 'test');
    const aeat = page.locator('[data-testid="sync-authority"][data-autoridad="aeat"][data-entorno="test"]');
    expect(await aeat.getByTestId('sync-authority-estado').textContent()).toBe('No accesible');
    await aeat.getByTestId('sync-authority-pendientes').filter({ hasText: /^[1-9]/ }).waitFor();
    await aeat.getByTestId('sync-authority-antiguo').waitFor();
    expect(await aeat.getByTestId('sync-authority-error').textContent()).toMatch(/^(No se pudo conectar con la autoridad|La autoridad)/);
    expect(await page.getByTestId('sync-fault-mode-aeat').textContent()).toBe('Caído (no responde)');
    await expectSpanishOnly('sync');
    await app.screenshot('14-sync-aeat-caida');
  });

  it('Anular while AEAT is down: «Anulación pendiente de envío», the button disabled — not «Anulada»', async () => {
    await app.goTo('facturas');
    await invoices.openByKeyboard(numero);
    await invoices.waitForStatus('registrada');
    await invoices.cancel();
    await invoices.waitForStatus('anulacion_pendiente');
    expect(await invoices.status().textContent()).toBe('Anulación pendiente de envío');
    expect(await page.getByTestId('invoice-cancel').isDisabled()).toBe(true);
    await invoices.waitForRow(numero, 'anulacion_pendiente');
    expect(await page.getByTestId('invoice-mensaje').textContent()).toBe('Anulación pendiente de envío');
    await expectSpanishOnly('facturas');
    await app.screenshot('14-anulacion-pendiente');
  });

  it('AEAT back: the cancellation is accepted, «Anulada», still no second cancellation', async () => {
    await app.goTo('sync');
    await sync.bringAeatUp();
    await sync.retryNow();
    await page.locator('[data-testid="sync-authority"][data-autoridad="aeat"][data-alcanzable="true"]').waitFor({ timeout: 30_000 });
    await app.goTo('facturas');
    await invoices.openByKeyboard(numero);
    await invoices.waitForStatus('anulada', 30_000);
    expect(await invoices.status().textContent()).toBe('Anulada');
    expect(await page.getByTestId('invoice-cancel').isDisabled()).toBe(true);
    await invoices.waitForRow(numero, 'anulada');
    await app.goTo('venta');
    await page.getByTestId('sale-autoridad-caida').waitFor({ state: 'detached' });
  });

  it('«Verificar cadenas» answers in words (or says the engine lacks it), never raw', async () => {
    await app.goTo('sync');
    await sync.waitLoaded();
    await page.getByTestId('sync-verificar').click();
    await page.locator('[data-testid="sync-cadenas"], [data-testid="sync-error"]').first().waitFor();
    await expectSpanishOnly('sync');
  });
});

describe('5 and 6. Receipts in the shop’s document language; dates and times in the UI language and shop zone', () => {
  it('the ticket follows the receipt language setting while the screens stay Spanish', async () => {
    await app.goTo('ajustes');
    await page.getByTestId('settings-idioma-ticket').selectOption('eu');
    await app.goTo('venta');
    await sale.typeLine('Ogia', '1', '1,20', '4');
    await sale.completeWithEnter();
    expect(await sale.receipt().getByTestId('receipt-titulo').textContent()).toBe('FAKTURA SINPLIFIKATUA');
    expect(await page.getByTestId('sale-titulo').textContent()).toBe('Nueva venta');
    await app.goTo('ajustes');
    await page.getByTestId('settings-idioma-ticket').selectOption('es');
  });

  it('date filters are our own dd/mm/aaaa fields; a wrong date is said', async () => {
    await app.goTo('facturas');
    const desde = page.getByTestId('invoices-desde');
    expect(await desde.getAttribute('type')).toBeNull();
    expect(await desde.getAttribute('placeholder')).toBe('dd/mm/aaaa');
    await desde.fill('31/02/2026');
    await desde.press('Enter');
    await page.getByTestId('invoices-desde-error').filter({ hasText: 'Fecha no válida' }).waitFor();
    await desde.fill('');
    await desde.press('Enter');
    await page.getByTestId('invoices-desde-error').waitFor({ state: 'detached' });
  });

  it('no English word, raw value or 12-hour time on any screen (en-US browser, UTC clock)', async () => {
    for (const screen of ['venta', 'facturas', 'sync', 'ajustes'] as const) {
      await app.goTo(screen);
      if (screen === 'sync') await sync.waitLoaded();
      await expectSpanishOnly(screen);
    }
    // The sync view's clock is Madrid's, not the browser's UTC.
    await app.goTo('sync');
    await page.getByTestId('sync-actualizado').filter({ hasText: /\d{2}:\d{2}:\d{2}$/ }).waitFor();
  });
});

describe('Issue 30: LIVE filed to the emulators is never shown as filed with the AEAT', () => {
  it('in LIVE every screen says, in Spanish, that LIVE goes to the emulators; in TEST nothing is said', async () => {
    const banner = page.getByTestId('live-en-emulador');
    await app.goTo('ajustes');
    expect(await banner.count()).toBe(0);
    await page.getByTestId('settings-entorno').selectOption('live');
    await banner.waitFor();
    for (const screen of ['venta', 'facturas', 'sync', 'ajustes'] as const) {
      await app.goTo(screen);
      expect(await banner.textContent(), screen).toContain('no a la AEAT');
      await expectSpanishOnly(screen);
    }
    await app.goTo('ajustes');
    await page.getByTestId('settings-entorno').selectOption('test');
    await banner.waitFor({ state: 'detached' });
  });
});
