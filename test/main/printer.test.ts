import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { receiptEscpos } from '../../src-main/printing/escpos';
import { printReceipt } from '../../src-main/printing/printer';
import { FakeBrowserWindow, FakeWebContents } from './electron-mock';
import { aReceipt } from './fixtures';

vi.mock('electron', async () => (await import('./electron-mock')).electronMock('/tmp'));

const log = { info: vi.fn(), warn: vi.fn() };
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

beforeEach(() => {
  FakeBrowserWindow.instances = [];
  FakeWebContents.printAnswer = { success: true, failureReason: '' };
});

/** A raw-TCP thermal printer (port 9100 style): collects every byte of each connection. */
async function fakeNetworkPrinter() {
  const jobs: Buffer[] = [];
  let received: (job: Buffer) => void = () => {};
  const server = createServer((socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      const job = Buffer.concat(chunks);
      jobs.push(job);
      received(job);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const nextJob = new Promise<Buffer>((resolve) => {
    received = resolve;
  });
  return { port, jobs, nextJob, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('System printer: the receipt page printed silently (no dialog)', () => {
  for (const ancho of [80, 58] as const) {
    it(`${ancho} mm: silent, to the named printer, on a page ${ancho} mm wide; the window is destroyed afterwards`, async () => {
      // The configured paper wins over what the receipt says.
      const result = await printReceipt(aReceipt({ ancho: 80 }), { tipo: 'sistema', nombre: 'EPSON TM-T20III', ancho }, log);
      expect(result).toEqual({ ok: true, via: 'sistema', impresora: 'EPSON TM-T20III' });
      const win = FakeBrowserWindow.instances.at(-1)!;
      expect(win.options).toMatchObject({ show: false, webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false } });
      expect(win.webContents.print).toHaveBeenCalledTimes(1);
      const options = win.webContents.print.mock.calls[0]![0] as Record<string, unknown>;
      expect(options).toMatchObject({ silent: true, deviceName: 'EPSON TM-T20III', pageSize: { width: ancho * 1000 }, margins: { marginType: 'none' } });
      // What was printed is the receipt page for that paper, with its QR.
      const html = decodeURIComponent(win.loaded[0]!.replace(/^data:text\/html;charset=utf-8,/, ''));
      expect(html).toContain(`size: ${ancho}mm auto`);
      expect(html).toContain('QR tributario:');
      expect(html).toContain('VERI*FACTU');
      expect(win.isDestroyed()).toBe(true);
    });
  }

  it('no printer named: the system default (no deviceName)', async () => {
    const result = await printReceipt(aReceipt(), { tipo: 'sistema', ancho: 80 }, log);
    expect(result).toEqual({ ok: true, via: 'sistema', impresora: 'predeterminada' });
    const options = FakeBrowserWindow.instances.at(-1)!.webContents.print.mock.calls[0]![0] as Record<string, unknown>;
    expect(options.silent).toBe(true);
    expect(options).not.toHaveProperty('deviceName');
  });

  it('a failed print rejects with the driver’s reason and still destroys the window', async () => {
    FakeWebContents.printAnswer = { success: false, failureReason: 'Printer is out of paper' };
    await expect(printReceipt(aReceipt(), { tipo: 'sistema', ancho: 58 }, log)).rejects.toThrow('Printer is out of paper');
    expect(FakeBrowserWindow.instances.at(-1)!.isDestroyed()).toBe(true);
  });
});

describe('Thermal printer over the network: ESC/POS on raw TCP', () => {
  let printer: Awaited<ReturnType<typeof fakeNetworkPrinter>>;
  beforeEach(async () => {
    printer = await fakeNetworkPrinter();
  });
  afterEach(async () => {
    await printer.close();
  });

  for (const ancho of [80, 58] as const) {
    it(`${ancho} mm: the printer receives the ESC/POS job with the native QR command, the URL and the text`, async () => {
      const receipt = aReceipt({ ancho: 80 });
      const result = await printReceipt(receipt, { tipo: 'escpos-red', host: '127.0.0.1', puerto: printer.port, ancho }, log);
      expect(result).toEqual({ ok: true, via: 'escpos', impresora: `127.0.0.1:${printer.port}` });
      const job = await printer.nextJob;
      // Exactly the encoder's bytes for the configured paper, in one job.
      expect(job.equals(Buffer.from(receiptEscpos({ ...receipt, ancho }).bytes))).toBe(true);
      expect(job.subarray(0, 2)).toEqual(Buffer.from([0x1b, 0x40])); // ESC @: initialise
      // GS ( k … 31 50 30 <url>: store the QR data; GS ( k 03 00 31 51 30: print it.
      const store = Buffer.concat([Buffer.from([0x31, 0x50, 0x30]), Buffer.from(receipt.qr.url, 'latin1')]);
      expect(job.indexOf(store)).toBeGreaterThan(-1);
      expect(job[job.indexOf(store) - 5]).toBe(0x1d);
      expect(job.indexOf(Buffer.from([0x1d, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x51, 0x30]))).toBeGreaterThan(job.indexOf(store));
      const text = latin1(job);
      expect(text.indexOf('QR tributario:')).toBeLessThan(job.indexOf(store));
      expect(text.indexOf('VERI*FACTU')).toBeGreaterThan(job.indexOf(store));
      for (const t of ['COMERCIAL DEMO SL', 'NIF B12345674', 'FACTURA SIMPLIFICADA', 'TABCD1', 'Gracias por su compra']) expect(text).toContain(t);
      // The total line fills the paper's width: 48 columns on 80 mm, 32 on 58 mm.
      expect(text.match(/TOTAL +5,70 EUR/)?.[0]).toHaveLength(ancho === 80 ? 48 : 32);
    });
  }

  it('a printer that is not there: the print rejects (the bridge turns it into {ok:false})', async () => {
    const { port } = printer;
    await printer.close();
    await expect(printReceipt(aReceipt(), { tipo: 'escpos-red', host: '127.0.0.1', puerto: port, ancho: 80 }, log)).rejects.toThrow(/ECONNREFUSED/);
    printer = await fakeNetworkPrinter();
  });
});

describe('Thermal printer as a device file (/dev/usb/lp0, a serial port…)', () => {
  it('writes the ESC/POS job to the device path', async () => {
    const device = path.join(mkdtempSync(path.join(tmpdir(), 'till-lp-')), 'lp0');
    const receipt = aReceipt();
    const result = await printReceipt(receipt, { tipo: 'escpos-dispositivo', ruta: device, ancho: 58 }, log);
    expect(result).toEqual({ ok: true, via: 'escpos', impresora: device });
    const written = readFileSync(device);
    expect(written.equals(Buffer.from(receiptEscpos({ ...receipt, ancho: 58 }).bytes))).toBe(true);
    expect(latin1(written)).toContain('QR tributario:');
    expect(written.indexOf(Buffer.from(receipt.qr.url, 'latin1'))).toBeGreaterThan(-1);
  });

  it('no printer configured: nothing printed, a clear answer', async () => {
    expect(await printReceipt(aReceipt(), { tipo: 'ninguna', ancho: 80 }, log)).toEqual({ ok: false, error: 'No hay impresora configurada (printer.json)' });
    expect(FakeBrowserWindow.instances).toHaveLength(0);
  });
});
