import { describe, expect, it, vi } from 'vitest';
import { receiptEscpos } from '../../src-main/printing/escpos';
import { loadPrinterConfig } from '../../src-main/printing/printer-config';
import { escposModuleSize, qrModules, QR_MAX_MM, QR_MIN_MM } from '../../src-main/printing/qr-size';
import { receiptHtml } from '../../src-main/printing/receipt-html';
import { aReceipt } from './fixtures';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

vi.mock('electron', () => ({ BrowserWindow: vi.fn() }));

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

/** The payload of the ESC/POS QR "store data" command (GS ( k … 31 50 30 data). */
function qrPayload(bytes: Uint8Array): { data: string; size: number; level: number } {
  const b = Buffer.from(bytes);
  const store = b.indexOf(Buffer.from([0x1d, 0x28, 0x6b]), b.indexOf(Buffer.from([0x31, 0x50, 0x30])) - 5);
  const len = b.readUInt16LE(store + 3) - 3;
  const data = b.subarray(store + 8, store + 8 + len).toString('latin1');
  const sizeAt = b.indexOf(Buffer.from([0x1d, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x43]));
  const levelAt = b.indexOf(Buffer.from([0x1d, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x45]));
  return { data, size: b[sizeAt + 7] ?? 0, level: b[levelAt + 7] ?? 0 };
}

describe('Thermal printers: ESC/POS with the printer’s native QR', () => {
  for (const ancho of [80, 58] as const) {
    it(`${ancho} mm: the native QR encodes the AEAT URL at level M, sized within 30–40 mm`, () => {
      const receipt = aReceipt({ ancho });
      const { bytes, qrMm } = receiptEscpos(receipt);
      const qr = qrPayload(bytes);
      expect(qr.data).toBe(receipt.qr.url);
      expect(qr.level).toBe(0x31); // 49 = M
      expect(qrMm).toBeGreaterThanOrEqual(QR_MIN_MM);
      expect(qrMm).toBeLessThanOrEqual(QR_MAX_MM);
      expect((qrModules(receipt.qr.url) * qr.size) / 8).toBeCloseTo(qrMm);
    });
  }

  it('"QR tributario:" comes right before the QR and "VERI*FACTU" right after it', () => {
    const text = latin1(receiptEscpos(aReceipt()).bytes);
    const label = text.indexOf('QR tributario:');
    const qr = text.indexOf('\x1d(k');
    const legend = text.indexOf('VERI*FACTU');
    expect(label).toBeGreaterThan(-1);
    expect(label).toBeLessThan(qr);
    expect(qr).toBeLessThan(legend);
    expect(text.indexOf('VERI*FACTU')).toBeLessThan(text.indexOf('FACTURA SIMPLIFICADA'));
  });

  it('a TicketBAI receipt prints its identifier under the QR', () => {
    const idTbai = 'TBAI-B12345674-221126-btFpwP8dcLGAF-237';
    const text = latin1(receiptEscpos(aReceipt({ qr: { sistema: 'ticketbai', url: 'https://batuz.eus/QRTBAI/?id=x&s=T&nf=1&i=5.70&cr=007', idTbai } })).bytes);
    expect(text.indexOf(idTbai)).toBeGreaterThan(text.indexOf('\x1d(k'));
    expect(text).not.toContain('VERI*FACTU');
  });

  it('ends with a paper cut', () => {
    const b = Buffer.from(receiptEscpos(aReceipt()).bytes);
    expect(b.lastIndexOf(Buffer.from([0x1d, 0x56]))).toBeGreaterThan(b.length - 10);
  });

  it('picks a module size within 30–40 mm for long URLs too', () => {
    const long = `https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=${'A'.repeat(60)}&fecha=22-11-2026&importe=123456789012.99`;
    const { mm } = escposModuleSize(long, 8);
    expect(mm).toBeGreaterThanOrEqual(30);
    expect(mm).toBeLessThanOrEqual(40);
  });
});

describe('System printers: the receipt page printed without a dialog', () => {
  it('the QR is an SVG 35 mm square between "QR tributario:" and "VERI*FACTU", the first QR on the page', async () => {
    const html = await receiptHtml(aReceipt());
    expect(html).toContain('.qr svg { width: 35mm; height: 35mm; }');
    const label = html.indexOf('QR tributario:');
    const svg = html.indexOf('<svg');
    expect(label).toBeGreaterThan(-1);
    expect(label).toBeLessThan(svg);
    expect(html.indexOf('VERI*FACTU')).toBeGreaterThan(html.indexOf('</svg>'));
    expect(html.match(/<svg/g)).toHaveLength(1);
    expect(html).toContain('size: 80mm auto');
  });

  it('escapes every text of the receipt and forbids scripts', async () => {
    const html = await receiptHtml(aReceipt({ emisor: { nif: 'B12345674', nombre: '<img src=x onerror=alert(1)>' } }));
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Tostada &lt;con&gt; tomate &amp; aceite');
    expect(html).toContain("default-src 'none'");
  });

  it('58 mm paper: the page is 58 mm wide', async () => {
    expect(await receiptHtml(aReceipt({ ancho: 58 }))).toContain('size: 58mm auto');
  });
});

describe('Printed tickets carry the document language and what a rectifying ticket corrects', () => {
  const basque = {
    etiquetas: { cliente: 'Bezeroa', base: 'Oinarria', cuota: 'Kuota', total: 'Guztira', copia: 'KOPIA', fecha: 'Data' },
    rectifica: 'TABCD-1 faktura zuzentzen du',
    destinatario: { nif: 'B87654323', nombre: 'CLIENTE SL', direccion: 'Kale Nagusia 1, Bilbo' },
    copia: true,
  };

  it('ESC/POS: the receipt’s own words, the corrected invoice and the customer’s address', () => {
    const text = latin1(receiptEscpos(aReceipt(basque)).bytes);
    for (const words of ['*** KOPIA ***', 'Bezeroa: CLIENTE SL', 'Kale Nagusia 1, Bilbo', 'TABCD-1 faktura zuzentzen du', 'GUZTIRA', 'Oinarria', 'Kuota']) expect(text).toContain(words);
  });

  it('system printer page: the same', async () => {
    const html = await receiptHtml(aReceipt(basque));
    for (const words of ['*** KOPIA ***', 'Bezeroa: CLIENTE SL', 'Kale Nagusia 1, Bilbo', 'TABCD-1 faktura zuzentzen du', 'Guztira', 'Oinarria']) expect(html).toContain(words);
  });

  it('without them, Spanish as before', async () => {
    expect(latin1(receiptEscpos(aReceipt()).bytes)).toContain('TOTAL');
    expect(await receiptHtml(aReceipt())).toContain('<span>Total</span>');
  });
});

describe('Printer configuration (userData/printer.json)', () => {
  it('absent → the system printer, 80 mm; valid → used; broken → the system printer and a warning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'till-printer-'));
    expect(loadPrinterConfig(dir)).toEqual({ tipo: 'sistema', ancho: 80 });
    writeFileSync(path.join(dir, 'printer.json'), JSON.stringify({ tipo: 'escpos-red', host: '192.168.1.50', ancho: 58 }));
    expect(loadPrinterConfig(dir)).toEqual({ tipo: 'escpos-red', host: '192.168.1.50', puerto: 9100, ancho: 58 });
    writeFileSync(path.join(dir, 'printer.json'), JSON.stringify({ tipo: 'escpos-red' }));
    const warn = vi.fn();
    expect(loadPrinterConfig(dir, warn)).toEqual({ tipo: 'sistema', ancho: 80 });
    expect(warn).toHaveBeenCalled();
  });
});

describe('«NO VERI*FACTU» receipts (issue 32): the QR of non-verifiable invoices, no «VERI*FACTU» legend', () => {
  const url = 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=B12345674&numserie=N1&fecha=20-11-2026&importe=12.1';
  it('ESC/POS: the QR encodes the non-verifiable URL and no legend follows', () => {
    const { bytes } = receiptEscpos(aReceipt({ qr: { sistema: 'verifactu', url } }));
    expect(qrPayload(bytes).data).toBe(url);
    expect(latin1(bytes)).not.toContain('VERI*FACTU');
    expect(latin1(bytes)).toContain('QR tributario:');
  });
  it('system printers: no legend on the page', async () => {
    const html = await receiptHtml(aReceipt({ qr: { sistema: 'verifactu', url } }));
    expect(html).not.toContain('VERI*FACTU');
    expect(html).toContain('QR tributario:');
  });
});
