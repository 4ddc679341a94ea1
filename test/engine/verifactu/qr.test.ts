import { createHash } from 'node:crypto';
import fc from 'fast-check';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { qrPng as renderQrPng } from '../../../engine/src/qr/png';
import { javaUrlEncode, qrPng, qrPngBase64, urlValidacion } from '../../../engine/src/regimes/verifactu/record/qr';

function decode(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
}

const OFFICIAL =
  'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=89890001K&numserie=12345678%26G33&fecha=01-01-2024&importe=241.4';

describe('QR URL: nif, numserie, fecha, importe, URL-encoded as Java\'s URLEncoder (UTF-8)', () => {
  it('reproduces the official TEST example, "12345678&G33" → "12345678%26G33"', () => {
    expect(
      urlValidacion({ entorno: 'test', nif: '89890001K', numSerie: '12345678&G33', fechaExpedicion: '01-01-2024', importeTotal: '241.4' }),
    ).toBe(OFFICIAL);
  });

  it('uses www2.agenciatributaria.gob.es in production', () => {
    expect(
      urlValidacion({ entorno: 'live', nif: '89890001K', numSerie: '12345678-G33', fechaExpedicion: '01-09-2024', importeTotal: '241.4' }),
    ).toBe('https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=89890001K&numserie=12345678-G33&fecha=01-09-2024&importe=241.4');
  });

  it('uses ValidarQRNoVerifactu for systems that do not send records', () => {
    expect(
      urlValidacion({ entorno: 'test', nif: '89890001K', numSerie: '12345678-G33', fechaExpedicion: '01-09-2024', importeTotal: '241.4', verifactu: false }),
    ).toBe('https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=89890001K&numserie=12345678-G33&fecha=01-09-2024&importe=241.4');
  });

  it.each([
    ['A B', 'A+B'],
    ['a*b.c-d_e', 'a*b.c-d_e'],
    ["!'()~", '%21%27%28%29%7E'],
    ['/=?#%+', '%2F%3D%3F%23%25%2B'],
    ['ñ', '%C3%B1'],
  ])('encodes %j as %j', (input, expected) => {
    expect(javaUrlEncode(input)).toBe(expected);
  });

  it('the shortcut for values that need no encoding answers what the full encoding does, for any string', () => {
    const fullEncoding = (value: string) =>
      encodeURIComponent(value)
        .replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
        .replace(/%20/g, '+');
    const alphabet = [...'Az09.-*_ !~/+%ñ'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }), (chars) => {
        const value = chars.join('');
        expect(javaUrlEncode(value)).toBe(fullEncoding(value));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('QR image: ISO/IEC 18004, error correction level M, PNG', () => {
  it('decodes to exactly the official URL', async () => {
    expect(decode(await qrPng(OFFICIAL))).toBe(OFFICIAL);
  });

  it('carries error correction level M in its format information', async () => {
    // Format bits 14 and 13 sit at modules (row 8, col 0) and (8, 1); after the standard XOR mask
    // 101010000010010 they read dark, light for M (L: dark dark, Q: light dark, H: light light).
    const img = PNG.sync.read(await qrPng(OFFICIAL));
    const modules = jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.version ?? 0;
    const size = 17 + 4 * modules;
    const scale = img.width / (size + 8); // 4-module quiet zone on each side
    const dark = (row: number, col: number) => {
      const x = Math.floor((4 + col + 0.5) * scale);
      const y = Math.floor((4 + row + 0.5) * scale);
      return (img.data[(y * img.width + x) * 4] ?? 255) < 128;
    };
    expect(Number.isInteger(scale)).toBe(true);
    expect([dark(8, 0), dark(8, 1)]).toEqual([true, false]);
  });

  it('is deterministic for the same URL', async () => {
    expect((await qrPng(OFFICIAL)).equals(await qrPng(OFFICIAL))).toBe(true);
  });

  it('is a PNG, and qrPngBase64 is its base64 without a data: prefix', async () => {
    const png = await qrPng(OFFICIAL);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(await qrPngBase64(OFFICIAL)).toBe(png.toString('base64'));
  });
});

describe('QR image: the cheaper PNG encoding draws the very same pixels as before', () => {
  // SHA-256 of the decoded RGBA pixels of the PNGs the engine wrote before issue 16 (filter None
  // on every row): printed and reprinted QRs look the same across the change, module for module.
  it.each([
    [OFFICIAL, 212, '666cec6ac1f068c9518cf92fd7fa7b1f6406bdd2971bde39a9b7976bd195b8fd'],
    [
      'https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=FACTURA-2026%2F000123&fecha=20-11-2026&importe=1234567.89',
      228,
      '5cf7c444ff385fc87bed5923f8b6b7065890a64e22f6c5eb7e770348c33a9a6f',
    ],
    ['https://batuz.eus/QRTBAI/?id=TBAI-A58818501-201126-btlSSSiqbUyZ0-095&s=B&nf=000123&i=12.10&cr=123', 196, 'b47c22a15fc72333af69ff0cf46a3a8dd02ca1184fc6bb36b0f706a9c07d7c9c'],
  ])('%s: %i px wide, same pixels, decodes to the URL', (url, width, pixels) => {
    const png = renderQrPng(url);
    const img = PNG.sync.read(png);
    expect(img.width).toBe(width);
    expect(img.height).toBe(width);
    expect(createHash('sha256').update(img.data).digest('hex')).toBe(pixels);
    expect(decode(png)).toBe(url);
  });
});
