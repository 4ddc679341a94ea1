// Sends a receipt to the configured printer: the OS printer through an offscreen window printed
// silently (webContents.print, no dialog), or ESC/POS bytes to a thermal printer over TCP or a
// device file. Runs in main; the renderer only hands over the (zod-parsed) receipt.
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { BrowserWindow } from 'electron';
import type { PrintResult, Receipt } from '../../src-shared/bridge';
import { receiptEscpos } from './escpos';
import type { PrinterConfig } from './printer-config';
import { receiptHtml } from './receipt-html';

export interface PrinterLog {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
}

async function printHtml(receipt: Receipt, deviceName: string | undefined): Promise<void> {
  const html = await receiptHtml(receipt);
  const win = new BrowserWindow({
    show: false,
    webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false },
  });
  try {
    await win.loadURL(`data:text/html;charset=utf-8,${encodeURIComponent(html)}`);
    await new Promise<void>((resolve, reject) => {
      win.webContents.print(
        {
          silent: true,
          printBackground: false,
          ...(deviceName ? { deviceName } : {}),
          margins: { marginType: 'none' },
          // Roll paper: the width in microns, a generous length (the driver cuts after the content).
          pageSize: { width: receipt.ancho * 1000, height: 297_000 },
        },
        (success, failureReason) => (success ? resolve() : reject(new Error(failureReason || 'print failed'))),
      );
    });
  } finally {
    win.destroy();
  }
}

function sendTcp(host: string, port: number, bytes: Uint8Array, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`printer ${host}:${port} did not answer`)));
    socket.once('error', reject);
    socket.once('connect', () => socket.end(Buffer.from(bytes), () => resolve()));
  });
}

export async function printReceipt(receipt: Receipt, config: PrinterConfig, log: PrinterLog): Promise<PrintResult> {
  const sized: Receipt = { ...receipt, ancho: config.ancho };
  switch (config.tipo) {
    case 'sistema':
      await printHtml(sized, config.nombre);
      log.info('receipt printed', { via: 'sistema', numero: receipt.numeroFactura });
      return { ok: true, via: 'sistema', impresora: config.nombre ?? 'predeterminada' };
    case 'escpos-red': {
      const { bytes } = receiptEscpos(sized, { ...(config.modelo ? { modelo: config.modelo } : {}) });
      await sendTcp(config.host, config.puerto, bytes);
      log.info('receipt printed', { via: 'escpos-red', numero: receipt.numeroFactura });
      return { ok: true, via: 'escpos', impresora: `${config.host}:${config.puerto}` };
    }
    case 'escpos-dispositivo': {
      const { bytes } = receiptEscpos(sized, { ...(config.modelo ? { modelo: config.modelo } : {}) });
      await writeFile(config.ruta, bytes);
      log.info('receipt printed', { via: 'escpos-dispositivo', numero: receipt.numeroFactura });
      return { ok: true, via: 'escpos', impresora: config.ruta };
    }
    case 'ninguna':
      return { ok: false, error: 'No hay impresora configurada (printer.json)' };
  }
}
