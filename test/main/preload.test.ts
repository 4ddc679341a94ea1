import { beforeEach, describe, expect, it, vi } from 'vitest';
import { aReceipt } from './fixtures';

const exposeInMainWorld = vi.fn();
const invoke = vi.fn(async (..._args: unknown[]) => ({ ok: true }));
vi.mock('electron', () => ({ contextBridge: { exposeInMainWorld }, ipcRenderer: { invoke } }));

beforeEach(() => {
  vi.resetModules();
  exposeInMainWorld.mockClear();
  invoke.mockClear();
});

describe('Preload: one object, window.till, over the allow-listed channels', () => {
  it('exposes exactly print, deviceInfo and appInfo under "till" — never ipcRenderer', async () => {
    await import('../../src-main/preload/index');
    expect(exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [name, api] = exposeInMainWorld.mock.calls[0] as [string, Record<string, unknown>];
    expect(name).toBe('till');
    expect(Object.keys(api).sort()).toEqual(['appInfo', 'deviceInfo', 'print']);
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
    expect(Object.values(api)).not.toContain(invoke);
  });

  it('each method invokes its till:* channel with its arguments', async () => {
    const { till } = await import('../../src-main/preload/index');
    await till.print(aReceipt());
    await till.deviceInfo();
    await till.appInfo();
    expect(invoke.mock.calls).toEqual([['till:print', aReceipt()], ['till:device-info'], ['till:app-info']]);
  });
});
