// Rule 3 of issue 14: only true states. A cancellation sent but not yet accepted reads «Anulación
// pendiente de envío» (the invoice stays registered) and cannot be sent twice; «Anulada» only once
// the authority accepts. One status vocabulary for the list, the detail and the sale result.
import { beforeEach, describe, expect, it } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { esFinal, estadoMostrado } from '../../src-renderer/features/invoices/estado';
import { estadoAnulacion, estadoDe, estadoVisible, useInvoices, type FacturaEnvelope, type FacturaItem } from '../../src-renderer/features/invoices/store';
import { translate } from '../../src-renderer/i18n';
import { memoryStore } from '../../src-renderer/platform/storage';
import { fakeEngine, ok } from './support/fake-engine';

type Reg = FacturaEnvelope['registros'][number];
const TS = '2026-11-22T10:00:00.000Z';
const reg = (id: string, tipo: Reg['tipo'], estado: Reg['estado'], extra: Partial<Reg> = {}): Reg =>
  ({ idRegistro: id, idFactura: 'f1', tipo, estado, creadoEn: TS, numeroFactura: 'TABCD-1', sistemaFiscal: 'verifactu', ultimaModificacion: TS, ...extra }) as Reg;
const factura = (extra: Partial<FacturaEnvelope['factura']> = {}): FacturaEnvelope['factura'] => ({
  idFactura: 'f1',
  nifEmisor: 'B12345674',
  numeroFactura: 'TABCD-1',
  serie: 'TABCD-',
  numero: '1',
  fechaExpedicion: '22-11-2026',
  tipoFactura: 'F2',
  sistemaFiscal: 'verifactu',
  estadoFactura: 'registrada',
  fechaRegistro: TS,
  ultimaModificacion: TS,
  ...extra,
});
const envelope = (f: FacturaEnvelope['factura'], registros: Reg[]): FacturaEnvelope => ({ factura: f, registros, totalRegistros: registros.length });

describe('One status vocabulary: concluded states, rejected, or pending filing', () => {
  it.each([
    [{ estadoFactura: 'registrada' }, 'registrada'],
    [{ estadoFactura: 'anulada' }, 'anulada'],
    [{ estadoEnvio: 'rechazada' }, 'rechazada'],
    [{ estadoEnvio: 'pendiente_proceso' }, 'pendiente_envio'],
    [{ estadoEnvio: 'en_lote' }, 'pendiente_envio'],
    [{ estadoFactura: 'procesando', estadoEnvio: 'procesando' }, 'pendiente_envio'],
    [{ estadoEnvio: 'desconocido' }, 'pendiente_envio'],
  ] as const)('%o reads %s', (f, estado) => {
    expect(estadoDe(f)).toBe(estado);
  });

  it('the words are the same for every in-between state (no «Enviando» beside «Pendiente de envío»)', () => {
    for (const e of ['pendiente_proceso', 'pendiente_envio', 'en_lote', 'en_cola', 'procesando', 'pendiente'] as const) {
      expect(translate('es', `estado.${e}`)).toBe('Pendiente de envío');
    }
  });
});

/**
 * A fake engine holding one registered invoice f1 whose cancellation stands at `anulacion` (set it
 * to move the authority's answer on), and the till's session and invoice store pointed at it.
 */
function tillWithOneInvoice(anulacion?: Reg['estado']) {
  const engine = { anulacion, posts: [] as string[], listReads: 0 };
  const { client } = fakeEngine((call) => {
    const url = new URL(call.url, 'http://till');
    if (call.method === 'POST' && url.pathname.endsWith('/verifactu/anular')) {
      engine.posts.push(url.pathname);
      engine.anulacion = 'pendiente';
      return ok({ code: 'SUCCESS', data: { idFactura: 'f1', idRegistro: 'b', numeroFactura: 'TABCD-1', serie: 'TABCD-', numero: '1', estado: 'pendiente', creadoEn: TS, huella: 'A'.repeat(64) } });
    }
    const f = factura({ estadoFactura: engine.anulacion === 'aceptada' ? 'anulada' : 'registrada' });
    if (url.pathname.endsWith('/facturas/f1')) return ok(envelope(f, [reg('a', 'alta', 'aceptada'), ...(engine.anulacion ? [reg('b', 'anulacion', engine.anulacion)] : [])]));
    if (url.pathname.endsWith('/v1/facturas')) {
      engine.listReads += 1;
      const item: FacturaItem = { idFactura: 'f1', nifEmisor: 'B12345674', numeroFactura: 'TABCD-1', tipoFactura: 'F2', sistemaFiscal: 'verifactu', estadoFactura: f.estadoFactura as 'registrada', fechaRegistro: TS, ultimaModificacion: TS };
      return ok({ facturas: [item], total: 1, nifEmisor: 'B12345674', nombreEmisor: 'DEMO', proximaPagina: null });
    }
    return undefined;
  });
  useSession.setState({ client, emisor: { nif: 'B12345674', nombre: 'DEMO', hacienda: 'verifactu' }, lang: 'es', store: memoryStore(), idMaquina: 'WEB-1' });
  useInvoices.setState({ anulacionesPendientes: {}, detalle: undefined, mensaje: undefined });
  return engine;
}

describe('A cancellation reads pending until the authority accepts it', () => {
  it('from the records: none, pending, refused, accepted', () => {
    expect(estadoAnulacion(envelope(factura(), [reg('a', 'alta', 'aceptada')]))).toBeUndefined();
    expect(estadoAnulacion(envelope(factura(), [reg('a', 'alta', 'aceptada'), reg('b', 'anulacion', 'pendiente')]))).toBe('anulacion_pendiente');
    expect(estadoAnulacion(envelope(factura(), [reg('a', 'alta', 'aceptada'), reg('b', 'anulacion', 'procesando')]))).toBe('anulacion_pendiente');
    expect(estadoAnulacion(envelope(factura(), [reg('a', 'alta', 'aceptada'), reg('b', 'anulacion', 'rechazada', { estadoEnvioFinal: 'rechazada' })]))).toBe('anulacion_rechazada');
    expect(estadoAnulacion(envelope(factura({ estadoFactura: 'anulada' }), [reg('a', 'alta', 'aceptada'), reg('b', 'anulacion', 'aceptada')]))).toBe('anulada');
  });

  it('Anular: the detail reads pending (from its records, not a message kept), the row «Anulación pendiente de envío», then «Anulada» once accepted', async () => {
    const engine = tillWithOneInvoice();
    const s = () => useInvoices.getState();
    await s().load(true);
    await s().open('f1');
    await s().anular();
    expect(s().mensaje).toBeUndefined();
    expect(estadoMostrado(s().detalle!)).toBe('anulacion_pendiente');
    expect(esFinal(estadoMostrado(s().detalle!))).toBe(false);
    expect(estadoAnulacion(s().detalle!)).toBe('anulacion_pendiente');
    await s().refresh();
    expect(estadoVisible(s().facturas[0]!, s().anulacionesPendientes)).toBe('anulacion_pendiente');

    engine.anulacion = 'aceptada';
    await s().refresh();
    await s().refreshDetail();
    expect(estadoVisible(s().facturas[0]!, s().anulacionesPendientes)).toBe('anulada');
    expect(estadoAnulacion(s().detalle!)).toBe('anulada');
    expect(esFinal(estadoMostrado(s().detalle!))).toBe(true);
    expect(engine.posts).toHaveLength(1);
  });

  it('the detail seeing the cancellation answered refreshes the list at once: the row never reads «Registrada» after «Anulada»', async () => {
    const engine = tillWithOneInvoice('pendiente');
    const s = () => useInvoices.getState();
    await s().load(true);
    await s().open('f1');
    expect(estadoVisible(s().facturas[0]!, s().anulacionesPendientes)).toBe('anulacion_pendiente');
    // Still pending: the detail's refresh does not reload the list.
    const before = engine.listReads;
    await s().refreshDetail();
    expect(engine.listReads).toBe(before);

    engine.anulacion = 'aceptada';
    await s().refreshDetail();
    expect(engine.listReads).toBe(before + 1);
    expect(estadoAnulacion(s().detalle!)).toBe('anulada');
    expect(estadoVisible(s().facturas[0]!, s().anulacionesPendientes)).toBe('anulada');

    // Opened again later (staff came back from the sync view) after it was answered: the same.
    engine.anulacion = 'pendiente';
    await s().load(true);
    await s().open('f1');
    engine.anulacion = 'aceptada';
    const reads = engine.listReads;
    await s().open('f1');
    expect(engine.listReads).toBe(reads + 1);
    expect(estadoVisible(s().facturas[0]!, s().anulacionesPendientes)).toBe('anulada');
  });
});

describe('Searching a number already in the list opens it; no «not found» above a matching row', () => {
  beforeEach(() => useInvoices.setState({ filtros: { estado: '', desde: '', hasta: '', texto: '', fecha: '' }, encontrada: undefined, busqueda: undefined, detalle: undefined }));

  it('an exact number in the list opens from it, without asking the engine’s search', async () => {
    const item: FacturaItem = { idFactura: 'f9', nifEmisor: 'B12345674', numeroFactura: 'T1XVK-1', tipoFactura: 'F2', sistemaFiscal: 'verifactu', estadoFactura: 'registrada', fechaRegistro: TS, ultimaModificacion: TS };
    const { client, calls } = fakeEngine((call) => (call.url.includes('/facturas/f9') ? ok(envelope(factura({ idFactura: 'f9', numeroFactura: 'T1XVK-1' }), [])) : undefined));
    useSession.setState({ client, emisor: { nif: 'B12345674', nombre: 'DEMO', hacienda: 'verifactu' }, settings: { ...useSession.getState().settings, serie: 'T1X' } });
    useInvoices.setState({ facturas: [item] });
    useInvoices.getState().setFiltros({ texto: 't1xvk-1' });
    await useInvoices.getState().buscar();
    expect(calls.some((c) => c.url.includes('/buscar'))).toBe(false);
    expect(useInvoices.getState().detalle?.factura.numeroFactura).toBe('T1XVK-1');
    expect(useInvoices.getState().busqueda).toBeUndefined();
  });

  it('a partial text that rows contain: the engine’s 404 says nothing above them', async () => {
    const item: FacturaItem = { idFactura: 'f9', nifEmisor: 'B12345674', numeroFactura: 'T1XVK-12', tipoFactura: 'F2', sistemaFiscal: 'verifactu', estadoFactura: 'registrada', fechaRegistro: TS, ultimaModificacion: TS };
    const { client } = fakeEngine(() => ({ status: 404, body: { code: 'NOT_FOUND', message: 'No encontrada' } }));
    useSession.setState({ client });
    useInvoices.setState({ facturas: [item] });
    useInvoices.getState().setFiltros({ texto: 'T1XVK-1' });
    await useInvoices.getState().buscar();
    expect(useInvoices.getState().busqueda).toBeUndefined();
  });
});
