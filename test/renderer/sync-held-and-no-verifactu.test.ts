// Issue 28 (a queue held for a person, said in the sync view) and issue 32 (the «NO VERI*FACTU»
// panel of the sync view: kept, not sent; the event log; «Detectar anomalías» in words).
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { colasBloqueadas } from '../../src-renderer/features/sync/bloqueos';
import { EVENTOS_POR_PAGINA, huellaCorta, tipoAnomaliaClave, tipoEventoClave, useNoVerifactu, type EventoSif } from '../../src-renderer/features/sync/no-verifactu-store';
import { conservadasSinEnvio, enVuelo, estadoLote, type SyncResumen } from '../../src-renderer/features/sync/store';
import { LANGS, translate } from '../../src-renderer/i18n';
import { cola } from './support/sync-fixtures';
import { fakeEngine, ok, type Call } from './support/fake-engine';


const bloqueo = {
  codigo: '4104',
  motivo: 'nif_emisor_no_identificado' as const,
  descripcion: 'Error en la cabecera: el valor del campo NIF del bloque ObligadoEmision no está identificado.',
  accion: 'Corrija el NIF o la razón social del emisor y reintente',
  desde: '2026-11-25T10:00:00.000Z',
  reintentoEn: '2026-11-25T16:00:00.000Z',
};

const resumen = (colas: SyncResumen['colas'], porEstadoEnvio: SyncResumen['porEstadoEnvio'] = { test: {}, live: {} }): SyncResumen => ({
  pausado: { test: false, live: false },
  porEstadoEnvio,
  rechazados: { test: 0, live: 0 },
  colas,
  autoridades: [{ autoridad: 'aeat', entorno: 'test', alcanzable: true }],
});

describe('Issue 28: a queue held for a person reads what happened, what to do and the next attempt', () => {
  it('only held queues; the message in words, the AEAT text as the technical detail, the long back-off as the next attempt', () => {
    const r = resumen([
      cola({ pendientes: 3, fallosSeguidos: 1, proximoIntentoEn: '2026-11-25T10:01:00.000Z', bloqueo }),
      cola({ queueKey: 'test|aeat|B87654323', obligado: 'B87654323', pendientes: 1, bloqueo: null }),
    ]);
    const [held, ...rest] = colasBloqueadas('es', r);
    expect(rest).toEqual([]);
    expect(held).toMatchObject({ obligado: 'B12345674', pendientes: 3, desde: bloqueo.desde, proximoIntentoEn: bloqueo.reintentoEn });
    expect(held?.problema.mensaje).toBe(translate('es', 'sync.bloqueo.nif_emisor_no_identificado'));
    expect(held?.problema.mensaje).toMatch(/NIF del emisor.*Reintentar ahora/);
    expect(held?.problema.detalle).toBe(`AEAT 4104 · ${bloqueo.descripcion}`);
    // Nothing of the engine's own Spanish «accion» in the staff's text.
    expect(colasBloqueadas('en', r)[0]?.problema.mensaje).not.toContain(bloqueo.accion);
  });

  it('without reintentoEn the queue’s own next attempt; none held: nothing', () => {
    const r = resumen([cola({ proximoIntentoEn: '2026-11-25T11:00:00.000Z', bloqueo: { ...bloqueo, reintentoEn: null } })]);
    expect(colasBloqueadas('es', r)[0]?.proximoIntentoEn).toBe('2026-11-25T11:00:00.000Z');
    expect(colasBloqueadas('es', resumen([cola({})]))).toEqual([]);
    expect(colasBloqueadas('es', undefined)).toEqual([]);
  });

  it('the card’s words exist in every language', () => {
    for (const lang of LANGS) {
      for (const key of ['sync.bloqueo.titulo', 'sync.bloqueo.guardadas', 'sync.bloqueo.desde', 'sync.bloqueo.enCola'] as const) expect(translate(lang, key)).not.toBe(key);
      expect(translate(lang, 'sync.bloqueo.proximo', { cuando: '25/11 17:00' })).toContain('25/11 17:00');
    }
  });
});

describe('Issue 28: a batch the AEAT answered with a whole-request fault never reads «sin conexión»', () => {
  const lote = { estado: 'pendiente_respuesta', respondidoEn: null };
  it('4104/4105/4112 hold the queue for a person; another fault code is a refusal, nothing rejected; a socket error stays «sin conexión»', () => {
    expect(estadoLote({ ...lote, ultimoError: 'SOAP Fault: Codigo[4104].El NIF del titular en la cabecera no está identificado.' })).toBe('lote.detenido');
    expect(estadoLote({ ...lote, ultimoError: 'SOAP Fault: Codigo[4135].Error interno' })).toBe('lote.rehusado');
    expect(estadoLote({ ...lote, ultimoError: 'connect ECONNREFUSED 127.0.0.1:8790' })).toBe('lote.sinConexion');
    for (const lang of LANGS) for (const key of ['lote.detenido', 'lote.rehusado'] as const) expect(translate(lang, key)).not.toBe(key);
  });
});

describe('Issue 32: «NO VERI*FACTU» records are kept, not «pending»', () => {
  const r = resumen([], { test: { no_remitida: 5, pendiente_envio: 2, rechazada: 1 }, live: {} });
  it('the pending count leaves out the kept records; they are counted apart', () => {
    expect(enVuelo(r, 'test')).toBe(2);
    expect(conservadasSinEnvio(r, 'test')).toBe(5);
    expect(conservadasSinEnvio(r, 'live')).toBe(0);
    expect(translate('es', 'sync.conservadasSinEnvio')).toBe('Firmadas y conservadas, sin envío (NO VERI*FACTU)');
  });
});

const evento = (secuencia: number, tipoEvento: EventoSif['tipoEvento']): EventoSif => ({
  idEvento: `ev${secuencia}`,
  secuencia,
  tipoEvento,
  fechaHoraHusoGenEvento: '2026-11-25T11:00:00+01:00',
  huella: 'A'.repeat(60) + secuencia.toString().padStart(4, '0'),
  creadoEn: '2026-11-25T10:00:00.000Z',
  xml: `<sf:RegistroEvento>${secuencia}</sf:RegistroEvento>`,
});

describe('Issue 32: the event log and «Detectar anomalías»', () => {
  const initial = useNoVerifactu.getState();
  beforeEach(() => useNoVerifactu.setState({ ...initial, nif: undefined, entorno: undefined, eventos: [], deteccion: undefined, error: undefined }));

  /** An engine with 3 events in pages of 2 (newest first), and one detection run that finds a tampered record. */
  function engine(anomalias: unknown[] = [{ ambito: 'registro', tipoAnomalia: '01', id: 'r7', detalle: 'huella recalculada distinta' }]) {
    const eventos = [evento(3, '03'), evento(2, '10'), evento(1, '01')];
    const e = fakeEngine((call: Call) => {
      if (call.url.startsWith('/panel/v1/api/manage/v1/clientes/B12345674/eventos')) {
        const cursor = new URL(call.url, 'http://x').searchParams.get('cursor');
        const page = cursor === 'p2' ? eventos.slice(2) : eventos.slice(0, 2);
        return ok({ nif: 'B12345674', entorno: 'test', modoSif: 'no_verifactu', eventos: page, total: 3, proximaPagina: cursor === 'p2' ? null : 'p2' });
      }
      if (call.url === '/panel/v1/sync/anomalias' && call.method === 'POST') {
        return ok({ nif: 'B12345674', entorno: 'test', registrosAnalizados: 12, eventosAnalizados: 3, anomalias, eventosAnotados: [] });
      }
      return undefined;
    });
    useSession.setState({ client: e.client, lang: 'es' });
    return e;
  }

  it('reads the first page through the management relay, then appends the next one by its cursor', async () => {
    const { calls } = engine();
    await useNoVerifactu.getState().cargar('B12345674', 'test');
    expect(calls[0]?.url).toBe(`/panel/v1/api/manage/v1/clientes/B12345674/eventos?limite=${EVENTOS_POR_PAGINA}`);
    expect(useNoVerifactu.getState().eventos.map((e) => e.secuencia)).toEqual([3, 2]);
    expect(useNoVerifactu.getState().proximaPagina).toBe('p2');
    await useNoVerifactu.getState().masEventos();
    expect(calls[1]?.url).toBe(`/panel/v1/api/manage/v1/clientes/B12345674/eventos?limite=${EVENTOS_POR_PAGINA}&cursor=p2`);
    expect(useNoVerifactu.getState().eventos.map((e) => e.secuencia)).toEqual([3, 2, 1]);
    expect(useNoVerifactu.getState().proximaPagina).toBeNull();
    expect(useNoVerifactu.getState().total).toBe(3);
  });

  it('another issuer: nothing of the previous one stays', async () => {
    engine();
    await useNoVerifactu.getState().cargar('B12345674', 'test');
    useNoVerifactu.setState({ deteccion: { nif: 'B12345674', entorno: 'test', registrosAnalizados: 1, eventosAnalizados: 1, anomalias: [], eventosAnotados: [] } });
    await useNoVerifactu.getState().cargar('B87654323', 'test');
    expect(useNoVerifactu.getState().eventos).toEqual([]);
    expect(useNoVerifactu.getState().deteccion).toBeUndefined();
    expect(useNoVerifactu.getState().error?.mensaje).toBe('No se ha encontrado en el motor.');
  });

  it('«Detectar anomalías» posts {entorno, nif}, keeps the result, and reads the log again (the run is an event)', async () => {
    const { calls } = engine();
    await useNoVerifactu.getState().cargar('B12345674', 'test');
    calls.length = 0;
    await useNoVerifactu.getState().detectar();
    expect(calls[0]).toEqual({ method: 'POST', url: '/panel/v1/sync/anomalias', body: { entorno: 'test', nif: 'B12345674' } });
    expect(useNoVerifactu.getState().deteccion?.anomalias).toHaveLength(1);
    expect(useNoVerifactu.getState().detectando).toBe(false);
    await vi.waitFor(() => expect(calls.some((c) => c.url.includes('/eventos'))).toBe(true));
    const a = useNoVerifactu.getState().deteccion?.anomalias[0];
    expect(translate('es', tipoAnomaliaClave(a?.tipoAnomalia ?? ''))).toBe('La huella no corresponde al contenido (integridad)');
    expect(translate('es', 'noVerifactu.conAnomalias', { n: 1, registros: 12, eventos: 3 })).toBe('Se ha encontrado 1 anomalía en 12 registros y 3 eventos: avise a soporte.');
    expect(translate('es', 'noVerifactu.conAnomalias', { n: 2, registros: 12, eventos: 3 })).toBe('Se han encontrado 2 anomalías en 12 registros y 3 eventos: avise a soporte.');
  });

  it('a refused run is an error in words, no result shown', async () => {
    const e = fakeEngine((call) => (call.url === '/panel/v1/sync/anomalias' ? { status: 500, body: { code: 'INTERNAL_ERROR', message: 'boom' } } : undefined));
    useSession.setState({ client: e.client, lang: 'es' });
    useNoVerifactu.setState({ nif: 'B12345674', entorno: 'test' });
    await useNoVerifactu.getState().detectar();
    expect(useNoVerifactu.getState().deteccion).toBeUndefined();
    expect(useNoVerifactu.getState().error?.mensaje).toBe(translate('es', 'error.interno'));
  });

  it('every event type and anomaly kind of EventosSIF.xsd has words in every language, never its code', () => {
    const tipos: EventoSif['tipoEvento'][] = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '90'];
    const anomalias = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14', '15', '90'];
    for (const lang of LANGS) {
      for (const tipo of tipos) expect(translate(lang, tipoEventoClave(tipo))).not.toMatch(/^evento\.|^\d+$/);
      for (const tipo of anomalias) expect(translate(lang, tipoAnomaliaClave(tipo))).not.toMatch(/^anomalia\.|^\d+$/);
    }
    expect(translate('es', tipoEventoClave('10'))).toBe('Resumen periódico de eventos');
    // A kind the XSD does not list reads «other», never its code.
    expect(tipoAnomaliaClave('77')).toBe('anomalia.tipo.90');
  });

  it('a huella is shortened to its start and end; the whole one stays as the title', () => {
    expect(huellaCorta('0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF')).toBe('01234567…ABCDEF');
    expect(huellaCorta('ABCD')).toBe('ABCD');
  });
});
