/**
 * The till UI end to end: Debian's Chromium (playwright-core) against the real headless start
 * (`npm start`'s engine/src/bin/serve.ts: engine + AEAT emulator + the built UI beside the panel).
 * Every wait is on the UI's own markers (data-app-state, data-estado, data-en-vuelo…), never a sleep.
 * Screenshots of every screen go to test-artifacts/e2e/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, type TillAppPage } from './pages/app.page';
import type { InvoicesPage } from './pages/invoices.page';
import type { SalePage } from './pages/sale.page';
import type { SettingsPage } from './pages/settings.page';
import type { SyncPage } from './pages/sync.page';
import type { Till } from './support/chromium';
import type { Headless } from './support/headless';
import { openTill, useHeadlessTill } from './support/open-till';
import { decodeQrPng, expectedVerifactuUrl } from './support/qr';
import { issueBacklog, moreLiveKeys } from './support/backlog';
import { qrModuleCount, qrSymbolMm } from '../../src-renderer/features/sale/qr-size';
import { todayInMadrid } from '../support/madrid-day';

const CSS_PX_PER_MM = 96 / 25.4;

let server: Headless;
let till: Till;
let page: Page;
let app: TillAppPage;
let sale: SalePage;
let invoices: InvoicesPage;
let sync: SyncPage;
let settings: SettingsPage;
let firstSale: { numero: string; qrUrl: string };
let outageSales: string[] = [];
let f1Numero = '';

useHeadlessTill({
  screenshotPrefix: 'FALLO-',
  open: async (started) => {
    server = started;
    ({ till, page, app, sale, invoices, sync, settings } = await openTill(server));
  },
  opened: () => ({ till, app }),
});

describe('Sale: a keyboard-only sale, issued through the panel relay', () => {
  it('the panel URL opens the till with its token, then drops the token from the address bar', async () => {
    expect(app.currentUrl()).not.toContain('token=');
    expect(await app.entorno().textContent()).toBe('PRUEBAS');
    await app.screenshot('01-venta-vacia');
  });

  it('lines typed with Enter between fields; Enter on the empty description completes the sale; it gets registered', async () => {
    await sale.description().waitFor();
    await sale.typeLine('Café con leche', '2', '1,60', '10');
    await sale.typeLine('Tostada', '1', '2.50', '10');
    expect(await sale.lines().count()).toBe(2);
    await sale.waitForTotal('5,70');
    await app.screenshot('02-venta-lineas');
    await sale.completeWithEnter();
    const numero = (await sale.numero().textContent()) ?? '';
    expect(numero).toMatch(/^T[0-9A-Z]{4}-1$/);
    await sale.waitForStatus('registrada');
    // The sale is cleared for the next customer, focus back on the description.
    expect(await sale.lines().count()).toBe(0);
    expect(await sale.focusedField()).toBe('entry-descripcion');
    await app.screenshot('03-venta-registrada');
    firstSale = { numero, qrUrl: '' };
  });

  it('the receipt preview: "QR tributario:" above a 30–40 mm QR that decodes to the official URL, "VERI*FACTU" below', async () => {
    const decoded = decodeQrPng(await sale.qr().screenshot());
    expect(decoded).toBe(expectedVerifactuUrl(server.keys.nifEmisor, firstSale.numero, todayInMadrid(), '5.70'));
    firstSale.qrUrl = decoded ?? '';
    const qr = await sale.qr().boundingBox();
    const label = await sale.qrLabel().boundingBox();
    const legend = await sale.qrLegend().boundingBox();
    expect(qr && label && legend).toBeTruthy();
    // The rule is about the symbol: the image box minus the PNG's 4-module quiet zone.
    const mm = qrSymbolMm(qrModuleCount(decoded ?? ''), qr!.width / CSS_PX_PER_MM);
    expect(mm).toBeGreaterThanOrEqual(30);
    expect(mm).toBeLessThanOrEqual(40);
    expect(label!.y + label!.height).toBeLessThanOrEqual(qr!.y + 0.5);
    expect(legend!.y).toBeGreaterThanOrEqual(qr!.y + qr!.height - 0.5);
    expect(await sale.qrLegend().textContent()).toBe('VERI*FACTU');
    await sale.receipt().screenshot({ path: path.join(ARTIFACTS, '04-ticket-80mm.png') });
    await page.getByTestId('receipt-width-58').click();
    expect(await sale.receipt().getAttribute('data-ancho')).toBe('58');
    expect(decodeQrPng(await sale.qr().screenshot())).toBe(firstSale.qrUrl);
    await sale.receipt().screenshot({ path: path.join(ARTIFACTS, '05-ticket-58mm.png') });
    await page.getByTestId('receipt-width-80').click();
  });
});

describe('Sale: a full invoice (F1) with the customer, by keyboard', () => {
  it('F4, NIF ⏎ name ⏎ — the NIF is checked, the lines follow, Enter issues an F1', async () => {
    await sale.typeCustomer('78901234X', 'LOPEZ AGIRRE ANE');
    // The check character at once, then the census verdict (management API /v1/nif/validar).
    await page.locator('[data-testid="cliente-check"]', { hasText: 'NIF válido' }).waitFor();
    await page.locator('[data-testid="cliente-check"]', { hasText: 'Censo AEAT:' }).waitFor();
    // The census verdict in words, never its raw value (identificado, no_identificado…).
    expect(await sale.customerCheck().textContent()).not.toMatch(/identificado|no_procesado|similar\b/);
    expect(await sale.tipo().textContent()).toBe('Completa (F1)');
    // The customer's address, when given, goes on the full invoice's ticket.
    await page.getByTestId('cliente-direccion').fill('Calle Mayor 1, 48001 Bilbao');
    await sale.description().focus();
    await sale.typeLine('Bicicleta', '1', '450', '21');
    await sale.completeWithEnter();
    await sale.waitForStatus('registrada');
    f1Numero = (await sale.numero().textContent()) ?? '';
    expect(await sale.receipt().textContent()).toContain('LOPEZ AGIRRE ANE');
    expect(await sale.receipt().getByTestId('receipt-cliente').textContent()).toContain('Calle Mayor 1, 48001 Bilbao');
    expect(await sale.tipo().textContent()).toBe('Simplificada (F2)');
    await app.screenshot('06-venta-f1');
  });

  it('an NIF with a wrong check letter is flagged before anything is sent', async () => {
    await sale.typeCustomer('78901234A', 'ALGUIEN');
    await page.locator('[data-testid="cliente-check"]', { hasText: 'NIF no válido' }).waitFor();
    await page.keyboard.press('Escape');
  });
});

describe('Invoices: list, detail with records and replies, reprint', () => {
  it('finds the sale by keyboard, shows its accepted record, and a reprint shows the same QR', async () => {
    await app.goTo('facturas');
    await invoices.waitForRow(firstSale.numero, 'registrada');
    await app.screenshot('07-facturas');
    await invoices.openByKeyboard(firstSale.numero);
    expect(await invoices.records().count()).toBe(1);
    expect(await invoices.records().first().textContent()).toContain('Aceptada');
    await invoices.reprint();
    expect(decodeQrPng(await invoices.reprintQr().screenshot())).toBe(firstSale.qrUrl);
    await app.screenshot('08-factura-detalle');
  });

  it('refund (R5) of the ticket: its lines come back negated, Enter issues the R5, it is registered', async () => {
    await invoices.refund();
    expect(await page.getByTestId('sale-titulo').textContent()).toBe(`Devolución de la factura ${firstSale.numero}`);
    expect(await sale.lines().count()).toBe(2);
    await sale.waitForTotal('-5,70');
    await app.screenshot('09-devolucion-r5');
    await sale.completeWithEnter();
    await sale.waitForStatus('registrada');
    expect(await sale.tipo().textContent()).toBe('Simplificada (F2)');
    expect(await sale.receipt().textContent()).toContain('RECTIFICATIVA');
    // The rectifying ticket names the invoice it corrects: series-number and date.
    expect(await sale.receipt().getByTestId('receipt-rectifica').textContent()).toBe(`Rectifica la factura ${firstSale.numero} del ${todayInMadrid().replaceAll('-', '/')}`);
  });

  it('cancel: the invoice becomes anulada once the cancellation is filed', async () => {
    await app.goTo('facturas');
    await invoices.openByKeyboard(f1Numero);
    await invoices.cancel();
    await invoices.waitForStatus('anulada');
    await app.screenshot('10-factura-anulada');
  });
});

describe('Sync view: rehearsing an AEAT outage', () => {
  it('AEAT taken down from the sync view: three sales are issued and wait in the queue', async () => {
    await app.goTo('sync');
    await sync.waitLoaded();
    await sync.takeAeatDown();
    await app.goTo('venta');
    const numeros: string[] = [];
    for (const [i, precio] of ['3,00', '4,50', '12,10'].entries()) {
      await sale.typeLine(`Artículo ${i + 1}`, '1', precio, '21');
      await sale.completeWithEnter();
      numeros.push((await sale.numero().textContent()) ?? '');
    }
    expect(new Set(numeros).size).toBe(3);
    expect(await sale.status().getAttribute('data-estado')).not.toBe('registrada');
    await app.goTo('sync');
    await sync.waitInFlight('test', 3);
    await sync.waitUnreachable('aeat', 'test');
    await app.screenshot('11-sync-aeat-caida');
    outageSales = numeros;
  });

  it('AEAT back up and "retry now": the queue empties and the three invoices are registered', async () => {
    await sync.bringAeatUp();
    await sync.retryNow();
    await sync.waitInFlight('test', 0);
    await app.screenshot('12-sync-recuperada');
    await app.goTo('facturas');
    await invoices.clearSearch();
    for (const numero of outageSales) await invoices.waitForRow(numero, 'registrada');
    await app.screenshot('13-facturas-tras-incidencia');
  });
});

describe('Sync view: a rejected sale corrected (subsanar) from the invoices screen', () => {
  let numero = '';

  it('a fault card per emulator the panel relays; "reject next" on AEAT: the next sale is rejected', async () => {
    await app.goTo('sync');
    await sync.waitLoaded();
    // AEAT and the census are relayed by the panel; TicketBAI's controls are not (yet).
    expect(await sync.faultCards()).toEqual(expect.arrayContaining(['aeat', 'censo']));
    await sync.rejectNextAeat();
    await app.screenshot('17-sync-rechazar-siguiente');
    await app.goTo('venta');
    await sale.typeLine('Zumo de naranja', '2', '2,20', '10');
    await sale.completeWithEnter();
    numero = (await sale.numero().textContent()) ?? '';
    await sale.waitForStatus('rechazada');
    await app.screenshot('18-venta-rechazada');
  });

  it('the estado filter shows it among the rejected; the detail shows AEAT’s reply', async () => {
    await app.goTo('facturas');
    await invoices.filterEstado('rechazada');
    await invoices.waitForRow(numero, 'rechazada');
    expect(await invoices.rows().evaluateAll((rows) => rows.every((r) => r.getAttribute('data-estado') === 'rechazada'))).toBe(true);
    await app.screenshot('19-facturas-rechazadas');
    await invoices.filterEstado('');
    await invoices.openByKeyboard(numero);
    await invoices.waitForStatus('rechazada');
    expect(await invoices.records().first().textContent()).toContain('1100');
  });

  it('Subsanar: the same number issued again with its lines; registered, with no rechazoPrevio warning', async () => {
    await invoices.correct();
    expect(await page.getByTestId('sale-titulo').textContent()).toBe(`Subsanar factura ${numero}`);
    expect(await sale.lines().count()).toBe(1);
    await sale.waitForTotal('4,40');
    await app.screenshot('20-subsanacion');
    await sale.completeCorrectionWithEnter();
    expect(await sale.numero().textContent()).toBe(numero);
    await sale.waitForStatus('registrada');
    if ((await sale.avisos().count()) > 0) expect(await sale.avisos().textContent()).not.toContain('rechazoPrevio');
    await app.goTo('facturas');
    await invoices.waitForRow(numero, 'registrada');
    await app.screenshot('21-facturas-subsanada');
  });
});

describe('Sync view: pause and resume filing', () => {
  it('paused, a sale waits in the queue; resumed, it is registered', async () => {
    await app.goTo('sync');
    await sync.waitLoaded();
    await sync.waitInFlight('test', 0);
    await sync.togglePause('test', true);
    expect(await page.getByTestId('sync-pause-test').textContent()).toBe('Reanudar envíos');
    await app.goTo('venta');
    await sale.typeLine('Agua', '1', '1,00', '10');
    await sale.completeWithEnter();
    await app.goTo('sync');
    await sync.waitInFlight('test', 1);
    await app.screenshot('22-sync-pausada');
    await sync.togglePause('test', false);
    expect(await page.getByTestId('sync-pause-test').textContent()).toBe('Pausar envíos');
    await sync.waitInFlight('test', 0);
    await app.screenshot('23-sync-reanudada');
  });
});

describe('Settings and languages', () => {
  it('shows the device and data folder; Basque and English are available, Spanish is the default', async () => {
    await app.goTo('ajustes');
    expect(await settings.idMaquina().textContent()).toMatch(/^WEB-[0-9A-Z]{10}$/);
    expect(await settings.dataDir().textContent()).toBe(server.dataDir);
    expect(await settings.heading().textContent()).toBe('Ajustes y soporte');
    // Support creates a key for the POS software: shown once, and it works.
    const key = await settings.createKey('test');
    expect(key).toMatch(/^sk_test_/);
    await app.screenshot('14-ajustes');
    await settings.setLanguage('eu');
    await page.locator('h1', { hasText: 'Ezarpenak eta laguntza' }).waitFor();
    await app.screenshot('15-ajustes-euskara');
    await settings.setLanguage('en');
    await page.locator('h1', { hasText: 'Settings and support' }).waitFor();
    await settings.setLanguage('es');
    await page.locator('h1', { hasText: 'Ajustes y soporte' }).waitFor();
  });
});

// The issue's 10,000 records by default; E2E_BACKLOG=2000 for a quicker run.
const BACKLOG = Number(process.env.E2E_BACKLOG ?? 10000);

describe('Responsiveness while a backlog drains', () => {
  it(`a sale at the till still answers while a LIVE backlog of ${BACKLOG} records drains (against a baseline from this run)`, { timeout: 60_000 + BACKLOG * 15 }, async () => {
    const size = BACKLOG;
    // What is measured is the till while the backlog drains, not issuing it: four LIVE keys
    // (the per-second limit is per key) issue it at up to 1,000 req/s instead of the plan's 250.
    const liveKeys = [server.keys.live, ...(await moreLiveKeys(server.dataDir, server.keys.nifEmisor, 3))];
    await app.goTo('venta');
    // Baseline: a keyboard sale (type a line, Enter, answer on screen) with the engine idle.
    // One till interaction in two parts: typing a line until the total shows it (the renderer
    // alone), then Enter until the engine's answer is on screen (a round trip to the engine).
    const timeSale = async (label: string) => {
      const t0 = performance.now();
      await sale.typeLine(label, '1', '1,00', '21');
      await sale.waitForTotal('1,00');
      const t1 = performance.now();
      await sale.completeWithEnter();
      return { lineMs: t1 - t0, saleMs: performance.now() - t1 };
    };
    const baseline: { lineMs: number; saleMs: number }[] = [];
    for (let i = 0; i < 3; i++) baseline.push(await timeSale(`Base ${i}`));

    // The backlog: LIVE records issued straight at the billing API with the emulator down.
    await app.goTo('sync');
    await sync.takeAeatDown();
    const issued = await issueBacklog(server.keys, liveKeys, size);
    await sync.waitInFlight('live', size, 30_000 + size * 5);

    // Back up: the worker drains in batches of 1000 while the till keeps selling.
    await sync.bringAeatUp();
    await sync.retryNow();
    const drainStart = performance.now();
    await app.goTo('venta');
    const during: { lineMs: number; saleMs: number; inFlightBefore: number; inFlightAfter: number }[] = [];
    const inFlightLive = async () =>
      Number(await page.evaluate(`fetch('/panel/v1/sync', { headers: { authorization: 'Bearer ' + sessionStorage.getItem('till.panelToken') } }).then(r => r.json()).then(j => Object.entries(j.porEstadoEnvio.live || {}).filter(([k]) => k !== 'rechazada').reduce((n, [, v]) => n + v, 0))`));
    for (let i = 0; i < 40; i++) {
      const before = await inFlightLive();
      const timing = await timeSale(`Durante ${i}`);
      const left = await inFlightLive();
      during.push({ ...timing, inFlightBefore: before, inFlightAfter: left });
      if (left === 0) break;
    }
    await app.goTo('sync');
    await sync.waitInFlight('live', 0, 30_000 + size * 10);
    const drainMs = performance.now() - drainStart;

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const whileDraining = during.filter((d) => d.inFlightAfter > 0);
    const report = {
      backlog: size,
      issueMs: Math.round(issued.ms),
      drainMs: Math.round(drainMs),
      baseline: baseline.map((b) => ({ lineMs: Math.round(b.lineMs), saleMs: Math.round(b.saleMs) })),
      duringDrain: during.map((d) => ({ lineMs: Math.round(d.lineMs), saleMs: Math.round(d.saleMs), enVueloAntes: d.inFlightBefore, enVueloDespues: d.inFlightAfter })),
      medianBaselineLineMs: Math.round(median(baseline.map((b) => b.lineMs))),
      medianBaselineSaleMs: Math.round(median(baseline.map((b) => b.saleMs))),
      maxWhileDrainingLineMs: Math.round(Math.max(0, ...whileDraining.map((d) => d.lineMs))),
      maxWhileDrainingSaleMs: Math.round(Math.max(0, ...whileDraining.map((d) => d.saleMs))),
    };
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(path.join(ARTIFACTS, 'responsiveness.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log('[responsiveness]', JSON.stringify(report));
    // Sales answered while records were still waiting: the till never queues behind the backlog.
    expect(whileDraining.length).toBeGreaterThan(0);
    // The first sale of the drain was answered before the drain had finished half of its records.
    expect(during[0]!.inFlightAfter).toBeGreaterThanOrEqual(size / 2);
    // No sale waited while half the backlog or more drained, nor for half the drain's time: the
    // bounds are this run's own backlog and drain, no fixed threshold.
    for (const d of whileDraining) {
      expect(d.inFlightBefore - d.inFlightAfter).toBeLessThanOrEqual(size / 2);
      expect(d.lineMs + d.saleMs).toBeLessThan(drainMs / 2);
    }
    await app.screenshot('16-sync-tras-backlog');
  });
});
