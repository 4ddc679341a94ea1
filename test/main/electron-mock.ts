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
  /** What the next silent print answers (Electron's callback(success, failureReason)). */
  static printAnswer: { success: boolean; failureReason: string } = { success: true, failureReason: '' };
  print = vi.fn((_options: unknown, callback?: (success: boolean, failureReason: string) => void) => {
    const { success, failureReason } = FakeWebContents.printAnswer;
    queueMicrotask(() => callback?.(success, failureReason));
  });
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
  minimized = false;
  visible = false;
  isMinimized() {
    return this.minimized;
  }
  minimize() {
    this.minimized = true;
  }
  show = vi.fn(() => {
    this.visible = true;
  });
  hide = vi.fn(() => {
    this.visible = false;
  });
  focus = vi.fn();
  restore = vi.fn(() => {
    this.minimized = false;
  });
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

export class FakeTray {
  static instances: FakeTray[] = [];
  readonly handlers = new Map<string, () => void>();
  setToolTip = vi.fn();
  setContextMenu = vi.fn();
  on = vi.fn((event: string, listener: () => void) => this.handlers.set(event, listener));
  destroy = vi.fn();
  constructor(readonly image: unknown) {
    FakeTray.instances.push(this);
  }
  /** The template of the last menu set (Menu.buildFromTemplate returns it unchanged here). */
  get menu(): { label?: string; type?: string; enabled?: boolean; click?: () => void }[] {
    return this.setContextMenu.mock.calls.at(-1)?.[0] as never;
  }
}

export function electronMock(userData: string, lock = true) {
  const appEvents = new EventEmitter();
  const session = {
    webRequest: { onHeadersReceived: vi.fn() },
    setPermissionRequestHandler: vi.fn(),
    setPermissionCheckHandler: vi.fn(),
    setCertificateVerifyProc: vi.fn(),
  };
  return {
    app: {
      isPackaged: false,
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
      /** Forgets the listeners of an earlier import of main (tests re-import it). */
      removeAllListeners: () => appEvents.removeAllListeners(),
    },
    BrowserWindow: FakeBrowserWindow,
    session: { defaultSession: session },
    ipcMain: { handle: vi.fn(), removeHandler: vi.fn() },
    utilityProcess: { fork: vi.fn((modulePath: string, _args: string[], options: { env: Record<string, string | undefined> }) => new FakeUtilityProcess(modulePath, options)) },
    Tray: FakeTray,
    Menu: { buildFromTemplate: vi.fn((t: unknown) => t) },
    nativeImage: { createFromDataURL: vi.fn(() => ({})) },
  };
}
