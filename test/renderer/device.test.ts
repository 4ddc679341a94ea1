// Issue 14 part 7 / issue 13 part 4 at the device store: the till registers itself with an
// identity it makes up (never typed), is reactivated when deactivated, and an issuer without the
// high-capacity mode keeps the identity as the invoices' metadata (nothing to register).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { asegurarRegistro, newTillId, useDevice } from '../../src-renderer/features/device/store';
import { memoryStore } from '../../src-renderer/platform/storage';
import type { DispositivosResponse } from '../../src-shared/api/dispositivos';
import type { TillBridge } from '../../src-shared/bridge';
import { fakeEngine, ok, type Call } from './support/fake-engine';

const BASE = '/panel/v1/api/manage/v1/clientes/B12345674/dispositivos';
const TS = '2026-11-25T10:00:00.000Z';
const lista = (fase: 'no_contratada' | 'preparacion' | 'activa', dispositivos: { idMaquina: string; etiqueta: string; activo: boolean }[]) => ({
  entorno: 'test',
  nif: 'B12345674',
  modoCadena: fase === 'activa' ? 'por_dispositivo' : 'unica',
  faseAltaCapacidad: fase,
  dispositivos: dispositivos.map((d) => ({ ...d, creadoEn: TS })),
  series: [],
  idsMaquinaVistos: [],
});

function engine(fase: 'no_contratada' | 'preparacion' | 'activa', initial: { idMaquina: string; etiqueta: string; activo: boolean }[] = []) {
  const devices = [...initial];
  return fakeEngine((call: Call) => {
    const url = new URL(call.url, 'http://till');
    if (url.pathname === BASE && call.method === 'GET') return ok(lista(fase, devices));
    if (url.pathname === BASE && call.method === 'POST') {
      if (fase === 'no_contratada') return { status: 409, body: { code: 'SHARDING_NOT_ENABLED', message: 'no contratada' } };
      const body = call.body as { idMaquina: string; etiqueta?: string };
      const known = devices.find((d) => d.idMaquina === body.idMaquina);
      if (known?.activo) return { status: 409, body: { code: 'MACHINE_ALREADY_REGISTERED', message: 'ya' } };
      // The engine's rule: names unique among the issuer's active tills (trimmed, any case).
      const nombre = (body.etiqueta ?? known?.etiqueta ?? '').trim().toLowerCase();
      if (nombre && devices.some((d) => d.activo && d.idMaquina !== body.idMaquina && d.etiqueta.trim().toLowerCase() === nombre)) {
        return { status: 409, body: { code: 'DEVICE_LABEL_TAKEN', message: 'nombre usado', campo: 'etiqueta' } };
      }
      if (known) Object.assign(known, { activo: true }, body.etiqueta ? { etiqueta: body.etiqueta } : {});
      else devices.push({ idMaquina: body.idMaquina, etiqueta: body.etiqueta ?? '', activo: true });
      const d = devices.find((x) => x.idMaquina === body.idMaquina)!;
      return { status: known ? 200 : 201, body: { message: 'ok', entorno: 'test', dispositivo: { ...d, creadoEn: TS }, ...(known ? { reactivado: true } : {}) } };
    }
    if (url.pathname === '/panel/v1/cadena') return ok({ propia: false, sistemaFiscal: 'verifactu', longitud: 0, ultimaHuella: null });
    return undefined;
  });
}

beforeEach(() => {
  useSession.setState({ emisor: { nif: 'B12345674', nombre: 'DEMO', hacienda: 'verifactu' }, entorno: 'test', idMaquina: '', etiqueta: '', state: 'identify', store: memoryStore(), lang: 'es' });
  useDevice.setState({ lista: undefined, cadena: undefined, busy: false, error: undefined });
});

describe('First run: a new till by name, with an identity the till makes up', () => {
  it('registers WEB-… with the name as its label and keeps it; the till is ready', async () => {
    const { client, calls } = engine('activa');
    useSession.setState({ client });
    await useDevice.getState().registrarNueva('  Caja 1 ');
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({ idMaquina: expect.stringMatching(/^WEB-[0-9A-Z]{10}$/), etiqueta: 'Caja 1' });
    const s = useSession.getState();
    expect(s).toMatchObject({ state: 'ready', idMaquina: (post?.body as { idMaquina: string }).idMaquina, etiqueta: 'Caja 1' });
    expect(s.store.get('till.idMaquina')).toBe(s.idMaquina);
    expect(s.settings.serie).toMatch(/^T[0-9A-Z]{4}-$/);
  });

  it('an empty name registers nothing', async () => {
    const { client, calls } = engine('activa');
    useSession.setState({ client });
    await useDevice.getState().registrarNueva('   ');
    expect(calls).toEqual([]);
    expect(useSession.getState().state).toBe('identify');
  });

  it('choosing a deactivated till the engine knows reactivates it and takes its identity', async () => {
    const { client, calls } = engine('activa', [{ idMaquina: 'WEB-AAAAAAAAAA', etiqueta: 'Mostrador', activo: false }]);
    useSession.setState({ client });
    await useDevice.getState().elegir({ idMaquina: 'WEB-AAAAAAAAAA', etiqueta: 'Mostrador', activo: false, creadoEn: TS });
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ idMaquina: 'WEB-AAAAAAAAAA', etiqueta: 'Mostrador' });
    expect(useSession.getState()).toMatchObject({ state: 'ready', idMaquina: 'WEB-AAAAAAAAAA', etiqueta: 'Mostrador' });
  });

  it('an issuer without the high-capacity mode: the identity is kept, nothing to register, no error', async () => {
    const { client } = engine('no_contratada');
    useSession.setState({ client });
    await useDevice.getState().registrarNueva('Caja 2');
    expect(useSession.getState().state).toBe('ready');
    expect(useDevice.getState().error).toBeUndefined();
  });

  it('identities never repeat', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newTillId()));
    expect(ids.size).toBe(200);
  });
});

describe('Every start: registered again if the engine does not have it active', () => {
  it('missing → registered; deactivated → reactivated; active → nothing sent', async () => {
    let e = engine('activa');
    await asegurarRegistro(e.client, 'B12345674', 'WEB-BBBBBBBBBB', 'Caja B');
    expect(e.calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ idMaquina: 'WEB-BBBBBBBBBB', etiqueta: 'Caja B' }]);

    e = engine('activa', [{ idMaquina: 'WEB-BBBBBBBBBB', etiqueta: 'Caja B', activo: false }]);
    const after = await asegurarRegistro(e.client, 'B12345674', 'WEB-BBBBBBBBBB', 'otro nombre');
    expect(e.calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ idMaquina: 'WEB-BBBBBBBBBB', etiqueta: 'Caja B' }]);
    expect(after.dispositivos[0]?.activo).toBe(true);

    e = engine('activa', [{ idMaquina: 'WEB-BBBBBBBBBB', etiqueta: 'Caja B', activo: true }]);
    await asegurarRegistro(e.client, 'B12345674', 'WEB-BBBBBBBBBB', 'Caja B');
    expect(e.calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('no high-capacity mode: nothing is posted', async () => {
    const e = engine('no_contratada');
    await asegurarRegistro(e.client, 'B12345674', 'WEB-BBBBBBBBBB', 'Caja B');
    expect(e.calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('an engine error is kept for the settings card, in words; selling is not blocked', async () => {
    const { client } = fakeEngine(() => ({ status: 403, body: { code: 'FORBIDDEN', message: 'El emisor no pertenece a esta cuenta' } }));
    useSession.setState({ client, idMaquina: 'WEB-CCCCCCCCCC', state: 'ready' });
    await useDevice.getState().asegurar();
    expect(useDevice.getState().error?.mensaje).toBe('Este emisor no pertenece a la cuenta de la caja: elija otro en Ajustes.');
    expect(useSession.getState().state).toBe('ready');
  });
});

describe('Issue 29: a till registered silently is named as staff tell tills apart, never by its computer', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('the desktop till whose «Caja 1» is taken registers as the next free «Caja N», and every view shows the engine’s name', async () => {
    const e = engine('activa', [
      { idMaquina: 'WEB-AAAAAAAAAA', etiqueta: 'Caja 1', activo: true },
      { idMaquina: 'WEB-BBBBBBBBBB', etiqueta: 'caja 2', activo: true },
    ]);
    useSession.setState({ client: e.client, idMaquina: 'TPV-0123456789AB', etiqueta: 'Caja 1', state: 'ready' });
    await useDevice.getState().asegurar();
    expect(e.calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { idMaquina: 'TPV-0123456789AB', etiqueta: 'Caja 1' },
      { idMaquina: 'TPV-0123456789AB', etiqueta: 'Caja 3' },
    ]);
    expect(useDevice.getState().error).toBeUndefined();
    expect(useSession.getState().etiqueta).toBe('Caja 3');
    expect(useSession.getState().store.get('till.etiqueta')).toBe('Caja 3');
  });

  it('an active till the engine knows by another name takes the engine’s name', async () => {
    const e = engine('activa', [{ idMaquina: 'TPV-0123456789AB', etiqueta: 'Barra', activo: true }]);
    useSession.setState({ client: e.client, idMaquina: 'TPV-0123456789AB', etiqueta: 'Caja 1', state: 'ready' });
    await useDevice.getState().asegurar();
    expect(e.calls.filter((c) => c.method === 'POST')).toEqual([]);
    expect(useSession.getState().etiqueta).toBe('Barra');
  });

  it('the desktop app’s boot: the till is «Caja 1» until the engine names it, never the computer’s name', async () => {
    const bridge = {
      appInfo: async () => ({ panelToken: 'tok', version: '1.0.0' }),
      deviceInfo: async () => ({ idMaquina: 'TPV-0123456789AB', nombreEquipo: 'vm', plataforma: 'linux', impresora: { tipo: 'ninguna', nombre: '', ancho: 80 } }),
    } as unknown as TillBridge;
    vi.stubGlobal('till', bridge);
    vi.stubGlobal('fetch', async (input: string | URL) => {
      const url = String(input);
      const body = url.endsWith('/panel/v1/arranque')
        ? { billingUrl: 'http://b', manageUrl: 'http://m', panelUrl: 'http://p', clavesFinal: {}, rol: 'administrador', nifEmisor: 'B12345674' }
        : { cliente: { nif: 'B12345674', nombre: 'DEMO', hacienda: 'verifactu' } };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    useSession.setState({ store: memoryStore() });
    await useSession.getState().boot();
    expect(useSession.getState()).toMatchObject({ state: 'ready', idMaquina: 'TPV-0123456789AB', etiqueta: 'Caja 1' });
  });
});

describe('Issue 29: every view names a till by its label', () => {
  it('this till by its own label, another by the engine’s, an unnamed one by when it was registered — never its identity', async () => {
    const { nombreCaja } = await import('../../src-renderer/features/device/names');
    useSession.setState({ idMaquina: 'WEB-PROPIAAAAA', etiqueta: 'Caja 1', settings: { ...useSession.getState().settings, zonaHoraria: 'Europe/Madrid' } });
    useDevice.setState({
      lista: lista('activa', [
        { idMaquina: 'WEB-PROPIAAAAA', etiqueta: 'Caja 1', activo: true },
        { idMaquina: 'TPV-0123456789AB', etiqueta: 'Caja principal', activo: true },
        { idMaquina: 'WEB-SINNOMBREE', etiqueta: '', activo: true },
      ]) as DispositivosResponse,
    });
    expect(nombreCaja('WEB-PROPIAAAAA')).toBe('Caja 1');
    expect(nombreCaja('TPV-0123456789AB')).toBe('Caja principal');
    expect(nombreCaja('WEB-SINNOMBREE')).toBe('Caja registrada el 25/11/2026 11:00:00');
  });
});
