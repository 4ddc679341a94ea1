import { describe, expect, it } from 'vitest';
import { ticketbaiCrearBody } from '../../src-shared/api/ticketbai';
import { verifactuCrearBody } from '../../src-shared/api/verifactu';
import { buildTicketbaiBody, buildVerifactuBody, computeTotals, describeSale, parseInputAmount, readAmount, superaLimiteF2, type SaleLine } from '../../src-renderer/features/sale/cart';

const line = (descripcion: string, cantidad: string, precio: string, tipoIva: string): SaleLine => ({ id: descripcion, descripcion, cantidad, precio, tipoIva });

describe('Sale totals with decimal.js: shelf prices include VAT', () => {
  it('per rate: total = Σ qty × price; base = total / (1 + rate) to the cent; cuota = total − base', () => {
    const t = computeTotals([line('Café con leche', '2', '1.60', '10'), line('Tostada', '1', '2.50', '10'), line('Revista', '1', '3.00', '4'), line('Pila', '3', '0.99', '21')]);
    expect(t.desglose).toEqual([
      { tipoIva: '21', base: '2.45', cuota: '0.52', total: '2.97' },
      { tipoIva: '10', base: '5.18', cuota: '0.52', total: '5.70' },
      { tipoIva: '4', base: '2.88', cuota: '0.12', total: '3.00' },
    ]);
    expect(t.importeTotal).toBe('11.67');
    expect(t.cuotaTotal).toBe('1.16');
  });

  it('no binary floating point: 0.1 + 0.2 style sums stay exact', () => {
    const t = computeTotals(Array.from({ length: 10 }, (_, i) => line(`x${i}`, '1', '0.10', '21')));
    expect(t.importeTotal).toBe('1.00');
  });

  it('a refund (negative quantities) mirrors the sale', () => {
    const sale = computeTotals([line('A', '2', '1.60', '10')]);
    const refund = computeTotals([line('A', '-2', '1.60', '10')]);
    expect(refund.importeTotal).toBe(`-${sale.importeTotal}`);
    expect(refund.desglose[0]).toEqual({ tipoIva: '10', base: `-${sale.desglose[0]!.base}`, cuota: `-${sale.desglose[0]!.cuota}`, total: `-${sale.desglose[0]!.total}` });
  });

  it('reads amounts as typed at a Spanish till: comma or dot, limited decimals', () => {
    expect(parseInputAmount('1,60')).toBe('1.60');
    expect(parseInputAmount('2')).toBe('2');
    expect(parseInputAmount('1.605')).toBeNull();
    expect(parseInputAmount('abc')).toBeNull();
    expect(parseInputAmount('-1', 3)).toBeNull();
    expect(parseInputAmount('-1', 3, true)).toBe('-1');
    expect(parseInputAmount('0,125', 3)).toBe('0.125');
  });

  it('accepts the Spanish forms a cashier types, and says why the rest are refused', () => {
    expect(readAmount('1.234,56')).toEqual({ ok: true, value: '1234.56' });
    expect(readAmount('1.234.567')).toEqual({ ok: true, value: '1234567' });
    expect(readAmount('1,234.56')).toEqual({ ok: true, value: '1234.56' });
    expect(readAmount(' 2,5 ')).toEqual({ ok: true, value: '2.5' });
    expect(readAmount('1e3')).toEqual({ ok: false, problem: 'numeroNoValido' });
    expect(readAmount('12a')).toEqual({ ok: false, problem: 'numeroNoValido' });
    expect(readAmount('-1')).toEqual({ ok: false, problem: 'numeroNoValido' });
    expect(readAmount('99999999999')).toEqual({ ok: false, problem: 'demasiadoGrande' });
    expect(readAmount('1.234')).toEqual({ ok: false, problem: 'demasiadosDecimales' });
    expect(readAmount('1.234', 3)).toEqual({ ok: true, value: '1.234' });
    expect(readAmount('-0', 3, true)).toEqual({ ok: true, value: '0' });
  });

  it('the F2 limit is 3.000,00 €, total included', () => {
    expect(superaLimiteF2('3000.00')).toBe(false);
    expect(superaLimiteF2('3000.01')).toBe(true);
  });
});

describe('The crear bodies the till sends satisfy the shared contract', () => {
  const doc = {
    emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
    serie: 'TABCD',
    numero: '7',
    fechaExpedicion: '22-11-2026',
    tipoFactura: 'F2' as const,
    lines: [line('Café con leche', '2', '1.60', '10'), line('Pila', '3', '0.99', '21')],
    idMaquina: 'TPV-0123456789AB',
  };

  it('VeriFactu F2: one desglose row per rate (S1, régimen 01), totals, idMaquina', () => {
    const body = buildVerifactuBody(doc);
    expect(verifactuCrearBody.parse(body)).toEqual(body);
    expect(body.detalleDesglose).toHaveLength(2);
    expect(body.idMaquina).toBe('TPV-0123456789AB');
    expect(body.destinatario).toBeUndefined();
    expect(body.cabecera.descripcion).toBe('Venta: 2× Café con leche; 3× Pila');
  });

  it('VeriFactu F1 carries the customer', () => {
    const body = buildVerifactuBody({ ...doc, tipoFactura: 'F1', destinatario: { nif: '12345678Z', nombre: 'ANA GARCIA' } });
    expect(verifactuCrearBody.parse(body).destinatario).toEqual({ nif: '12345678Z', nombre: 'ANA GARCIA' });
  });

  it('VeriFactu R5 refund: rectificativa por diferencias of the original ticket, negative amounts', () => {
    const body = buildVerifactuBody({ ...doc, tipoFactura: 'R5', lines: [line('Pila', '-1', '0.99', '21')], rectificada: { serie: 'TABCD', numero: '3', fechaExpedicion: '21-11-2026' } });
    const parsed = verifactuCrearBody.parse(body);
    expect(parsed.rectificativa).toEqual({ tipo: 'I' });
    expect(parsed.facturasRectificadas).toEqual([{ serie: 'TABCD', numero: '3', fechaExpedicion: '21-11-2026' }]);
    expect(parsed.totales.importeTotal).toBe('-0.99');
    expect(parsed.cabecera.descripcion).toMatch(/^Devolución/);
  });

  it('TicketBAI (Bizkaia): lines with unit price without VAT, breakdown, time of issue', () => {
    const body = buildTicketbaiBody(doc, 'bizkaia', '12:30:00');
    expect(ticketbaiCrearBody.parse(body)).toMatchObject({ provincia: 'bizkaia', importeTotal: '6.17', horaExpedicion: '12:30:00' });
    expect(body.lineas?.[0]).toEqual({ descripcion: 'Café con leche', cantidad: '2', importeUnitario: '1.45454545', importeTotal: '3.20' });
  });

  it('a description never exceeds the 500 characters AEAT allows', () => {
    expect(describeSale(Array.from({ length: 100 }, (_, i) => line(`Artículo número ${i}`, '1', '1', '21'))).length).toBe(500);
  });
});
