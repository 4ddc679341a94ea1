// Electron main: thin on purpose (DESIGN.md §1). Single instance; the engine in a utilityProcess
// (engine-host.ts); the till window (sandboxed, CSP) loading the UI the engine's panel serves; the
// preload bridge's IPC (allow-list + zod); tray; clean shutdown; electron-log.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { app, ipcMain, session, utilityProcess, type BrowserWindow } from 'electron';
import type { Receipt } from '../src-shared/bridge';
import { PRIMERA_CAJA } from '../src-shared/nombre-caja';
import { loadDeviceIdentity } from './device-identity';
import { EngineHost, type EngineChild } from './engine-host';
import { appInfoHandler } from './ipc/app-info';
import { deviceInfoHandler } from './ipc/device';
import { printHandler } from './ipc/printing';
import { pinnedCertificateVerifier, pinnedFetch } from './pinned-tls';
import { loadSharedEngineConfig, SharedEngine } from './shared-engine';
import { registerTill, registrationTargets } from './till-registration';
import { registerTillIpc } from './ipc/register';
import { createTillIpcRouter } from './ipc/router';
import { createMainLog } from './log';
import { printReceipt } from './printing/printer';
import { loadPrinterConfig } from './printing/printer-config';
import { createTray } from './tray';
import { createTillWindow, splashUrl } from './windows/till-window';

const APP_ROOT = app.getAppPath();

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  await app.whenReady();
  const userData = app.getPath('userData');
  const dataDir = process.env.POS_DATA_DIR ?? path.join(userData, 'datos');
  const log = createMainLog(dataDir);
  const identity = loadDeviceIdentity(userData, { warn: (m) => log.warn(m) });
  const printer = loadPrinterConfig(userData, (m) => log.warn(m));
  // One token per launch, kept across engine restarts so the loaded page stays authorised.
  const panelToken = randomBytes(32).toString('base64url');
  log.info('till starting', { version: app.getVersion(), idMaquina: identity.idMaquina, dataDir });

  // Staff tell tills apart by name, not by the computer's: «Caja 1», or the next free one (registerTill).
  const etiqueta = PRIMERA_CAJA;
  // userData/engine.json: this till uses the shop's shared engine instead of forking its own.
  const shared = loadSharedEngineConfig(userData, (m) => log.warn(m));
  // A shared engine's certificate is trusted by its pinned fingerprint only (its CA is the engine's own).
  if (shared) session.defaultSession.setCertificateVerifyProc(pinnedCertificateVerifier(new URL(shared.panelUrl).hostname, shared.fingerprint256));
  // With a shared engine this till sells as the identity its credential is bound to.
  const idMaquina = shared?.idMaquina ?? identity.idMaquina;
  const host = shared ? new SharedEngine(shared) : new EngineHost({
    modulePath: path.join(APP_ROOT, 'out/main/engine-utility.js'),
    env: {
      ...process.env,
      POS_DATA_DIR: dataDir,
      POS_PANEL_TOKEN: panelToken,
      // The engine's demo data registers this till as the demo company's device.
      POS_TILL_ID: identity.idMaquina,
      POS_TILL_LABEL: etiqueta,
      POS_ASSETS_DIR: path.join(APP_ROOT, 'assets'),
      POS_UI_DIR: path.join(APP_ROOT, 'out/renderer'),
      // The engine process starts the emulators as `npm start` does; installed, they validate
      // against the official XSDs shipped as extra resources (assets/reference, electron-builder.yml).
      ...(app.isPackaged && !process.env.POS_REFERENCE_DIR ? { POS_REFERENCE_DIR: path.join(process.resourcesPath, 'reference') } : {}),
    },
    fork: (modulePath, args, options): EngineChild => {
      const child = utilityProcess.fork(modulePath, args, options);
      return {
        get pid() {
          return child.pid;
        },
        on: (event: 'message' | 'exit', listener: (value: never) => void) => child.on(event as 'exit', listener as (code: number) => void),
        postMessage: (message) => child.postMessage(message),
        kill: () => child.kill(),
      } as EngineChild;
    },
    log,
  });
  const panelOrigin = () => originOf(host.urls?.panel);

  const router = createTillIpcRouter(
    {
      'till:print': printHandler((receipt: Receipt) => printReceipt(receipt, printer, log)),
      'till:device-info': deviceInfoHandler({ idMaquina, hostname: hostname(), platform: process.platform, printer: () => printer }),
      'till:app-info': appInfoHandler({
        nombre: app.getName(),
        version: app.getVersion(),
        electron: process.versions.electron ?? '',
        panelUrl: () => host.urls?.panel,
        panelToken: (host instanceof SharedEngine ? host.panelToken : undefined) ?? panelToken,
        carpetaDatos: dataDir,
        archivoLog: log.file,
        motor: () => host.state,
      }),
    },
    panelOrigin,
  );
  registerTillIpc(ipcMain, router, log);

  let win: BrowserWindow | undefined;
  let quitting = false;
  const show = () => {
    if (!win || win.isDestroyed()) win = openWindow();
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };
  const openWindow = () => {
    const w = createTillWindow({ preloadPath: path.join(APP_ROOT, 'out/preload/preload.cjs'), panelOrigin });
    // Closing the window keeps the till filing in the background (tray); Quit stops everything.
    w.on('close', (event) => {
      if (!quitting) {
        event.preventDefault();
        w.hide();
      }
    });
    if (host.urls?.panel) void w.loadURL(`${host.urls.panel}/#/venta`);
    return w;
  };
  app.on('second-instance', show);

  const tray = createTray({
    show,
    restartEngine: () => void host.restart().catch((e: unknown) => log.error('engine restart failed', { error: String(e) })),
    quit: () => app.quit(),
  });
  host.onChange((state, urls) => {
    tray.setState(state);
    // This till's own engine on HTTPS (POS_HOST beyond loopback): its certificate, by fingerprint.
    if (state === 'listo' && urls && host instanceof EngineHost && host.fingerprint256) {
      session.defaultSession.setCertificateVerifyProc(pinnedCertificateVerifier(new URL(urls.panel).hostname, host.fingerprint256));
    }
    // Every ready engine of its own learns this till (again after a restart: registering is
    // idempotent); a shared engine registered it when it issued the till's credential.
    if (state === 'listo' && urls && !shared) {
      for (const target of registrationTargets({ dataDir, manageUrl: urls.manage })) {
        // Its own engine on HTTPS (POS_HOST beyond loopback) is trusted by its fingerprint only.
        const engineFetch = host instanceof EngineHost && host.fingerprint256 ? pinnedFetch(host.fingerprint256) : fetch;
        void registerTill(target, { idMaquina: identity.idMaquina, etiqueta }, { fetch: engineFetch, log });
      }
    }
    // A restarted engine may listen elsewhere (ports 0): follow it.
    if (state === 'listo' && urls?.panel && win && !win.isDestroyed() && originOf(win.webContents.getURL()) !== originOf(urls.panel)) {
      void win.loadURL(`${urls.panel}/#/venta`);
    }
    if (state === 'listo' && urls && !urls.panel && win && !win.isDestroyed()) void win.loadURL(splashUrl('engine.json: falta panelUrl del motor compartido'));
    if (state === 'reiniciando' && win && !win.isDestroyed() && !host.urls) void win.loadURL(splashUrl('Reiniciando el motor…'));
  });

  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    quitting = true;
    log.info('quitting: stopping the engine');
    void host.stop().finally(() => {
      tray.destroy();
      app.exit(0);
    });
  });
  app.on('window-all-closed', () => {
    // Stay in the tray.
  });

  win = openWindow();
  try {
    await host.start();
  } catch (error) {
    log.error('engine did not start', { error: error instanceof Error ? error.message : String(error) });
  }
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  void main();
}
