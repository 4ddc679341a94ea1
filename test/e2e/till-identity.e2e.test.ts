/**
 * Issue 14 part 7 and issue 13 part 4 (UI side), end to end: a till is a till, not a browser
 * profile. On its first run a browser till asks which till it is (a new one by name, or one the
 * engine knows), registers it as a device of the issuer and keeps that identity; its first sale
 * lands on its own chain; another browser that says it is the same till gets the same identity;
 * a deactivated till is reactivated when it starts. One headless start, two browser contexts.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TillAppPage } from './pages/app.page';
import { SalePage } from './pages/sale.page';
import { launchTill, type Till } from './support/chromium';
import type { Headless } from './support/headless';
import { useHeadlessTill } from './support/open-till';

let server: Headless;
let till: Till;
let page: Page;
let app: TillAppPage;
let idCaja = '';
let huella = '';

/** The panel API with its token, as the service team's tools call it. */
async function panel(method: string, path: string, body?: unknown): Promise<Response> {
  const url = new URL(server.keys.panelUrl);
  return fetch(`${url.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${url.searchParams.get('token') ?? ''}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

async function device(page: Page, testid: string): Promise<string> {
  return (await page.getByTestId(testid).textContent()) ?? '';
}

useHeadlessTill({
  screenshotPrefix: 'FALLO-caja-',
  open: async (started) => {
    server = started;
    // The service team moves the demo issuer to the high-capacity mode: one chain per till.
    const nif = server.keys.nifEmisor;
    for (const fase of ['preparacion', 'activa']) {
      const res = await panel('PUT', `/panel/v1/cuentas/${nif}/clientes/${nif}/fase`, { faseAltaCapacidad: fase });
      expect(res.status, await res.text()).toBe(200);
    }
    till = await launchTill();
    page = await till.context.newPage();
    page.setDefaultTimeout(20_000);
    app = new TillAppPage(page);
  },
  opened: () => ({ till, app }),
});

describe('First run: the till asks which till it is, registers it and keeps it', () => {
  it('a fresh browser asks; staff type a name, never an id; the till is registered as a device', async () => {
    // The engine already knows the demo's own till (npm start registers the computer it runs on);
    // the browser offers it by name, beside creating a new one.
    const antes = (await fetch(`${server.keys.manageUrl}/v1/clientes/${server.keys.nifEmisor}/dispositivos`, { headers: { 'x-api-key': server.keys.test } }).then((r) => r.json())) as {
      dispositivos: { etiqueta: string; activo: boolean }[];
    };
    const conocidas = antes.dispositivos.filter((d) => d.activo);
    expect(conocidas).toHaveLength(1);
    await page.goto(server.keys.panelUrl);
    await page.getByTestId('identity').waitFor();
    // The known tills arrive from the engine after the screen shows: wait for them, not a snapshot.
    await expect.poll(() => page.getByTestId('identity-elegir').allTextContents(), { timeout: 20_000 }).toEqual(conocidas.map((d) => `Es esta: ${d.etiqueta}`));
    // A name is required; the refusal is said next to the field.
    await page.getByTestId('identity-crear').click();
    await page.getByText('Escriba un nombre para la caja.').waitFor();
    await app.identifyAsNew('Caja 1');
    expect(await page.getByTestId('caja').textContent()).toBe('Caja 1');
    await app.goTo('ajustes');
    await page.locator('[data-testid="device-estado"]', { hasText: 'Registrada y activa' }).waitFor();
    idCaja = await device(page, 'settings-idmaquina');
    expect(idCaja).toMatch(/^WEB-[0-9A-Z]{10}$/);
    expect(await device(page, 'device-nombre')).toBe('Caja 1');
    expect(await device(page, 'device-fase')).toBe('Activa');
    expect(await device(page, 'device-modo')).toBe('Una cadena por caja');
    expect(await device(page, 'device-instalacion')).toBe('Se asigna con la primera factura');
    expect(await page.getByTestId('device-cadena').getAttribute('data-longitud')).toBe('0');
    // The engine has it, with the name as its label.
    const res = await fetch(`${server.keys.manageUrl}/v1/clientes/${server.keys.nifEmisor}/dispositivos`, { headers: { 'x-api-key': server.keys.test } });
    expect(((await res.json()) as { dispositivos: unknown[] }).dispositivos).toEqual(expect.arrayContaining([expect.objectContaining({ idMaquina: idCaja, etiqueta: 'Caja 1', activo: true })]));
  });

  it('its first sale lands on the chain the engine keeps for it: length 1, the sale’s huella, in words', async () => {
    const sale = new SalePage(page);
    await app.goTo('venta');
    await sale.description().waitFor();
    await sale.typeLine('Café', '1', '1,50', '10');
    const idFactura = await sale.completeWithEnter();
    await sale.waitForStatus('registrada');
    await app.goTo('ajustes');
    // Phase activa: the sale went to the till's own chain (the card reads the engine's chains table).
    const cadena = page.locator('[data-testid="device-cadena"][data-longitud="1"]');
    await cadena.waitFor();
    expect(await cadena.getAttribute('data-propia')).toBe('true');
    expect(await device(page, 'device-cadena')).toBe('Propia de esta caja: 1 registro');
    expect(await device(page, 'device-instalacion')).not.toBe('Se asigna con la primera factura');
    huella = (await page.getByTestId('device-huella').getAttribute('title')) ?? '';
    expect(huella).toMatch(/^[0-9A-F]{64}$/);
    // The huella shown is the sale's record's, as the engine answers it.
    const detalle = (await fetch(`${server.keys.billingUrl}/v1/facturas/${idFactura}?nifEmisor=${server.keys.nifEmisor}`, { headers: { 'x-api-key': server.keys.test } }).then((r) => r.json())) as {
      factura: { idMaquina?: string };
      registros: { huella?: string }[];
    };
    expect(detalle.registros[0]?.huella).toBe(huella);
    expect(detalle.factura.idMaquina).toBe(idCaja);
  });

  it('the identity is kept: a reload asks nothing and is the same till', async () => {
    await page.reload();
    await app.ready();
    await app.goTo('ajustes');
    await page.locator('[data-testid="settings-idmaquina"]', { hasText: idCaja }).waitFor();
  });
});

describe('Another browser profile is not another till', () => {
  let other: BrowserContext;
  let page2: Page;

  it('a second browser chooses «Caja 1» from the engine’s list and gets its identity and chain', async () => {
    other = await till.browser.newContext({ viewport: { width: 1366, height: 768 }, locale: 'es-ES', timezoneId: 'Europe/Madrid' });
    page2 = await other.newPage();
    page2.setDefaultTimeout(20_000);
    const app2 = new TillAppPage(page2);
    await page2.goto(server.keys.panelUrl);
    await page2.getByTestId('identity-existentes').waitFor();
    const caja1 = page2.getByTestId('identity-elegir').filter({ hasText: /^Es esta: Caja 1$/ });
    expect(await caja1.count()).toBe(1);
    await caja1.click();
    await app2.ready();
    await app2.goTo('ajustes');
    await page2.locator('[data-testid="settings-idmaquina"]', { hasText: idCaja }).waitFor();
    await page2.locator('[data-testid="device-cadena"][data-longitud="1"]').waitFor();
    expect(await page2.getByTestId('device-huella').getAttribute('title')).toBe(huella);
  });

  it('deactivated in the engine, the till reactivates itself when it starts again', async () => {
    const del = await fetch(`${server.keys.manageUrl}/v1/clientes/${server.keys.nifEmisor}/dispositivos/${idCaja}`, { method: 'DELETE', headers: { 'x-api-key': server.keys.test } });
    expect(del.status).toBe(200);
    await page2.reload();
    await new TillAppPage(page2).ready();
    await new TillAppPage(page2).goTo('ajustes');
    await page2.locator('[data-testid="device-estado"]', { hasText: 'Registrada y activa' }).waitFor();
    const res = await fetch(`${server.keys.manageUrl}/v1/clientes/${server.keys.nifEmisor}/dispositivos`, { headers: { 'x-api-key': server.keys.test } });
    expect(((await res.json()) as { dispositivos: unknown[] }).dispositivos).toEqual(
      expect.arrayContaining([expect.objectContaining({ idMaquina: idCaja, activo: true, reactivadoEn: expect.any(String) })]),
    );
    await other.close();
  });
});
