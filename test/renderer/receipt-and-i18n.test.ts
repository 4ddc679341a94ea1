import { describe, expect, it } from 'vitest';
import { receiptSchema } from '../../src-shared/bridge';
import { buildReceipt, buildReceiptFromTotals } from '../../src-renderer/features/sale/receipt-model';
import { SalesCache, type CachedSale } from '../../src-renderer/features/sale/sales-cache';
import { DICTS, LANGS } from '../../src-renderer/i18n/dict';
import { formatAmount, translate } from '../../src-renderer/i18n';
import { memoryStore } from '../../src-renderer/platform/storage';

const qr = { sistema: 'verifactu' as const, url: 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=TABCD1&fecha=22-11-2026&importe=5.70' };

describe('Receipts built by the renderer pass main’s zod check (src-shared/bridge.ts)', () => {
  it('a sale', () => {
    const receipt = buildReceipt({
      ancho: 58,
      emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
      idioma: 'es',
      numeroFactura: 'TABCD1',
      fechaExpedicion: '22-11-2026',
      hora: '12:30:00',
      tipoFactura: 'F2',
      lines: [{ id: '1', descripcion: 'Café con leche', cantidad: '2', precio: '1.60', tipoIva: '10' }],
      qr,
      caja: 'WEB-ABCDEFGHJK',
    });
    expect(receiptSchema.parse(receipt)).toEqual(receipt);
    expect(receipt.importeTotal).toBe('3.20');
    expect(receipt.desglose).toEqual([{ tipoIva: '10', base: '2.91', cuota: '0.29' }]);
  });

  it('a reprint of an invoice the till has no lines for keeps the engine’s totals', () => {
    const receipt = buildReceiptFromTotals({ ancho: 80, emisor: { nif: 'B12345674', nombre: 'B12345674' }, idioma: 'es', numeroFactura: 'BL9', fechaExpedicion: '22-11-2026', tipoFactura: 'F2', qr, copia: true, importeTotal: '12.10', cuotaTotal: '2.10', descripcion: 'Venta' });
    expect(receiptSchema.parse(receipt)).toMatchObject({ importeTotal: '12.10', cuotaTotal: '2.10', copia: true, lineas: [] });
  });
});

describe('The till remembers its own sales for reprints, corrections and refunds', () => {
  it('keeps the newest 300 and finds them by idFactura', () => {
    const cache = new SalesCache(memoryStore());
    const sale = (i: number): CachedSale => ({ idFactura: `f${i}`, entorno: 'test', nifEmisor: 'B12345674', nombreEmisor: 'X', serie: 'T', numero: String(i), numeroFactura: `T${i}`, fechaExpedicion: '22-11-2026', tipoFactura: 'F2', lines: [], urlValidacion: qr.url, qrBase64: 'AAAA' });
    for (let i = 0; i < 305; i++) cache.put(sale(i));
    expect(cache.get('f304')?.numero).toBe('304');
    expect(cache.get('f4')).toBeUndefined();
    expect(cache.get('f5')?.numero).toBe('5');
  });
});

describe('Spanish by default, Basque and English available', () => {
  it('every language has every message, with the same placeholders', () => {
    const keys = Object.keys(DICTS.es);
    for (const lang of LANGS) {
      expect(Object.keys(DICTS[lang]).sort()).toEqual([...keys].sort());
      for (const key of keys as (keyof typeof DICTS.es)[]) {
        expect(DICTS[lang][key].match(/\{\w+\}/g) ?? []).toEqual(DICTS.es[key].match(/\{\w+\}/g) ?? []);
        expect(DICTS[lang][key].length).toBeGreaterThan(0);
      }
    }
  });

  it('fills placeholders and formats amounts with the language’s decimal separator', () => {
    expect(translate('es', 'facturas.confirmarAnular', { n: 'T1' })).toContain('T1');
    expect(translate('eu', 'nav.venta')).toBe('Salmenta');
    expect(translate('en', 'nav.venta')).toBe('Sale');
    expect(formatAmount('es', '5.70')).toBe('5,70');
    expect(formatAmount('en', '5.70')).toBe('5.70');
  });
});

describe('Receipts follow the shop’s document language, not the staff’s UI language', () => {
  const sale = (idioma: 'es' | 'eu' | 'es-eu', extra: Partial<Parameters<typeof buildReceipt>[0]> = {}) =>
    buildReceipt({
      ancho: 80,
      idioma,
      emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
      numeroFactura: 'TABCD-2',
      fechaExpedicion: '23-11-2026',
      tipoFactura: 'F2',
      lines: [{ id: '1', descripcion: 'Café', cantidad: '1', precio: '1.50', tipoIva: '10' }],
      qr,
      gracias: true,
      ...extra,
    });

  it('Spanish by default; Basque; bilingual Spanish / Basque', () => {
    expect(sale('es')).toMatchObject({ titulo: 'FACTURA SIMPLIFICADA', pie: 'Gracias por su compra', etiquetas: { total: 'Total', cuota: 'Cuota' } });
    expect(sale('eu')).toMatchObject({ titulo: 'FAKTURA SINPLIFIKATUA', pie: 'Eskerrik asko zure erosketagatik', etiquetas: { total: 'Guztira' } });
    expect(sale('es-eu')).toMatchObject({ titulo: 'FACTURA SIMPLIFICADA / FAKTURA SINPLIFIKATUA', etiquetas: { total: 'Total / Guztira' } });
    for (const idioma of ['es', 'eu', 'es-eu'] as const) expect(receiptSchema.parse(sale(idioma))).toEqual(sale(idioma));
  });

  it('a rectifying ticket names the invoice it corrects: series, number and date', () => {
    const r5 = sale('es', { tipoFactura: 'R5', rectificada: { numeroFactura: 'TABCD-1', fechaExpedicion: '22-11-2026' }, lines: [{ id: '1', descripcion: 'Café', cantidad: '-1', precio: '1.50', tipoIva: '10' }] });
    expect(r5.titulo).toBe('FACTURA RECTIFICATIVA');
    expect(r5.rectifica).toBe('Rectifica la factura TABCD-1 del 22/11/2026');
    expect(receiptSchema.parse(r5)).toEqual(r5);
  });

  it('a full invoice carries the customer’s address when given', () => {
    const f1 = sale('es', { tipoFactura: 'F1', destinatario: { nif: 'B87654323', nombre: 'CLIENTE SL', direccion: ' Calle Mayor 1, 28013 Madrid ' } });
    expect(f1.destinatario).toEqual({ nif: 'B87654323', nombre: 'CLIENTE SL', direccion: 'Calle Mayor 1, 28013 Madrid' });
    expect(receiptSchema.parse(f1)).toEqual(f1);
    expect(sale('es', { tipoFactura: 'F1', destinatario: { nif: 'B87654323', nombre: 'CLIENTE SL', direccion: '' } }).destinatario).toEqual({ nif: 'B87654323', nombre: 'CLIENTE SL' });
  });
});

describe('The Spanish catalogue has no English UI words', () => {
  it('no value of es contains a word from the deny-list', () => {
    const deny = /\b(Cancel|Retry|Loading|Updated|Pending|Rejected|Registered|Queue|Settings|Invoice|Error:|none|TEST|LIVE|Forbidden)\b/;
    for (const [key, text] of Object.entries(DICTS.es)) {
      expect(text, key).not.toMatch(deny);
    }
  });
});
