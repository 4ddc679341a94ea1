import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
const FINGERPRINT = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0').toUpperCase()).join(':');
const SHARED = {
  url: 'https://caja-principal:8780',
  manageUrl: 'https://caja-principal:8781',
  panelUrl: 'https://caja-principal:8782',
  fingerprint256: FINGERPRINT,
  tillToken: 'tt_token-de-esta-caja',
  idMaquina: 'TPV-CAJA2',
};
/** engine.json as the server's POST /panel/v1/cajas hands it over: this user's, mode 0600. */
function writeEngineJson(dir: string, content: unknown, mode = 0o600): void {
  const file = path.join(dir, 'engine.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode });
  chmodSync(file, mode);
}

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
  mock.session.defaultSession.setCertificateVerifyProc.mockClear();
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

  it('userData/engine.json: no engine of its own; the window opens the shared panel over https with the certificate pinned, the bridge gives the till’s own token and identity, nothing else registers it', async () => {
    writeEngineJson(userData, SHARED);
    const fetch = fakeFetch();
    vi.stubGlobal('fetch', fetch);
    try {
      await import('../../src-main/main');
      await flush();
      expect(mock.utilityProcess.fork).not.toHaveBeenCalled();
      expect(FakeBrowserWindow.instances[0]!.loaded.at(-1)).toBe('https://caja-principal:8782/#/venta');
      expect(mock.session.defaultSession.setCertificateVerifyProc).toHaveBeenCalledTimes(1);
      const handler = (name: string) => mock.ipcMain.handle.mock.calls.find((c) => c[0] === name)![1] as (e: unknown) => Promise<Record<string, unknown>>;
      const event = { senderFrame: { url: 'https://caja-principal:8782/#/venta' }, sender: { getURL: () => '' } };
      expect(await handler('till:app-info')(event)).toMatchObject({ panelToken: 'tt_token-de-esta-caja', panelUrl: 'https://caja-principal:8782' });
      expect(await handler('till:device-info')(event)).toMatchObject({ idMaquina: 'TPV-CAJA2' });
      // The bridge answers the configured origin only: not the same host over http, not another page.
      for (const url of ['http://caja-principal:8782/', 'https://caja-principal.evil:8782/', 'https://caja-principal:8783/']) {
        await expect(handler('till:app-info')({ senderFrame: { url }, sender: { getURL: () => '' } })).rejects.toThrow();
      }
      expect(fetch).not.toHaveBeenCalled();
      // Quitting stops nothing remote.
      mock.app.emit('before-quit', { preventDefault: vi.fn() });
      await flush();
      expect(mock.app.exit).toHaveBeenCalledWith(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('A till’s own engine on HTTPS (POS_HOST beyond loopback)', () => {
  it('the window trusts the certificate its engine reports, by fingerprint; on loopback (no fingerprint) nothing changes', async () => {
    await import('../../src-main/main');
    await flush();
    const child = FakeUtilityProcess.instances[0]!;
    child.emit('message', { type: 'ready', urls: URLS });
    await flush();
    expect(mock.session.defaultSession.setCertificateVerifyProc).not.toHaveBeenCalled();
    child.emit('message', { type: 'ready', urls: { billing: 'https://caja-principal.local:8780', manage: 'https://caja-principal.local:8781', panel: 'https://caja-principal.local:8782' }, fingerprint256: FINGERPRINT });
    await flush();
    expect(mock.session.defaultSession.setCertificateVerifyProc).toHaveBeenCalledTimes(1);
    const verify = mock.session.defaultSession.setCertificateVerifyProc.mock.calls[0]![0] as (r: { hostname: string; certificate: { data: string } }, cb: (v: number) => void) => void;
    const verdict = await new Promise<number>((resolve) => verify({ hostname: 'caja-principal.local', certificate: { data: 'not the pinned one' } }, resolve));
    expect(verdict).toBe(-2);
  });
});

describe('userData/engine.json', () => {
  it('absent: none; valid: parsed; damaged, incomplete, plain http or without a pinned fingerprint: reported and ignored (the till starts its own engine)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'till-shared-cfg-'));
    const warn = vi.fn();
    expect(loadSharedEngineConfig(dir, warn)).toBeUndefined();
    writeEngineJson(dir, { ...SHARED, nifEmisor: 'B12345674', fingerprint256: FINGERPRINT.toLowerCase() });
    expect(loadSharedEngineConfig(dir, warn)).toEqual({ ...SHARED, nifEmisor: 'B12345674' });
    const bad = [
      '{',
      JSON.stringify({ url: SHARED.url, tillToken: 'k' }),
      JSON.stringify({ ...SHARED, url: 'file:///etc/passwd' }),
      JSON.stringify({ ...SHARED, extra: 1 }),
      JSON.stringify({ ...SHARED, url: 'http://caja-principal:8780', manageUrl: 'http://caja-principal:8781', panelUrl: 'http://caja-principal:8782' }),
      JSON.stringify({ ...SHARED, fingerprint256: undefined }),
      JSON.stringify({ ...SHARED, fingerprint256: 'AB:CD' }),
      JSON.stringify({ ...SHARED, panelUrl: 'https://otro-servidor:8782' }),
      JSON.stringify({ ...SHARED, apiKey: 'sk_live_de-la-tienda' }),
    ];
    for (const content of bad) {
      writeEngineJson(dir, content);
      expect(loadSharedEngineConfig(dir, warn), content).toBeUndefined();
    }
    expect(warn).toHaveBeenCalledTimes(bad.length);
    expect(warn.mock.calls[0]![0]).toMatch(/engine\.json/);
  });

  it('a file others may write (group or world) is refused with a warning, whatever it says', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'till-shared-mode-'));
    for (const mode of [0o666, 0o620, 0o602]) {
      const warn = vi.fn();
      writeEngineJson(dir, SHARED, mode);
      expect(loadSharedEngineConfig(dir, warn)).toBeUndefined();
      expect(warn.mock.calls[0]![0]).toMatch(/writable by group or others/);
    }
    writeEngineJson(dir, SHARED, 0o644);
    expect(loadSharedEngineConfig(dir, vi.fn())).toBeDefined();
  });

  it('the shared engine is ready at once with the configured origins and the till’s own token', async () => {
    const engine = new SharedEngine(SHARED);
    const seen: string[] = [];
    engine.onChange((state) => seen.push(state));
    expect(await engine.start()).toEqual({ billing: 'https://caja-principal:8780', manage: 'https://caja-principal:8781', panel: 'https://caja-principal:8782' });
    expect(engine.state).toBe('listo');
    expect(engine.panelToken).toBe('tt_token-de-esta-caja');
    expect(seen).toEqual(['listo']);
  });
});
