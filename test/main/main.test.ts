import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { electronMock, FakeBrowserWindow, FakeUtilityProcess } from './electron-mock';

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
  FakeBrowserWindow.instances = [];
  FakeUtilityProcess.instances = [];
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
      POS_PANEL_TOKEN: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
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
});
