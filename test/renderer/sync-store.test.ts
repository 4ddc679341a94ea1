import { beforeEach, describe, expect, it } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { EMULADORES, emuladoresVisibles, parcheDe, useSync, type EmuladorId } from '../../src-renderer/features/sync/store';
import { fakeEngine, ok, type Call } from './support/fake-engine';

const initial = useSync.getState();
const normal = { mode: 'none', delayMs: 0, times: null, afterProcessing: false, rejectNext: null, acceptWithErrorsNext: null };

/** A panel relaying AEAT and the census (as the engine does today), not TicketBAI. */
function panel(relayed: string[] = ['/panel/v1/emuladores/aeat/faults', '/panel/v1/emuladores/censo/faults']) {
  const state = new Map<string, Record<string, unknown>>(relayed.map((r) => [r, { ...normal }]));
  const engine = fakeEngine((call: Call) => {
    const s = state.get(call.url);
    if (!s) return undefined;
    if (call.method === 'PUT') Object.assign(s, call.body);
    return ok(s);
  });
  useSession.setState({ client: engine.client });
  return engine;
}

beforeEach(() => useSync.setState({ ...initial, faults: {}, sinControles: [], emuladores: true }));

describe('Sync view: a fault card per emulator the panel relays', () => {
  it('reads AEAT and the census; the TicketBAI relays answer 404 and are not asked again', async () => {
    const { calls } = panel();
    await useSync.getState().refreshFaults();
    expect(emuladoresVisibles(useSync.getState()).map((e) => e.id)).toEqual(['aeat', 'censo']);
    expect(useSync.getState().sinControles).toEqual(['tbai-araba', 'tbai-bizkaia', 'tbai-gipuzkoa']);
    calls.length = 0;
    await useSync.getState().refreshFaults();
    expect(calls.map((c) => c.url)).toEqual(['/panel/v1/emuladores/aeat/faults', '/panel/v1/emuladores/censo/faults']);
  });

  it('a TicketBAI relay, once the panel has it, gets its own card', async () => {
    panel(['/panel/v1/emuladores/aeat/faults', '/panel/v1/emuladores/tbai/bizkaia/faults']);
    await useSync.getState().refreshFaults();
    expect(emuladoresVisibles(useSync.getState()).map((e) => e.id)).toEqual(['aeat', 'tbai-bizkaia']);
  });

  it('no emulators running (real endpoints): no cards at all', async () => {
    const { client } = fakeEngine(() => ({ status: 404, body: { code: 'EMULATORS_NOT_RUNNING', message: 'Los emuladores no están en marcha' } }));
    useSession.setState({ client });
    await useSync.getState().refreshFaults();
    expect(useSync.getState().emuladores).toBe(false);
    expect(emuladoresVisibles(useSync.getState())).toEqual([]);
  });

  it('down, up, slow, HTTP 500 and reject-next send their patch to that emulator and show its new state', async () => {
    const { calls } = panel();
    const put = async (id: EmuladorId, falla: Parameters<typeof parcheDe>[1]) => {
      calls.length = 0;
      await useSync.getState().falla(id, falla);
      return calls[0];
    };
    expect(await put('aeat', 'caida')).toEqual({ method: 'PUT', url: '/panel/v1/emuladores/aeat/faults', body: { mode: 'down' } });
    expect(useSync.getState().faults.aeat?.mode).toBe('down');
    expect((await put('aeat', 'normal'))?.body).toEqual({ mode: 'none' });
    expect(useSync.getState().faults.aeat?.mode).toBe('none');
    expect((await put('censo', 'lento'))?.body).toEqual({ mode: 'slow', delayMs: 5000 });
    expect(useSync.getState().faults.censo).toMatchObject({ mode: 'slow', delayMs: 5000 });
    expect(useSync.getState().faults.aeat?.mode).toBe('none');
    expect((await put('censo', 'http500'))?.body).toEqual({ mode: 'http500' });
    expect((await put('aeat', 'rechazarSiguiente'))?.body).toEqual({ rejectNext: { count: 1, codigo: 1100 } });
    expect(useSync.getState().faults.aeat?.rejectNext).toEqual({ count: 1, codigo: 1100 });
    expect(useSync.getState().error).toBeUndefined();
  });

  it('each TicketBAI province rejects with a code it answers; the census has no per-record verdict', () => {
    const byId = Object.fromEntries(EMULADORES.map((e) => [e.id, e]));
    expect(parcheDe(byId['tbai-bizkaia']!, 'rechazarSiguiente')).toEqual({ rejectNext: { count: 1, codigo: 'B4_2000000' } });
    expect(parcheDe(byId['tbai-araba']!, 'rechazarSiguiente')).toEqual({ rejectNext: { count: 1, codigo: '002' } });
    expect(parcheDe(byId['tbai-gipuzkoa']!, 'rechazarSiguiente')).toEqual({ rejectNext: { count: 1, codigo: '002' } });
    expect(() => parcheDe(byId.censo!, 'rechazarSiguiente')).toThrow();
  });

  it('an emulator error (relay 400) is shown, the state kept', async () => {
    const { client } = fakeEngine((call) => (call.method === 'PUT' ? { status: 400, body: { code: 'EMULATOR_ERROR', message: 'mode: Invalid option' } } : ok(normal)));
    useSession.setState({ client });
    await useSync.getState().refreshFaults();
    await useSync.getState().falla('aeat', 'caida');
    expect(useSync.getState().error).toMatchObject({ mensaje: 'El emulador no aceptó el cambio.', detalle: 'EMULATOR_ERROR · mode: Invalid option' });
    expect(useSync.getState().faults.aeat?.mode).toBe('none');
  });

  it('pause posts the environment and shows the state the engine answers', async () => {
    let pausado = false;
    const { calls } = (() => {
      const e = fakeEngine((call) => {
        if (call.url === '/panel/v1/sync/pausa') {
          pausado = (call.body as { pausado: boolean }).pausado;
          return ok(call.body);
        }
        if (call.url === '/panel/v1/sync') return ok({ pausado: { test: pausado, live: false }, porEstadoEnvio: { test: {}, live: {} }, rechazados: { test: 0, live: 0 }, colas: [], autoridades: [] });
        return undefined;
      });
      useSession.setState({ client: e.client });
      return e;
    })();
    await useSync.getState().pausa('test', true);
    expect(calls[0]).toEqual({ method: 'POST', url: '/panel/v1/sync/pausa', body: { entorno: 'test', pausado: true } });
    expect(useSync.getState().resumen?.pausado.test).toBe(true);
    await useSync.getState().pausa('test', false);
    expect(useSync.getState().resumen?.pausado.test).toBe(false);
  });
});
