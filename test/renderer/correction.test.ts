import { describe, expect, it } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { useInvoices, type FacturaEnvelope } from '../../src-renderer/features/invoices/store';
import { rechazoPrevioDe } from '../../src-renderer/features/sale/rechazo-previo';
import { useSale } from '../../src-renderer/features/sale/store';
import { memoryStore } from '../../src-renderer/platform/storage';
import { fakeEngine } from './support/fake-engine';

type Reg = FacturaEnvelope['registros'][number];
let seq = 0;
const reg = (tipo: Reg['tipo'], estado: Reg['estado'], minute: number): Reg => ({
  idRegistro: `r${++seq}`,
  idFactura: 'f1',
  tipo,
  estado,
  ...(estado === 'rechazada' ? { estadoEnvioFinal: 'rechazada' as const } : {}),
  creadoEn: `2026-11-22T10:${String(minute).padStart(2, '0')}:00.000Z`,
  numeroFactura: 'TABCD-1',
  sistemaFiscal: 'verifactu',
  ultimaModificacion: '2026-11-22T10:59:00.000Z',
});

describe('rechazoPrevio of a VeriFactu correction, as the engine works it out (annex 5.1)', () => {
  it('X when every alta was rejected (AEAT holds nothing)', () => {
    expect(rechazoPrevioDe([reg('alta', 'rechazada', 1)])).toBe('X');
    expect(rechazoPrevioDe([reg('subsanacion', 'rechazada', 2), reg('alta', 'rechazada', 1)])).toBe('X');
  });

  it('S when the invoice is registered and the last correction was rejected', () => {
    expect(rechazoPrevioDe([reg('subsanacion', 'rechazada', 2), reg('alta', 'aceptada', 1)])).toBe('S');
  });

  it('N otherwise; cancellations do not count; newest first whatever order they come in', () => {
    expect(rechazoPrevioDe([reg('alta', 'aceptada', 1)])).toBe('N');
    expect(rechazoPrevioDe([reg('subsanacion', 'aceptada', 3), reg('subsanacion', 'rechazada', 2), reg('alta', 'aceptada', 1)])).toBe('N');
    expect(rechazoPrevioDe([reg('alta', 'aceptada', 1), reg('subsanacion', 'rechazada', 2)])).toBe('S');
    expect(rechazoPrevioDe([reg('anulacion', 'rechazada', 3), reg('alta', 'aceptada', 1)])).toBe('N');
    expect(rechazoPrevioDe([reg('alta', 'pendiente', 1)])).toBe('N');
  });
});

describe('Correcting a rejected invoice from the invoices screen sends what the engine expects', () => {
  it('an alta rejected by AEAT: the subsanar request carries rechazoPrevio X (no correction warning)', async () => {
    const { client, calls } = fakeEngine((call) => (call.method === 'PUT' ? { status: 503, body: { code: 'UNAVAILABLE', message: 'x' } } : undefined));
    useSession.setState({
      client,
      emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL', hacienda: 'verifactu' },
      entorno: 'test',
      idMaquina: 'WEB-ABCDEFGHJK',
      settings: { serie: 'TABCD-', ancho: 80, imprimirAlCobrar: false, idiomaTicket: 'es', zonaHoraria: 'Europe/Madrid' },
      store: memoryStore(),
      setScreen: () => undefined,
    });
    const detalle: FacturaEnvelope = {
      factura: { idFactura: 'f1', nifEmisor: 'B12345674', numeroFactura: 'TABCD-1', serie: 'TABCD-', numero: '1', fechaExpedicion: '22-11-2026', tipoFactura: 'F2', sistemaFiscal: 'verifactu', estadoEnvio: 'rechazada', fechaRegistro: '2026-11-22T10:00:00.000Z', ultimaModificacion: '2026-11-22T10:01:00.000Z' },
      registros: [reg('alta', 'rechazada', 1)],
      totalRegistros: 1,
    };
    useInvoices.setState({ detalle });
    useInvoices.getState().startCorrection('subsanar');
    expect(useSale.getState().mode).toMatchObject({ kind: 'subsanar', original: { numero: '1', rechazoPrevio: 'X' } });
    useSale.setState({ lines: [{ id: 'l1', descripcion: 'Café', cantidad: '1', precio: '1.50', tipoIva: '10' }] });
    await useSale.getState().complete();
    const put = calls.find((c) => c.method === 'PUT');
    expect(put?.url).toBe('/panel/v1/api/billing/v1/verifactu/subsanar');
    expect(put?.body).toMatchObject({ subsanacion: true, rechazoPrevio: 'X', cabecera: { serie: 'TABCD-', numero: '1', fechaExpedicion: '22-11-2026' } });
  });
});
