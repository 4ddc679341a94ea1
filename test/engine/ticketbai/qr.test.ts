import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { crc8Digits } from '../../../engine/src/regimes/ticketbai/record/crc8';
import { QR_HOSTS, qrTbaiPng, urlQrTbai } from '../../../engine/src/regimes/ticketbai/record/qr';

const ID = 'TBAI-00000006Y-251019-btFpwP8dcLGAF-237';

describe('QR TBAI: {host}?id=…&s=…&nf=…&i=…&cr=CRC-8 of everything before &cr', () => {
  it('reproduces the official example (Bizkaia): cr=007', () => {
    expect(urlQrTbai({ provincia: 'bizkaia', entorno: 'live', idTbai: ID, serie: 'T', numero: '27174', importeTotal: '4.70' })).toBe(
      'https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70&cr=007',
    );
  });

  const casos = [
    ['araba', 'test', 'https://pruebas-ticketbai.araba.eus/tbai/qrtbai/'],
    ['araba', 'live', 'https://ticketbai.araba.eus/tbai/qrtbai/'],
    ['bizkaia', 'test', 'https://batuz.eus/QRTBAI/'],
    ['bizkaia', 'live', 'https://batuz.eus/QRTBAI/'],
    ['gipuzkoa', 'test', 'https://tbai.prep.gipuzkoa.eus/qr/'],
    ['gipuzkoa', 'live', 'https://tbai.egoitza.gipuzkoa.eus/qr/'],
  ] as const;
  for (const [provincia, entorno, host] of casos) {
    it(`${provincia} ${entorno}: ${host}`, () => {
      expect(QR_HOSTS[provincia][entorno]).toBe(host);
      const url = urlQrTbai({ provincia, entorno, idTbai: ID, serie: 'A-2026', numero: '0001', importeTotal: '121.00' });
      const sinCrc = `${host}?id=${ID}&s=A-2026&nf=0001&i=121.00`;
      expect(url).toBe(`${sinCrc}&cr=${crc8Digits(sinCrc)}`);
    });
  }

  it('URL-encodes the values and computes the CRC over the encoded text', () => {
    const url = urlQrTbai({ provincia: 'gipuzkoa', entorno: 'test', idTbai: ID, serie: 'A/B & C', numero: 'Nº 1', importeTotal: '-5.00' });
    const sinCrc = 'https://tbai.prep.gipuzkoa.eus/qr/?id=' + ID + '&s=A%2FB%20%26%20C&nf=N%C2%BA%201&i=-5.00';
    expect(url).toBe(`${sinCrc}&cr=${crc8Digits(sinCrc)}`);
  });

  it('an invoice without series has an empty s=', () => {
    expect(urlQrTbai({ provincia: 'bizkaia', entorno: 'test', idTbai: ID, numero: '7', importeTotal: '1.00' })).toMatch(/\?id=[^&]+&s=&nf=7&i=1\.00&cr=\d{3}$/);
  });

  it('the PNG decodes back to the URL', () => {
    const url = urlQrTbai({ provincia: 'araba', entorno: 'live', idTbai: ID, serie: 'T', numero: '27174', importeTotal: '4.70' });
    const png = PNG.sync.read(qrTbaiPng(url));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(decoded?.data).toBe(url);
  });
});
