// Rule 4 of issue 14: the sync view leads with what support staff need, counts that add up, fault
// controls only for the authorities in use; and «Verificar cadenas» shown in the staff's words.
import { beforeEach, describe, expect, it } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { autoridadesCaidas, autoridadesVista, avisoSinPendientes, emuladoresDeEmisores, enVuelo, estadoLote, useSync, type SyncResumen } from '../../src-renderer/features/sync/store';
import { translate } from '../../src-renderer/i18n';
import { cola } from './support/sync-fixtures';
import { fakeEngine, ok } from './support/fake-engine';


const resumen: SyncResumen = {
  pausado: { test: false, live: false },
  porEstadoEnvio: { test: { pendiente_envio: 3, rechazada: 1 }, live: {} },
  rechazados: { test: 1, live: 0 },
  colas: [
    cola({ pendientes: 2, alcanzable: false, masAntiguoEn: '2026-11-25T10:00:00.000Z', proximoIntentoEn: '2026-11-25T10:05:00.000Z', fallosSeguidos: 2, ultimoError: 'read ECONNRESET', ultimoErrorEn: '2026-11-25T10:04:00.000Z' }),
    cola({ queueKey: 'test|aeat|B87654323', obligado: 'B87654323', pendientes: 1, alcanzable: false, masAntiguoEn: '2026-11-25T09:00:00.000Z', proximoIntentoEn: '2026-11-25T10:06:00.000Z' }),
  ],
  autoridades: [{ autoridad: 'aeat', entorno: 'test', alcanzable: false }],
};

describe('Per authority: reachable or not, backlog, oldest pending, next attempt, last error', () => {
  it('sums its queues: 3 waiting, the oldest from 09:00, the next attempt the soonest, the last error kept', () => {
    expect(autoridadesVista(resumen)).toEqual([
      {
        autoridad: 'aeat',
        entorno: 'test',
        alcanzable: false,
        pendientes: 3,
        masAntiguoEn: '2026-11-25T09:00:00.000Z',
        proximoIntentoEn: '2026-11-25T10:05:00.000Z',
        ultimoError: 'read ECONNRESET',
        ultimoErrorEn: '2026-11-25T10:04:00.000Z',
      },
    ]);
  });

  it('waiting excludes the rejected ones, so the two counts add up to the records not registered', () => {
    expect(enVuelo(resumen, 'test')).toBe(3);
    expect(resumen.rechazados.test).toBe(1);
  });

  it('the sale screen’s banner lists the unreachable authorities of its environment only', () => {
    expect(autoridadesCaidas(resumen, 'test')).toEqual(['aeat']);
    expect(autoridadesCaidas(resumen, 'live')).toEqual([]);
  });

  it('fault controls only for the authorities the till’s issuers use (and the census)', () => {
    expect(emuladoresDeEmisores(['verifactu'])).toEqual(['aeat', 'censo']);
    expect(emuladoresDeEmisores(['tbai-bizkaia'])).toEqual(['tbai-bizkaia', 'censo']);
  });

  it('the emulator’s mode is said in words, not «none»', () => {
    expect(translate('es', 'modo.none')).toBe('Funciona con normalidad');
    expect(translate('es', 'modo.down')).toBe('Caído (no responde)');
  });
});

describe('«Verificar cadenas» (POST /panel/v1/sync/verificar-cadenas) in the staff’s words', () => {
  beforeEach(() => useSync.setState({ verificacion: undefined, verificando: false, error: undefined }));

  const answer = {
    correcto: false,
    verificadoEn: '2026-11-25T13:54:56.000Z',
    cadenas: [
      { clave: 'test|B12345674|WEB-1', entorno: 'test', nif: 'B12345674', sistemaFiscal: 'verifactu', idMaquina: 'WEB-1', registros: 12, correcta: false },
      { clave: 'test|B12345674', entorno: 'test', nif: 'B12345674', sistemaFiscal: 'verifactu', idMaquina: null, registros: 4, correcta: true },
    ],
    problemas: [{ tipo: 'rotura', clave: 'test|B12345674|WEB-1', idRegistro: 'r7', serie: 'TWEB-', numero: '7', esperado: 'AB12', encontrado: 'CD34' }],
  };

  it('posts, parses the answer and keeps it for the view', async () => {
    const { client, calls } = fakeEngine((call) => (call.url === '/panel/v1/sync/verificar-cadenas' ? ok(answer) : undefined));
    useSession.setState({ client });
    await useSync.getState().verificarCadenas();
    expect(calls).toEqual([{ method: 'POST', url: '/panel/v1/sync/verificar-cadenas', body: {} }]);
    expect(useSync.getState().verificacion).toEqual(answer);
    expect(useSync.getState().verificando).toBe(false);
  });

  it('every problem type has words in every language', () => {
    for (const lang of ['es', 'eu', 'en'] as const) {
      for (const tipo of ['rotura', 'bifurcacion', 'enlace_colgante', 'firma_invalida', 'fuera_de_cadena']) {
        expect(translate(lang, `problema.${tipo}`)).not.toBe(`problema.${tipo}`);
      }
    }
    expect(translate('es', 'problema.rotura')).toBe('La huella no enlaza con el registro anterior (cadena rota)');
  });

  it('an answer that is not the contract is an error in words, nothing shown as verified', async () => {
    const { client } = fakeEngine(() => ok({ correcto: 'yes' }));
    useSession.setState({ client, lang: 'es' });
    await useSync.getState().verificarCadenas();
    expect(useSync.getState().verificacion).toBeUndefined();
    expect(useSync.getState().error?.mensaje).toBe('El motor respondió algo inesperado: puede que la caja y el motor tengan versiones distintas.');
  });

  it('the route missing (engine without it yet) says so in words', async () => {
    const { client } = fakeEngine(() => undefined);
    useSession.setState({ client, lang: 'es' });
    await useSync.getState().verificarCadenas();
    expect(useSync.getState().error?.mensaje).toBe('No se ha encontrado en el motor.');
  });
});

describe('Issue 29 point 12: batches and an empty queue in words that match the counts beside them', () => {
  const lote = { estado: 'pendiente_respuesta', ultimoError: 'connect ECONNREFUSED 127.0.0.1:8790', respondidoEn: null };

  it('a batch that could not connect reads «No se pudo enviar (sin conexión)», not «Esperando respuesta»', () => {
    expect(translate('es', estadoLote(lote) as 'lote.sinConexion')).toBe('No se pudo enviar (sin conexión): se reintenta solo');
    expect(translate('en', estadoLote(lote) as 'lote.sinConexion')).toBe('Could not be sent (no connection): retried on its own');
    // Sent and waiting for its answer (no error): still «waiting»; answered: its state.
    expect(estadoLote({ ...lote, ultimoError: null })).toBe('lote.pendiente_respuesta');
    expect(estadoLote({ ...lote, estado: 'respondido', respondidoEn: '2026-11-25T10:00:00.000Z' })).toBe('lote.respondido');
  });

  it('«Nada pendiente» never says «todo enviado» beside «Rechazados sin corregir» above zero', () => {
    const vacia = { ...resumen, porEstadoEnvio: { test: { rechazada: 1 }, live: {} }, colas: [cola({})] };
    expect(avisoSinPendientes(vacia, 'test')).toBe('sync.vaciaConRechazos');
    expect(translate('es', avisoSinPendientes(vacia, 'test'), { n: 1 })).toBe('Nada pendiente de envío, pero queda 1 factura rechazada sin corregir: subsánela desde Facturas.');
    expect(translate('es', avisoSinPendientes({ ...vacia, rechazados: { test: 3, live: 0 } }, 'test'), { n: 3 })).toBe('Nada pendiente de envío, pero quedan 3 facturas rechazadas sin corregir: subsánelas desde Facturas.');
    // LIVE has none rejected: all sent there.
    expect(avisoSinPendientes(vacia, 'live')).toBe('sync.vacia');
    expect(translate('es', avisoSinPendientes(vacia, 'live'), { n: 0 })).toBe('Nada pendiente: todo enviado.');
  });
});
