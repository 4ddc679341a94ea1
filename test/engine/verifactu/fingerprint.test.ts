// The replay fingerprint of a correction: the same invoice in any spelling gives the same value,
// a different invoice a different one.
import { describe, expect, it } from 'vitest';
import { verifactuSubsanarBody } from '../../../src-shared/api/verifactu';
import { ticketbaiSubsanarBody } from '../../../src-shared/api/ticketbai';
import {
  CAMPOS_CANONICOS_TICKETBAI,
  CAMPOS_CANONICOS_VERIFACTU,
  decimalCanonico,
  fingerprintFactura,
} from '../../../engine/src/issuing/fingerprint';
import { aDetalle, aSubsanacion } from '../../fixtures/verifactu';
import { aFacturaTbai, aLineaTbai } from '../ticketbai/fixtures';

const vf = (body: unknown) => {
  const { subsanacion: _s, ...factura } = verifactuSubsanarBody.parse(body);
  return fingerprintFactura(factura, CAMPOS_CANONICOS_VERIFACTU);
};

describe('decimalCanonico', () => {
  it.each([
    ['21', '21.00'],
    ['21.0', '21.00'],
    ['021.00', '21.00'],
    ['-0.00', '0.00'],
    ['0', '0.00'],
    ['1.50000000', '1.50'],
    ['1.12345678', '1.12345678'],
    ['-5.5', '-5.50'],
  ])('%s → %s', (input, expected) => {
    expect(decimalCanonico(input)).toBe(expected);
  });
});

describe('fingerprintFactura', () => {
  it('VeriFactu: key order, amount and rate spelling and the subsanacion flag do not matter', () => {
    const a = aSubsanacion({ detalleDesglose: [aDetalle({ baseImponible: '100.00', tipoImpositivo: '21.00', cuotaRepercutida: '21.00' })], totales: { cuotaTotal: '21.00', importeTotal: '121.00' } });
    const b = {
      rechazoPrevio: a.rechazoPrevio,
      subsanacion: 'S',
      totales: { importeTotal: '121', cuotaTotal: '21.0' },
      detalleDesglose: [{ ...aDetalle({ baseImponible: '100', tipoImpositivo: '21', cuotaRepercutida: '021' }) }],
      ...Object.fromEntries(Object.entries(a).filter(([k]) => !['rechazoPrevio', 'subsanacion', 'totales', 'detalleDesglose'].includes(k)).reverse()),
    };
    expect(vf(b)).toBe(vf(a));
  });

  it('VeriFactu: another amount, text or rechazoPrevio is another fingerprint', () => {
    const base = vf(aSubsanacion());
    expect(vf(aSubsanacion({ totales: { cuotaTotal: '21.00', importeTotal: '121.01' } }))).not.toBe(base);
    expect(vf(aSubsanacion({ cabecera: { descripcion: 'Otra' } }))).not.toBe(base);
    expect(vf(aSubsanacion({}, 'S'))).not.toBe(base);
  });

  it('TicketBAI: line amounts with up to 8 decimals compare by value; cantidad defaults to 1', () => {
    const tb = (body: unknown) => {
      const { subsanacion: _s, ...factura } = ticketbaiSubsanarBody.parse(body);
      return fingerprintFactura(factura, CAMPOS_CANONICOS_TICKETBAI);
    };
    const linea = aLineaTbai({ cantidad: '1', importeUnitario: '10.5', importeTotal: '12.705' });
    const a = { ...aFacturaTbai({ lineas: [linea] }), subsanacion: true };
    const { cantidad: _c, ...sinCantidad } = linea;
    const b = { ...aFacturaTbai(), lineas: [{ ...sinCantidad, importeUnitario: '10.50000000', importeTotal: '12.7050' }], subsanacion: true };
    expect(tb(b)).toBe(tb(a));
    expect(tb({ ...aFacturaTbai({ lineas: [{ ...linea, importeTotal: '12.706' }] }), subsanacion: true })).not.toBe(tb(a));
  });
});
