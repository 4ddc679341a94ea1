import { describe, expect, it, vi } from 'vitest';
import { TILL_CSP, withCsp } from '../../src-main/windows/csp';
import { createTillWindow, navigationAllowed } from '../../src-main/windows/till-window';
import { FakeBrowserWindow } from './electron-mock';

vi.mock('electron', async () => (await import('./electron-mock')).electronMock('/tmp'));

const ORIGIN = 'http://127.0.0.1:8782';

describe('Till window: isolated, sandboxed, no Node, strict CSP, no way out', () => {
  it('contextIsolation on, sandbox on, nodeIntegration off, the preload bridge only', () => {
    createTillWindow({ preloadPath: '/app/out/preload/preload.cjs', panelOrigin: () => ORIGIN });
    const prefs = FakeBrowserWindow.instances.at(-1)!.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      preload: '/app/out/preload/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      webviewTag: false,
    });
  });

  it('navigation stays on the panel origin; new windows and webviews are refused', () => {
    createTillWindow({ preloadPath: '/p.cjs', panelOrigin: () => ORIGIN });
    const wc = FakeBrowserWindow.instances.at(-1)!.webContents;
    const attempt = (event: string, url: string) => {
      const e = { preventDefault: vi.fn() };
      wc.emit(event, e, url);
      return e.preventDefault.mock.calls.length > 0;
    };
    expect(attempt('will-navigate', `${ORIGIN}/#/facturas`)).toBe(false);
    expect(attempt('will-navigate', 'https://evil.example/')).toBe(true);
    expect(attempt('will-navigate', 'http://127.0.0.1:8780/v1/cuenta')).toBe(true);
    expect(attempt('will-redirect', 'file:///etc/passwd')).toBe(true);
    expect(wc.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    const e = { preventDefault: vi.fn() };
    wc.emit('will-attach-webview', e);
    expect(e.preventDefault).toHaveBeenCalled();
    expect(navigationAllowed('javascript:alert(1)', ORIGIN)).toBe(false);
    expect(navigationAllowed(`${ORIGIN}/`, undefined)).toBe(false);
  });

  it('the CSP is forced on every response of the panel origin and left alone elsewhere', () => {
    expect(TILL_CSP).toContain("script-src 'self'");
    expect(TILL_CSP).not.toContain('unsafe-inline');
    expect(TILL_CSP).not.toContain('unsafe-eval');
    expect(withCsp(`${ORIGIN}/`, ORIGIN, { 'content-security-policy': ['default-src *'] })).toEqual({ 'Content-Security-Policy': [TILL_CSP] });
    expect(withCsp('https://other.example/', ORIGIN, { a: ['b'] })).toEqual({ a: ['b'] });
  });

  it('secureSession: the CSP hook on the session follows the current panel origin; every permission request and check is denied', () => {
    const session = { webRequest: { onHeadersReceived: vi.fn() }, setPermissionRequestHandler: vi.fn(), setPermissionCheckHandler: vi.fn() };
    let origin: string | undefined;
    createTillWindow({ preloadPath: '/p.cjs', panelOrigin: () => origin, session: session as never });
    // The window is built on the session it secured.
    expect((FakeBrowserWindow.instances.at(-1)!.options.webPreferences as { session: unknown }).session).toBe(session);
    expect(session.webRequest.onHeadersReceived).toHaveBeenCalledTimes(1);
    const hook = session.webRequest.onHeadersReceived.mock.calls[0]![0] as (d: { url: string; responseHeaders?: Record<string, string[]> }, cb: (r: unknown) => void) => void;
    const answer = (url: string) => {
      const cb = vi.fn();
      hook({ url, responseHeaders: { 'Content-Type': ['text/html'] } }, cb);
      return cb.mock.calls[0]![0];
    };
    // No engine yet: nothing is the panel, nothing is rewritten.
    expect(answer(`${ORIGIN}/`)).toEqual({ responseHeaders: { 'Content-Type': ['text/html'] } });
    origin = ORIGIN;
    expect(answer(`${ORIGIN}/`)).toEqual({ responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [TILL_CSP] } });
    // The engine restarted on another port: the old origin is no longer trusted.
    origin = 'http://127.0.0.1:9999';
    expect(answer(`${ORIGIN}/`)).toEqual({ responseHeaders: { 'Content-Type': ['text/html'] } });

    const request = session.setPermissionRequestHandler.mock.calls[0]![0] as (wc: unknown, p: string, cb: (ok: boolean) => void) => void;
    const granted = vi.fn();
    request({}, 'media', granted);
    request({}, 'notifications', granted);
    expect(granted.mock.calls).toEqual([[false], [false]]);
    const check = session.setPermissionCheckHandler.mock.calls[0]![0] as (wc: unknown, p: string) => boolean;
    expect(check({}, 'serial')).toBe(false);
  });
});
