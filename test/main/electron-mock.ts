// A stand-in for the parts of Electron that main uses (Electron cannot run on build machines).
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

export class FakeWebContents extends EventEmitter {
  url = '';
  windowOpenHandler: ((details: unknown) => { action: string }) | undefined;
  setWindowOpenHandler(handler: (details: unknown) => { action: string }) {
    this.windowOpenHandler = handler;
  }
  getURL() {
    return this.url;
  }
  print = vi.fn();
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  readonly loaded: string[] = [];
  destroyed = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeBrowserWindow.instances.push(this);
  }
  async loadURL(url: string) {
    this.loaded.push(url);
    this.webContents.url = url;
  }
  isDestroyed() {
    return this.destroyed;
  }
  isMinimized() {
    return false;
  }
  show() {}
  hide() {}
  focus() {}
  restore() {}
  destroy() {
    this.destroyed = true;
  }
}

export class FakeUtilityProcess extends EventEmitter {
  static instances: FakeUtilityProcess[] = [];
  readonly pid = 4242;
  readonly received: unknown[] = [];
  constructor(
    readonly modulePath: string,
    readonly options: { env: Record<string, string | undefined> },
  ) {
    super();
    FakeUtilityProcess.instances.push(this);
  }
  postMessage(message: unknown) {
    this.received.push(message);
    if ((message as { type?: string }).type === 'stop') queueMicrotask(() => this.emit('exit', 0));
  }
  kill() {
    queueMicrotask(() => this.emit('exit', 137));
    return true;
  }
}

export function electronMock(userData: string, lock = true) {
  const appEvents = new EventEmitter();
  const session = {
    webRequest: { onHeadersReceived: vi.fn() },
    setPermissionRequestHandler: vi.fn(),
    setPermissionCheckHandler: vi.fn(),
  };
  return {
    app: {
      getAppPath: () => '/app',
      getPath: vi.fn(() => userData),
      getVersion: () => '0.1.0',
      getName: () => 'TPV Cumple',
      requestSingleInstanceLock: vi.fn(() => lock),
      whenReady: vi.fn(async () => {}),
      quit: vi.fn(),
      exit: vi.fn(),
      on: vi.fn((event: string, listener: (...args: unknown[]) => void) => appEvents.on(event, listener)),
      emit: (event: string, ...args: unknown[]) => appEvents.emit(event, ...args),
    },
    BrowserWindow: FakeBrowserWindow,
    session: { defaultSession: session },
    ipcMain: { handle: vi.fn(), removeHandler: vi.fn() },
    utilityProcess: { fork: vi.fn((modulePath: string, _args: string[], options: { env: Record<string, string | undefined> }) => new FakeUtilityProcess(modulePath, options)) },
    Tray: class {
      setToolTip = vi.fn();
      setContextMenu = vi.fn();
      on = vi.fn();
      destroy = vi.fn();
    },
    Menu: { buildFromTemplate: vi.fn((t: unknown) => t) },
    nativeImage: { createFromDataURL: vi.fn(() => ({})) },
  };
}
