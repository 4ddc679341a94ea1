import { beforeEach, describe, expect, it } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { grupoDe, nombreEmisorPara, parseBusqueda, useInvoices, visibleFacturas, type FacturaItem } from '../../src-renderer/features/invoices/store';
import { fakeEngine, ok, type Call } from './support/fake-engine';

const NIF = 'B12345674';
const initial = useInvoices.getState();
const TS = '2026-11-22T10:00:00.000Z';

const fila = (i: number, extra: Partial<FacturaItem> = {}): FacturaItem => ({
  idFactura: `f${i}`,
  nifEmisor: NIF,
  numeroFactura: `TABCD-${i}`,
  tipoFactura: 'F2',
  importeTotal: '1.00',
  sistemaFiscal: 'verifactu',
  estadoFactura: 'registrada',
  fechaRegistro: TS,
  ultimaModificacion: TS,
  ...extra,
});

/** The engine's list: `rows` newest first, paged by an index cursor, `limite` honoured. */
function listEngine(rows: () => FacturaItem[], extra?: (call: Call, url: URL) => ReturnType<Parameters<typeof fakeEngine>[0]>) {
  const engine = fakeEngine((call) => {
    const url = new URL(call.url, 'http://till');
    const other = extra?.(call, url);
    if (other) return other;
    if (url.pathname !== '/panel/v1/api/billing/v1/facturas') return undefined;
    const all = rows().filter((f) => !url.searchParams.get('estado') || f.estadoFactura === url.searchParams.get('estado'));
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const limite = Number(url.searchParams.get('limite'));
    const page = all.slice(from, from + limite);
    return ok({ facturas: page, total: page.length, nifEmisor: NIF, nombreEmisor: 'COMERCIAL DEMO SL', proximaPagina: from + limite < all.length ? String(from + limite) : null });
  });
  useSession.setState({ client: engine.client, emisor: { nif: NIF, nombre: NIF, hacienda: 'verifactu' }, settings: { serie: 'TABCD-', ancho: 80, imprimirAlCobrar: false, idiomaTicket: 'es', zonaHoraria: 'Europe/Madrid' } });
  return engine;
}

beforeEach(() => useInvoices.setState({ ...initial, filtros: { estado: '', desde: '', hasta: '', texto: '', fecha: '' }, facturas: [], encontrada: undefined, busqueda: undefined, detalle: undefined }));

describe('Invoices: the live refresh keeps the pages loaded with "más"', () => {
  it('three pages loaded, a new sale arrives: the refresh shows it and keeps every row already on screen', async () => {
    let rows = Array.from({ length: 120 }, (_, i) => fila(120 - i));
    listEngine(() => rows);
    const s = () => useInvoices.getState();
    await s().load(true);
    await s().load(false);
    await s().load(false);
    expect(s().facturas).toHaveLength(120);
    expect(s().proximaPagina).toBeNull();
    rows = [fila(121, { estadoFactura: undefined, estadoEnvio: 'en_cola' }), ...rows.map((f) => (f.idFactura === 'f3' ? { ...f, estadoFactura: 'anulada' as const } : f))];
    await s().refresh();
    expect(s().facturas).toHaveLength(121);
    expect(s().facturas[0]?.idFactura).toBe('f121');
    expect(s().facturas.find((f) => f.idFactura === 'f3')?.estadoFactura).toBe('anulada');
    expect(s().facturas.at(-1)?.idFactura).toBe('f1');
  });

  it('a refresh answered after "más" started does not overwrite the page "más" brought', async () => {
    const rows = Array.from({ length: 80 }, (_, i) => fila(80 - i));
    let release: (() => void) | undefined;
    const engine = listEngine(() => rows);
    const s = () => useInvoices.getState();
    await s().load(true);
    // Hold the refresh's answer until "más" has been applied.
    const slow = engine.client.billing.get.bind(engine.client.billing);
    let first = true;
    engine.client.billing.get = (async (path: string, schema: never) => {
      if (first) {
        first = false;
        await new Promise<void>((resolve) => (release = resolve));
      }
      return slow(path, schema);
    }) as typeof engine.client.billing.get;
    const refreshing = s().refresh();
    await s().load(false);
    expect(s().facturas).toHaveLength(80);
    release?.();
    await refreshing;
    expect(s().facturas).toHaveLength(80);
  });
});

describe('Invoices: the estado filter shows pending and rejected invoices too', () => {
  const rows = [
    fila(5, { estadoFactura: undefined, estadoEnvio: 'rechazada' }),
    fila(4, { estadoFactura: undefined, estadoEnvio: 'en_cola' }),
    fila(3, { estadoFactura: undefined, estadoEnvio: 'desconocido' }),
    fila(2, { estadoFactura: 'anulada' }),
    fila(1),
  ];

  it('groups rows as the list returns them: estadoEnvio only while there is no estadoFactura', () => {
    expect(rows.map(grupoDe)).toEqual(['rechazada', 'pendiente', 'pendiente', 'anulada', 'registrada']);
  });

  it('pending and rejected filter here (the engine filters only its three states)', async () => {
    const { calls } = listEngine(() => rows);
    const s = () => useInvoices.getState();
    s().setFiltros({ estado: 'pendiente' });
    await s().load(true);
    expect(visibleFacturas(s()).map((f) => f.idFactura)).toEqual(['f4', 'f3']);
    expect(new URL(calls.at(-1)!.url, 'http://t').searchParams.get('estado')).toBeNull();
    s().setFiltros({ estado: 'rechazada' });
    await s().load(true);
    expect(visibleFacturas(s()).map((f) => f.idFactura)).toEqual(['f5']);
    s().setFiltros({ estado: 'anulada' });
    await s().load(true);
    expect(new URL(calls.at(-1)!.url, 'http://t').searchParams.get('estado')).toBe('anulada');
    expect(visibleFacturas(s()).map((f) => f.idFactura)).toEqual(['f2']);
  });
});

describe('Invoices: searching a number asks the engine (GET /v1/facturas/buscar)', () => {
  it('splits series and number (never joined) the way the till numbers', () => {
    expect(parseBusqueda('TABCD-12', 'TABCD-')).toEqual({ serie: 'TABCD-', numero: '12' });
    expect(parseBusqueda('tabcd-12', 'TABCD-')).toEqual({ serie: 'TABCD-', numero: '12' });
    expect(parseBusqueda(' 12 ', 'TABCD-')).toEqual({ serie: 'TABCD-', numero: '12' });
    expect(parseBusqueda('TWXYZ-7', 'TABCD-')).toEqual({ serie: 'TWXYZ-', numero: '7' });
    expect(parseBusqueda('F2026A', 'TABCD-')).toEqual({ numero: 'F2026A' });
    expect(parseBusqueda('  ', 'TABCD-')).toBeUndefined();
  });

  const detalle = {
    factura: { ...fila(9), serie: 'TABCD-', numero: '9', numeroFactura: 'TABCD-9', fechaExpedicion: '01-11-2026', estadoFactura: 'procesando', estadoEnvio: 'en_cola' },
    registros: [],
    totalRegistros: 0,
  };

  it('finds an invoice that is not among the loaded rows, shows it first and opens it', async () => {
    const { calls } = listEngine(
      () => [fila(1)],
      (_call, url) => (url.pathname.endsWith('/v1/facturas/buscar') ? ok(detalle) : undefined),
    );
    const s = () => useInvoices.getState();
    await s().load(true);
    s().setFiltros({ texto: 'TABCD-9', fecha: '2026-11-01' });
    expect(visibleFacturas(s())).toEqual([]);
    await s().buscar();
    const q = new URL(calls.at(-1)!.url, 'http://t');
    expect(q.pathname).toBe('/panel/v1/api/billing/v1/facturas/buscar');
    expect(Object.fromEntries(q.searchParams)).toEqual({ nifEmisor: NIF, serie: 'TABCD-', numero: '9', fechaExpedicion: '01-11-2026' });
    expect(visibleFacturas(s()).map((f) => [f.numeroFactura, f.estadoFactura, f.estadoEnvio])).toEqual([['TABCD-9', undefined, 'en_cola']]);
    expect(s().detalle?.factura.idFactura).toBe('f9');
    // A new text drops the answer.
    s().setFiltros({ texto: 'TABCD-1' });
    expect(s().encontrada).toBeUndefined();
  });

  it('without a date it searches today (the injected clock, Madrid time); not found says so', async () => {
    const { calls } = listEngine(() => [], (_c, url) => (url.pathname.endsWith('/buscar') ? { status: 404, body: { code: 'NOT_FOUND', message: 'Factura no encontrada' } } : undefined));
    useInvoices.setState({ now: () => new Date('2026-11-22T23:30:00Z') });
    const s = () => useInvoices.getState();
    s().setFiltros({ texto: '12' });
    await s().buscar();
    expect(new URL(calls.at(-1)!.url, 'http://t').searchParams.get('fechaExpedicion')).toBe('23-11-2026');
    expect(s().busqueda).toEqual({ mensaje: 'No hay ninguna factura TABCD-12 con fecha 23/11/2026' });
    expect(s().encontrada).toBeUndefined();
  });

  it('a 400 says what to do, with the engine’s code and field as the detail', async () => {
    listEngine(() => [], (_c, url) => (url.pathname.endsWith('/buscar') ? { status: 400, body: { code: 'VALIDATION_ERROR', message: 'numero admite como máximo 60 caracteres', campo: 'numero' } } : undefined));
    const s = () => useInvoices.getState();
    s().setFiltros({ texto: 'X'.repeat(61) });
    await s().buscar();
    // Staff read what to do; the engine's code, message and field stay as the detail for support.
    expect(s().busqueda).toEqual({ mensaje: 'La serie o el número de la factura no son válidos: revise la serie de la caja en Ajustes.', detalle: 'VALIDATION_ERROR · numero admite como máximo 60 caracteres · (numero)', campo: 'numero' });
  });
});

describe('Reprint from totals names the issuer, not its NIF', () => {
  it('the engine’s name from the list first, then the session’s issuer, the NIF only as the last resort', async () => {
    listEngine(() => [fila(1)]);
    await useInvoices.getState().load(true);
    expect(useInvoices.getState().emisorLista).toEqual({ nif: NIF, nombre: 'COMERCIAL DEMO SL' });
    expect(nombreEmisorPara(NIF, useInvoices.getState().emisorLista, { nif: NIF, nombre: NIF, hacienda: 'verifactu' })).toBe('COMERCIAL DEMO SL');
    expect(nombreEmisorPara(NIF, undefined, { nif: NIF, nombre: 'DEMO', hacienda: 'verifactu' })).toBe('DEMO');
    expect(nombreEmisorPara(NIF, { nif: 'A58818501', nombre: 'OTRA' }, undefined)).toBe(NIF);
  });
});
