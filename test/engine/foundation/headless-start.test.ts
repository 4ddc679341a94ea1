import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hostedExample01, hostedExample02 } from '../../fixtures/hosted-examples';
import { todayInMadrid } from '../../support/madrid-day';
import { FREE_PORTS_ENV } from '../../support/free-ports';

const root = path.resolve(import.meta.dirname, '../../..');

/** Runs the real headless start (`npm start`'s script) on free ports and a fresh data dir. */
function startHeadless(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'engine/src/bin/serve.ts')], {
    cwd: root,
    env: { ...process.env, POS_DATA_DIR: dataDir, ...FREE_PORTS_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      output.push(line);
      if (line === 'READY') resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output.join('\n')}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, ready, exited, output };
}

/** The engine's SQLite file in a data dir. */
function findDatabase(dataDir: string): string {
  const name = readdirSync(dataDir).find((f) => f.endsWith('.db') || f.endsWith('.sqlite'));
  if (name === undefined) throw new Error(`no database in ${dataDir}: ${readdirSync(dataDir).join(', ')}`);
  return name;
}

describe('Headless start: npm start serves both APIs and writes demo-keys.json', () => {
  it('seeds a demo account, prints URLs and keys, answers /v1/cuenta per key, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'headless-'));
    const run = startHeadless(dataDir);
    await run.ready;
    const file = path.join(dataDir, 'demo-keys.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(keys).toMatchObject({ nifEmisor: 'B12345674', test: expect.stringMatching(/^sk_test_/), live: expect.stringMatching(/^sk_live_/) });
    expect(run.output.join('\n')).toContain(keys.test);
    expect(run.output.join('\n')).toContain(keys.billingUrl);
    expect(keys.panelUrl).toMatch(/\?token=/);
    expect(keys.emulatorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${keys.emulatorUrl}/__control/health`);
    expect(health.status).toBe(200);

    for (const entorno of ['test', 'live'] as const) {
      const res = await fetch(`${keys.billingUrl}/v1/cuenta`, { headers: { 'x-api-key': keys[entorno]! } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { entorno: string }).entorno).toBe(entorno);
    }
    // A sale goes all the way: issued at once, then filed with the AEAT emulator.
    const crear = await fetch(`${keys.billingUrl}/v1/verifactu/crear`, {
      method: 'POST',
      headers: { 'x-api-key': keys.test!, 'content-type': 'application/json' },
      body: JSON.stringify({
        version: '1.0',
        emisor: { nif: keys.nifEmisor, nombre: 'COMERCIAL DEMO SL' },
        cabecera: { serie: 'T', numero: '1', fechaExpedicion: todayInMadrid(), tipoFactura: 'F2', descripcion: 'Venta' },
        detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
        totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
      }),
    });
    expect(crear.status).toBe(200);
    const { idFactura } = (await crear.json()) as { idFactura: string };
    let estado: { estadoFactura: string | null } = { estadoFactura: null };
    for (let i = 0; i < 100 && estado.estadoFactura !== 'registrada'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${keys.billingUrl}/v1/facturas/${idFactura}/estado?nifEmisor=${keys.nifEmisor}`, { headers: { 'x-api-key': keys.test! } });
      estado = (await res.json()) as typeof estado;
    }
    expect(estado.estadoFactura).toBe('registrada');
    // The banner says how to open the till UI.
    expect(run.output.join('\n')).toContain(`till UI         open ${keys.panelUrl} in a browser`);

    // Clients written for the hosted service run unchanged: its examples 01 (VeriFactu) and 02
    // (TicketBAI, with desglose[].descripcion and lineas) against the demo issuers the banner names.
    const post = (url: string, body: unknown) =>
      fetch(`${keys.billingUrl}${url}`, { method: 'POST', headers: { 'x-api-key': keys.test!, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ej01 = await post('/v1/verifactu/crear', hostedExample01(keys.nifEmisor!, todayInMadrid(), '202611250001'));
    expect(ej01.status, await ej01.clone().text()).toBe(200);
    const idsTicketbai: string[] = [];
    for (const [nif, provincia] of [['B01123454', 'araba'], ['B48123459', 'bizkaia'], ['B20123451', 'gipuzkoa']] as const) {
      expect(run.output.join('\n')).toContain(`demo issuer     ${nif} (TicketBAI ${provincia}, TEST)`);
      const ej02 = await post('/v1/ticketbai/crear', hostedExample02(nif, provincia, todayInMadrid(), '202611250001'));
      expect(ej02.status, await ej02.clone().text()).toBe(200);
      const body = (await ej02.json()) as { idFactura: string; idTbai: string };
      expect(body.idTbai).toMatch(/^TBAI-B\d{8}-/);
      idsTicketbai.push(body.idFactura);
    }
    // The breakdown line's description is kept with the invoice (not filed: TicketBAI has no place for it).
    const db = new Database(path.join(dataDir, findDatabase(dataDir)), { readonly: true });
    try {
      for (const id of idsTicketbai) {
        const row = db.prepare('SELECT datos FROM invoice_documentos WHERE invoiceId = ?').get(id) as { datos: string };
        expect((JSON.parse(row.datos) as { desglose: { descripcion?: string }[] }).desglose[0]!.descripcion).toBe('Servicios de consultoría');
        const xml = db.prepare('SELECT d.xml FROM registros r JOIN registro_documentos d ON d.registroId = r.id WHERE r.invoiceId = ?').get(id) as { xml: string };
        expect(xml.xml).toContain('<DescripcionDetalle>Servicios de consultoría</DescripcionDetalle>');
        expect(xml.xml.match(/Servicios de consultoría/g)).toHaveLength(1);
      }
    } finally {
      db.close();
    }
    // Every read a client tries answers on a fresh start: the compliance declaration is published.
    const declaracion = await fetch(`${keys.manageUrl}/v1/cumplimiento/declaracion-responsable`, { headers: { 'x-api-key': keys.test! } });
    expect(declaracion.status).toBe(200);
    const clientes = await fetch(`${keys.manageUrl}/v1/clientes`, { headers: { 'x-api-key': keys.test! } });
    expect(JSON.stringify(await clientes.json())).toContain('B48123459');

    const manage = await fetch(`${keys.manageUrl}/openapi.json`);
    expect(manage.status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    // Logs go through electron-log into the data dir.
    expect(readFileSync(path.join(dataDir, 'logs', 'engine.log'), 'utf8')).toContain('engine started');

    // A second start on the same data dir keeps the demo keys.
    const again = startHeadless(dataDir);
    await again.ready;
    const second = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(second.test).toBe(keys.test);
    const res = await fetch(`${second.billingUrl}/v1/cuenta`, { headers: { 'x-api-key': second.test! } });
    expect(res.status).toBe(200);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });
});
