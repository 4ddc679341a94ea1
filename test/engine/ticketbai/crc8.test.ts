import { describe, expect, it } from 'vitest';
import { crc8, crc8Digits } from '../../../engine/src/regimes/ticketbai/record/crc8';
import { identificadorTbai, identificadorTbaiValido, LONGITUD_ID_TBAI } from '../../../engine/src/regimes/ticketbai/record/identificador';

describe('CRC-8 (poly 0x07, init 0, no reflection, xorout 0): the official examples', () => {
  it('check value: crc8("123456789") = 244', () => {
    expect(crc8('123456789')).toBe(244);
  });
  it('identifier example: TBAI-00000006Y-251019-btFpwP8dcLGAF- → 237', () => {
    expect(crc8Digits('TBAI-00000006Y-251019-btFpwP8dcLGAF-')).toBe('237');
  });
  it('QR example: https://batuz.eus/QRTBAI/?id=…&s=T&nf=27174&i=4.70 → 007 (three digits, zero-padded)', () => {
    expect(crc8Digits('https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70')).toBe('007');
  });
  it('is computed over the UTF-8 bytes', () => {
    const bytes = Buffer.from('Año', 'utf8');
    let crc = 0;
    for (const b of bytes) {
      crc ^= b;
      for (let k = 0; k < 8; k++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
    }
    expect(crc8('Año')).toBe(crc);
  });
});

describe('Identificativo TBAI: TBAI-{NIF}-{DDMMAA}-{13 chars of SignatureValue}-{CRC}', () => {
  it('reproduces the specification example', () => {
    // The example's signature is only "format": any SignatureValue starting with those 13 chars.
    const id = identificadorTbai({ nif: '00000006Y', fechaExpedicion: '25-10-2019', signatureValue: 'btFpwP8dcLGAFxxxxxxxxxxxxxxxxxx==' });
    expect(id).toBe('TBAI-00000006Y-251019-btFpwP8dcLGAF-237');
    expect(id).toHaveLength(LONGITUD_ID_TBAI);
    expect(identificadorTbaiValido(id)).toBe(true);
  });
  it('DDMMAA keeps leading zeros (01-01-2021 → 010121)', () => {
    const id = identificadorTbai({ nif: 'B12345674', fechaExpedicion: '01-01-2021', signatureValue: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' });
    expect(id.slice(15, 21)).toBe('010121');
    expect(id.slice(22, 35)).toBe('ABCDEFGHIJKLM');
  });
  it('a changed character breaks the CRC check', () => {
    expect(identificadorTbaiValido('TBAI-00000006Y-251019-btFpwP8dcLGAF-238')).toBe(false);
    expect(identificadorTbaiValido('TBAI-00000006Y-251019-btFpwP8dcLGAx-237')).toBe(false);
  });
  it('refuses inputs that cannot make a 39-character identifier', () => {
    expect(() => identificadorTbai({ nif: 'B1234567', fechaExpedicion: '01-01-2021', signatureValue: 'ABCDEFGHIJKLMNOP' })).toThrow(RangeError);
    expect(() => identificadorTbai({ nif: 'B12345674', fechaExpedicion: '2021-01-01', signatureValue: 'ABCDEFGHIJKLMNOP' })).toThrow(RangeError);
    expect(() => identificadorTbai({ nif: 'B12345674', fechaExpedicion: '01-01-2021', signatureValue: 'short' })).toThrow(RangeError);
  });
});
