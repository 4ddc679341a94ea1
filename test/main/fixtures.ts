import type { Receipt } from '../../src-shared/bridge';

/** A receipt as the till builds it (builder: override what a test is about). */
export function aReceipt(overrides: Partial<Receipt> = {}): Receipt {
  return {
    ancho: 80,
    emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
    titulo: 'FACTURA SIMPLIFICADA',
    numeroFactura: 'TABCD1',
    fechaExpedicion: '22-11-2026',
    hora: '12:30:00',
    tipoFactura: 'F2',
    lineas: [
      { descripcion: 'Café con leche', cantidad: '2', precio: '1.60', importe: '3.20', tipoIva: '10' },
      { descripcion: 'Tostada <con> tomate & aceite', cantidad: '1', precio: '2.50', importe: '2.50', tipoIva: '10' },
    ],
    desglose: [{ tipoIva: '10', base: '5.18', cuota: '0.52' }],
    cuotaTotal: '0.52',
    importeTotal: '5.70',
    qr: {
      sistema: 'verifactu',
      url: 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=TABCD1&fecha=22-11-2026&importe=5.70',
    },
    pie: 'Gracias por su compra',
    caja: 'TPV-0123456789AB',
    ...overrides,
  };
}
