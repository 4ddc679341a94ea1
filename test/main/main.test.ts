import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TILL_CSP } from '../../src-main/windows/csp';
import { electronMock, FakeBrowserWindow, FakeTray, FakeUtilityProcess } from './electron-mock';

let userData = mkdtempSync(path.join(tmpdir(), 'till-main-'));
// One mock for the file (vitest caches the factory's result); tests adjust it.
const mock = electronMock(userData);
vi.mock('electron', () => mock);
vi.mock('electron-log/main', () => ({ default: { transports: { file: {}, console: {} }, info: vi.fn(), warn: vi.fn(), error: vi.fn() } }));

const flush = () => new Promise((resolve) => setTimeout(resolve, 20));
const savedDataDir = process.env.POS_DATA_DIR;

beforeEach(() => {
  vi.resetModules();
  delete process.env.POS_DATA_DIR;
  userData = mkdtempSync(path.join(tmpdir(), 'till-main-'));
  mock.app.getPath.mockReturnValue(userData);
  mock.app.quit.mockClear();
  mock.app.exit.mockClear();
  mock.utilityProcess.fork.mockClear();
  mock.ipcMain.handle.mockClear();
  mock.app.removeAllListeners();
  mock.app.isPackaged = false;
  const s = mock.session.defaultSession;
  for (const fn of [s.webRequest.onHeadersReceived, s.setPermissionRequestHandler, s.setPermissionCheckHandler]) fn.mockClear();
  FakeBrowserWindow.instances = [];
  FakeUtilityProcess.instances = [];
  FakeTray.instances = [];
});
afterEach(() => {
  if (savedDataDir !== undefined) process.env.POS_DATA_DIR = savedDataDir;
});

describe('Electron main: composition', () => {
  it('a second instance quits at once and starts nothing', async () => {
    mock.app.requestSingleInstanceLock.mockReturnValue(false);
    await import('../../src-main/main');
    await flush();
    expect(mock.app.quit).toHaveBeenCalled();
    expect(mock.utilityProcess.fork).not.toHaveBeenCalled();
    expect(mock.app.whenReady).not.toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toHaveLength(0);
    expect(FakeTray.instances).toHaveLength(0);
    expect(mock.ipcMain.handle).not.toHaveBeenCalled();
  });

  it('forks the engine entry in a utility process, registers the bridge channels, loads the panel when the engine is ready, and stops it on quit', async () => {
    mock.app.requestSingleInstanceLock.mockReturnValue(true);
    await import('../../src-main/main');
    await flush();
    expect(mock.utilityProcess.fork).toHaveBeenCalledTimes(1);
    const child = FakeUtilityProcess.instances[0]!;
    expect(child.modulePath).toBe('/app/out/main/engine-utility.js');
    expect(child.options.env).toMatchObject({
      POS_DATA_DIR: path.join(userData, 'datos'),
      POS_ASSETS_DIR: '/app/assets',
      POS_UI_DIR: '/app/out/renderer',
      POS_PANEL_TOKEN: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(mock.ipcMain.handle.mock.calls.map((c) => c[0]).sort()).toEqual(['till:app-info', 'till:device-info', 'till:print']);
    const win = FakeBrowserWindow.instances[0]!;
    expect((win.options.webPreferences as { preload: string }).preload).toBe('/app/out/preload/preload.cjs');

    child.emit('message', { type: 'ready', urls: { billing: 'http://127.0.0.1:8780', manage: 'http://127.0.0.1:8781', panel: 'http://127.0.0.1:8782' } });
    await flush();
    expect(win.loaded.at(-1)).toBe('http://127.0.0.1:8782/#/venta');

    // The bridge answers the till window with the device identity kept in userData.
    const deviceInfo = mock.ipcMain.handle.mock.calls.find((c) => c[0] === 'till:device-info')![1] as (e: unknown) => Promise<{ idMaquina: string }>;
    const event = { senderFrame: { url: 'http://127.0.0.1:8782/#/venta' }, sender: { getURL: () => '' } };
    expect((await deviceInfo(event)).idMaquina).toMatch(/^TPV-/);

    // Closing the window only hides it (the till keeps filing); quitting stops the engine first.
    const close = { preventDefault: vi.fn() };
    win.emit('close', close);
    expect(close.preventDefault).toHaveBeenCalled();
    const quit = { preventDefault: vi.fn() };
    mock.app.emit('before-quit', quit);
    expect(quit.preventDefault).toHaveBeenCalled();
    await flush();
    expect(child.received).toEqual([{ type: 'stop' }]);
    expect(mock.app.exit).toHaveBeenCalledWith(0);
  });

  it('secures the window’s session before loading anything: the CSP forced on panel responses, every permission denied', async () => {
    mock.app.requestSingleInstanceLock.mockReturnValue(true);
    await import('../../src-main/main');
    await flush();
    const s = mock.session.defaultSession;
    expect(s.webRequest.onHeadersReceived).toHaveBeenCalledTimes(1);
    expect(s.setPermissionRequestHandler).toHaveBeenCalledTimes(1);
    expect(s.setPermissionCheckHandler).toHaveBeenCalledTimes(1);
    // The window uses that session.
    expect((FakeBrowserWindow.instances[0]!.options.webPreferences as { session: unknown }).session).toBe(s);

    // The header hook follows the engine's panel origin once it is ready.
    FakeUtilityProcess.instances[0]!.emit('message', { type: 'ready', urls: { billing: 'http://127.0.0.1:8780', manage: 'http://127.0.0.1:8781', panel: 'http://127.0.0.1:8782' } });
    await flush();
    const onHeaders = s.webRequest.onHeadersReceived.mock.calls[0]![0] as (
      details: { url: string; responseHeaders?: Record<string, string[]> },
      callback: (response: { responseHeaders?: Record<string, string[] | string> }) => void,
    ) => void;
    const headersFor = (url: string, responseHeaders: Record<string, string[]>) => {
      const callback = vi.fn();
      onHeaders({ url, responseHeaders }, callback);
      expect(callback).toHaveBeenCalledTimes(1);
      return (callback.mock.calls[0]![0] as { responseHeaders: Record<string, unknown> }).responseHeaders;
    };
    expect(headersFor('http://127.0.0.1:8782/#/venta', { 'content-security-policy': ["default-src *; script-src 'unsafe-inline'"] })).toEqual({ 'Content-Security-Policy': [TILL_CSP] });
    expect(headersFor('http://127.0.0.1:8782/assets/app.js', {})).toEqual({ 'Content-Security-Policy': [TILL_CSP] });
    expect(headersFor('https://elsewhere.example/', { 'x-a': ['b'] })).toEqual({ 'x-a': ['b'] });

    // Camera, notifications, USB, geolocation…: refused, whoever asks.
    const onRequest = s.setPermissionRequestHandler.mock.calls[0]![0] as (wc: unknown, permission: string, callback: (granted: boolean) => void) => void;
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'usb', 'openExternal']) {
      const callback = vi.fn();
      onRequest({}, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
    }
    const onCheck = s.setPermissionCheckHandler.mock.calls[0]![0] as (wc: unknown, permission: string) => boolean;
    expect(onCheck({}, 'media')).toBe(false);
    expect(onCheck({}, 'clipboard-sanitized-write')).toBe(false);
  });

  it('a second launch brings the till window back: restored if minimised, shown and focused; reopened if it was destroyed', async () => {
    mock.app.requestSingleInstanceLock.mockReturnValue(true);
    await import('../../src-main/main');
    await flush();
    const win = FakeBrowserWindow.instances[0]!;
    win.minimize();
    win.hide();
    mock.app.emit('second-instance', {}, ['/app/tpv'], '/');
    expect(win.restore).toHaveBeenCalledTimes(1);
    expect(win.isMinimized()).toBe(false);
    expect(win.show).toHaveBeenCalled();
    expect(win.focus).toHaveBeenCalledTimes(1);
    expect(FakeBrowserWindow.instances).toHaveLength(1);

    // Not minimised: only shown and focused.
    mock.app.emit('second-instance', {}, [], '/');
    expect(win.restore).toHaveBeenCalledTimes(1);
    expect(win.focus).toHaveBeenCalledTimes(2);

    win.destroy();
    mock.app.emit('second-instance', {}, [], '/');
    expect(FakeBrowserWindow.instances).toHaveLength(2);
    expect(FakeBrowserWindow.instances[1]!.focus).toHaveBeenCalledTimes(1);
  });

  it('the tray follows the engine’s state and its menu opens the till, restarts the engine and quits', async () => {
    mock.app.requestSingleInstanceLock.mockReturnValue(true);
    await import('../../src-main/main');
    await flush();
    expect(FakeTray.instances).toHaveLength(1);
    const tray = FakeTray.instances[0]!;
    const item = (label: string) => tray.menu.find((i) => i.label === label);
    expect(tray.setToolTip).toHaveBeenLastCalledWith('TPV Cumple · Motor: arrancando');

    const first = FakeUtilityProcess.instances[0]!;
    first.emit('message', { type: 'ready', urls: { billing: 'http://127.0.0.1:8780', manage: 'http://127.0.0.1:8781', panel: 'http://127.0.0.1:8782' } });
    await flush();
    expect(tray.setToolTip).toHaveBeenLastCalledWith('TPV Cumple · Motor: en marcha');
    expect(item('Motor: en marcha')).toMatchObject({ enabled: false });

    const win = FakeBrowserWindow.instances[0]!;
    win.hide();
    item('Abrir la caja')!.click!();
    expect(win.visible).toBe(true);
    expect(win.focus).toHaveBeenCalled();

    // Restart: the running engine is asked to stop, then a new one is forked.
    item('Reiniciar el motor')!.click!();
    await flush();
    expect(first.received).toEqual([{ type: 'stop' }]);
    expect(FakeUtilityProcess.instances).toHaveLength(2);

    item('Salir')!.click!();
    expect(mock.app.quit).toHaveBeenCalledTimes(1);
  });

  it('installed (packaged), the engine process finds the official XSDs for its emulators in the app’s resources', async () => {
    mock.app.requestSingleInstanceLock.mockReturnValue(true);
    mock.app.isPackaged = true;
    const saved = { resourcesPath: process.resourcesPath, reference: process.env.POS_REFERENCE_DIR };
    delete process.env.POS_REFERENCE_DIR;
    Object.defineProperty(process, 'resourcesPath', { value: '/opt/TPV Cumple/resources', configurable: true, writable: true });
    try {
      await import('../../src-main/main');
      await flush();
      expect(FakeUtilityProcess.instances[0]!.options.env.POS_REFERENCE_DIR).toBe(path.join('/opt/TPV Cumple/resources', 'reference'));
    } finally {
      Object.defineProperty(process, 'resourcesPath', { value: saved.resourcesPath, configurable: true, writable: true });
      if (saved.reference !== undefined) process.env.POS_REFERENCE_DIR = saved.reference;
    }
  });
});
