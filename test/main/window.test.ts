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
});
