import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { qrPng } from '../../engine/src/qr/png';
import { urlValidacion } from '../../engine/src/regimes/verifactu/record/qr';
import { qrModules } from '../../src-main/printing/qr-size';
import { receiptHtml } from '../../src-main/printing/receipt-html';
import { buildReceipt } from '../../src-renderer/features/sale/receipt-model';
import { QR_QUIET_MODULES, qrBoxMmFor, qrModuleCount, qrSymbolMm } from '../../src-renderer/features/sale/qr-size';

// The 30–40 mm rule is about the symbol. The preview's image box includes the PNG's quiet zone, so
// the symbol is the box × n / (n + 8); the printed page's SVG has no margin, so it is the box.

const base = { nif: 'B12345674', fechaExpedicion: '22-11-2026' };
const URLS = {
  TEST: urlValidacion({ entorno: 'test', ...base, numSerie: 'T6629-1', importeTotal: '5.70' }),
  LIVE: urlValidacion({ entorno: 'live', ...base, numSerie: 'T6629-123456', importeTotal: '1234567.89' }),
  'LIVE, longest series': urlValidacion({ entorno: 'live', ...base, numSerie: `${'S'.repeat(30)}${'9'.repeat(30)}`, importeTotal: '123456789012.99' }),
};

const receiptFor = (url: string, ancho: 80 | 58) =>
  buildReceipt({
    ancho,
    emisor: { nif: base.nif, nombre: 'COMERCIAL DEMO SL' },
    idioma: 'es',
    numeroFactura: 'T6629-1',
    fechaExpedicion: base.fechaExpedicion,
    tipoFactura: 'F2',
    lines: [{ id: '1', descripcion: 'Café', cantidad: '1', precio: '5.70', tipoIva: '10' }],
    qr: { sistema: 'verifactu', url },
  });

/** Modules per side of the engine's PNG (IHDR width / 4 px per module − the quiet zone). */
function pngModules(url: string): number {
  return qrPng(url).readUInt32BE(16) / 4 - 2 * QR_QUIET_MODULES;
}

describe('The printed QR symbol measures 30–40 mm (quiet zone not counted)', () => {
  it('the module count the renderer computes is the one the engine draws and the printer encodes', () => {
    for (const url of Object.values(URLS)) {
      expect(qrModuleCount(url)).toBe(pngModules(url));
      expect(qrModuleCount(url)).toBe(qrModules(url));
    }
    // Every capacity boundary of the table, against the reference encoder.
    for (let length = 1; length <= 700; length += 1) {
      const text = `h${'x'.repeat(length - 1)}`;
      expect(qrModuleCount(text), `length ${length}`).toBe(qrModules(text));
    }
  });

  for (const [entorno, url] of Object.entries(URLS)) {
    for (const ancho of [80, 58] as const) {
      it(`${entorno} URL, ${ancho} mm preview: box × n/(n+8) is ~35 mm and the box fits the paper`, () => {
        const receipt = receiptFor(url, ancho);
        const n = pngModules(receipt.qr.url);
        const box = qrBoxMmFor(receipt.qr.url);
        const symbol = qrSymbolMm(n, box);
        expect(symbol).toBeGreaterThanOrEqual(30);
        expect(symbol).toBeLessThanOrEqual(40);
        expect(symbol).toBeCloseTo(35, 6);
        // The old sizing (the whole box 35 mm) left the symbol at ~30 mm, on or below the lower edge.
        expect(qrSymbolMm(n, 35)).toBeLessThan(31);
        expect(box).toBeLessThanOrEqual(ancho - 2 * 3);
      });

      it(`${entorno} URL, ${ancho} mm printed page: the SVG is the bare symbol, 35 mm, with ≥ 2 mm quiet zone`, async () => {
        const html = await receiptHtml(receiptFor(url, ancho));
        const viewBox = /<svg[^>]*viewBox="0 0 (\d+) (\d+)"/.exec(html);
        expect(viewBox).not.toBeNull();
        // The page's SVG comes from qrcode's own segmentation (it may mix modes): its module count.
        const n = QRCode.create(url, { errorCorrectionLevel: 'M' }).modules.size;
        // qrcode's viewBox is the module count plus twice the margin: no margin means the symbol alone.
        expect(Number(viewBox![1])).toBe(n);
        const boxMm = Number(/\.qr svg \{ width: ([\d.]+)mm;/.exec(html)![1]);
        const symbol = (boxMm * n) / Number(viewBox![1]);
        expect(symbol).toBeGreaterThanOrEqual(30);
        expect(symbol).toBeLessThanOrEqual(40);
        const quiet = Number(/\.qr svg \{ padding: ([\d.]+)mm;/.exec(html)![1]);
        expect(quiet).toBeGreaterThanOrEqual(2);
        expect(quiet).toBeGreaterThanOrEqual((4 * symbol) / n);
        expect(symbol + 2 * quiet).toBeLessThanOrEqual(ancho - 2 * 3);
      });
    }
  }
});
