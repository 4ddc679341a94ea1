// The till window: context isolation, sandbox, no Node in the page, the preload bridge only,
// a strict CSP, no navigation away from the panel origin, no new windows, no permissions.
import { BrowserWindow, session as electronSession, type Session, type WebPreferences } from 'electron';
import { withCsp } from './csp';

export function tillWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/** True when `url` may be shown in the till window (the panel origin, or the local splash). */
export function navigationAllowed(url: string, panelOrigin: string | undefined): boolean {
  if (url.startsWith('data:text/html')) return true;
  try {
    return panelOrigin !== undefined && new URL(url).origin === panelOrigin;
  } catch {
    return false;
  }
}

/** CSP on every panel response and no permission (camera, notifications, USB…) for any page. */
export function secureSession(session: Session, panelOrigin: () => string | undefined): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.url, panelOrigin(), details.responseHeaders) });
  });
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

export function splashUrl(text: string): string {
  const html = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>TPV Cumple</title><body style="font-family:system-ui;display:grid;place-items:center;height:100vh;margin:0"><p>${text.replace(/[<>&]/g, '')}</p>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

export function createTillWindow(options: { preloadPath: string; panelOrigin: () => string | undefined; session?: Session }): BrowserWindow {
  const session = options.session ?? electronSession.defaultSession;
  secureSession(session, options.panelOrigin);
  const win = new BrowserWindow({
    width: 1366,
    height: 860,
    minWidth: 1024,
    minHeight: 700,
    show: false,
    title: 'TPV Cumple',
    autoHideMenuBar: true,
    webPreferences: { ...tillWebPreferences(options.preloadPath), session },
  });
  win.once('ready-to-show', () => win.show());
  win.webContents.on('will-navigate', (event, url) => {
    if (!navigationAllowed(url, options.panelOrigin())) event.preventDefault();
  });
  win.webContents.on('will-redirect', (event, url) => {
    if (!navigationAllowed(url, options.panelOrigin())) event.preventDefault();
  });
  win.webContents.on('will-attach-webview', (event) => event.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  void win.loadURL(splashUrl('Arrancando la caja…'));
  return win;
}
