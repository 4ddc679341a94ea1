import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSharedEngineConfig, SharedEngine } from '../../src-main/shared-engine';
import { electronMock, FakeBrowserWindow, FakeTray, FakeUtilityProcess } from './electron-mock';

let userData = mkdtempSync(path.join(tmpdir(), 'till-shared-'));
const mock = electronMock(userData);
vi.mock('electron', () => mock);
vi.mock('electron-log/main', () => ({ default: { transports: { file: {}, console: {} }, info: vi.fn(), warn: vi.fn(), error: vi.fn() } }));

const flush = () => new Promise((resolve) => setTimeout(resolve, 20));
const URLS = { billing: 'http://127.0.0.1:8780', manage: 'http://127.0.0.1:8781', panel: 'http://127.0.0.1:8782' };
const SHARED = { url: 'http://caja-principal:8780', manageUrl: 'http://caja-principal:8781', apiKey: 'sk_test_compartida', panelUrl: 'http://caja-principal:8782/?token=tok-fijo' };

/** The engine's answers the till's registration gets: /v1/cuenta, then 201 for the device. */
function fakeFetch() {
  return vi.fn(async (url: string | URL | Request, _init?: RequestInit) => {
    const u = String(url);
    if (u.endsWith('/v1/cuenta')) return new Response(JSON.stringify({ nifClientePrincipal: 'B12345674' }), { status: 200 });
    return new Response(JSON.stringify({ message: 'ok' }), { status: 201 });
  });
}

beforeEach(() => {
  vi.resetModules();
  delete process.env.POS_DATA_DIR;
  userData = mkdtempSync(path.join(tmpdir(), 'till-shared-'));
  mock.app.getPath.mockReturnValue(userData);
  mock.app.requestSingleInstanceLock.mockReturnValue(true);
  mock.utilityProcess.fork.mockClear();
  mock.ipcMain.handle.mockClear();
  mock.app.removeAllListeners();
  FakeBrowserWindow.instances = [];
  FakeUtilityProcess.instances = [];
  FakeTray.instances = [];
});

describe('Each installed till registers itself once its engine is ready', () => {
  it('with its own engine: the identity goes to the engine (POS_TILL_ID, POS_TILL_LABEL) and is registered with the TEST and LIVE keys', async () => {
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    try {
      await import('../../src-main/main');
      await flush();
      const child = FakeUtilityProcess.instances[0]!;
      const env = child.options.env;
      expect(env.POS_TILL_ID).toMatch(/^TPV-[0-9A-Z]{12}$/);
      // Named as staff tell tills apart (issue 29), never the computer's name.
      expect(env.POS_TILL_LABEL).toBe('Caja 1');
      const dataDir = path.join(userData, 'datos');
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(path.join(dataDir, 'demo-keys.json'), JSON.stringify({ test: 'sk_test_a', live: 'sk_live_b', nifEmisor: 'B12345674' }));
      child.emit('message', { type: 'ready', urls: URLS });
      await flush();
      const posts = fetch.mock.calls.filter(([, init]) => init?.method === 'POST');
      expect(posts.map(([url, init]) => [String(url), (init?.headers as Record<string, string>)['x-api-key']])).toEqual([
        ['http://127.0.0.1:8781/v1/clientes/B12345674/dispositivos', 'sk_test_a'],
        ['http://127.0.0.1:8781/v1/clientes/B12345674/dispositivos', 'sk_live_b'],
      ]);
      expect(JSON.parse(String(posts[0]![1]!.body))).toEqual({ idMaquina: env.POS_TILL_ID, etiqueta: env.POS_TILL_LABEL });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('userData/engine.json: no engine of its own; the window opens the shared panel, the bridge gives its token, the till registers there', async () => {
    writeFileSync(path.join(userData, 'engine.json'), JSON.stringify(SHARED));
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    try {
      await import('../../src-main/main');
      await flush();
      expect(mock.utilityProcess.fork).not.toHaveBeenCalled();
      expect(FakeBrowserWindow.instances[0]!.loaded.at(-1)).toBe('http://caja-principal:8782/#/venta');
      const appInfo = mock.ipcMain.handle.mock.calls.find((c) => c[0] === 'till:app-info')![1] as (e: unknown) => Promise<{ panelToken: string; panelUrl: string }>;
      const event = { senderFrame: { url: 'http://caja-principal:8782/#/venta' }, sender: { getURL: () => '' } };
      expect(await appInfo(event)).toMatchObject({ panelToken: 'tok-fijo', panelUrl: 'http://caja-principal:8782' });
      expect(fetch.mock.calls.map(([url, init]) => [String(url), init?.method ?? 'GET'])).toEqual([
        ['http://caja-principal:8780/v1/cuenta', 'GET'],
        ['http://caja-principal:8781/v1/clientes/B12345674/dispositivos', 'POST'],
      ]);
      // Quitting stops nothing remote.
      mock.app.emit('before-quit', { preventDefault: vi.fn() });
      await flush();
      expect(mock.app.exit).toHaveBeenCalledWith(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('userData/engine.json', () => {
  it('absent: none; valid: parsed; damaged or incomplete: reported and ignored (the till starts its own engine)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'till-shared-cfg-'));
    const warn = vi.fn();
    expect(loadSharedEngineConfig(dir, warn)).toBeUndefined();
    writeFileSync(path.join(dir, 'engine.json'), JSON.stringify({ ...SHARED, nifEmisor: 'B12345674' }));
    expect(loadSharedEngineConfig(dir, warn)).toEqual({ ...SHARED, nifEmisor: 'B12345674' });
    for (const bad of ['{', JSON.stringify({ url: SHARED.url, apiKey: 'k' }), JSON.stringify({ ...SHARED, url: 'file:///etc/passwd' }), JSON.stringify({ ...SHARED, extra: 1 })]) {
      writeFileSync(path.join(dir, 'engine.json'), bad);
      expect(loadSharedEngineConfig(dir, warn)).toBeUndefined();
    }
    expect(warn).toHaveBeenCalledTimes(4);
    expect(warn.mock.calls[0]![0]).toMatch(/engine\.json/);
  });

  it('the shared engine is ready at once with the configured origins; without panelUrl the panel is unknown', async () => {
    const engine = new SharedEngine({ url: SHARED.url, manageUrl: SHARED.manageUrl, apiKey: 'k' });
    const seen: string[] = [];
    engine.onChange((state) => seen.push(state));
    expect(await engine.start()).toEqual({ billing: 'http://caja-principal:8780', manage: 'http://caja-principal:8781', panel: '' });
    expect(engine.state).toBe('listo');
    expect(engine.panelToken).toBeUndefined();
    expect(seen).toEqual(['listo']);
  });
});
