import { describe, expect, it, vi } from 'vitest';
import { TILL_CHANNELS } from '../../src-shared/bridge';
import { registerTillIpc } from '../../src-main/ipc/register';
import { createTillIpcRouter, IpcRejected, type TillHandlers } from '../../src-main/ipc/router';
import { aReceipt } from './fixtures';

vi.mock('electron', () => ({}));

const ORIGIN = 'http://127.0.0.1:8782';
const till = { url: `${ORIGIN}/#/venta` };

function setup() {
  const handlers = {
    'till:print': vi.fn(async () => ({ ok: true as const, via: 'sistema' as const, impresora: 'predeterminada' })),
    'till:device-info': vi.fn(() => ({ idMaquina: 'TPV-0123456789AB' })),
    'till:app-info': vi.fn(() => ({ version: '0.1.0' })),
  } satisfies TillHandlers;
  return { handlers, router: createTillIpcRouter(handlers, () => ORIGIN) };
}

async function rejection(p: Promise<unknown>): Promise<IpcRejected> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IpcRejected);
  return error as IpcRejected;
}

describe('Bridge IPC: only the allow-listed till:* channels', () => {
  for (const channel of ['till:exec', 'print', 'till:print ', 'TILL:PRINT', '__proto__', 'constructor', 'till:*', '']) {
    it(`unknown channel ${JSON.stringify(channel)} → rejected, no handler runs`, async () => {
      const { router, handlers } = setup();
      expect((await rejection(router.dispatch(channel, [aReceipt()], till))).reason).toBe('unknown-channel');
      expect(handlers['till:print']).not.toHaveBeenCalled();
    });
  }

  it('registers exactly the three channels with ipcMain, nothing else', () => {
    const { router } = setup();
    const ipcMain = { handle: vi.fn(), removeHandler: vi.fn() };
    const unregister = registerTillIpc(ipcMain, router, { warn: vi.fn() });
    expect(ipcMain.handle.mock.calls.map((c) => c[0]).sort()).toEqual(['till:app-info', 'till:device-info', 'till:print']);
    unregister();
    expect(ipcMain.removeHandler).toHaveBeenCalledTimes(3);
  });

  it('a call from another origin (a page the window was navigated to) → rejected', async () => {
    const { router, handlers } = setup();
    for (const url of ['https://evil.example/', 'http://127.0.0.1:8780/', 'file:///etc/passwd', 'not a url']) {
      expect((await rejection(router.dispatch(TILL_CHANNELS.deviceInfo, [], { url }))).reason).toBe('foreign-sender');
    }
    expect(handlers['till:device-info']).not.toHaveBeenCalled();
  });

  it('no call is accepted before the engine (and so the till origin) is known', async () => {
    const router = createTillIpcRouter(setup().handlers, () => undefined);
    expect((await rejection(router.dispatch(TILL_CHANNELS.appInfo, [], till))).reason).toBe('foreign-sender');
  });
});

describe('Bridge IPC: every argument parsed with zod in main', () => {
  const bad: [string, unknown[]][] = [
    ['no receipt', []],
    ['two arguments', [aReceipt(), aReceipt()]],
    ['a string', ['<html>']],
    ['an unknown key', [{ ...aReceipt(), script: 'alert(1)' }]],
    ['paper width 100 mm', [{ ...aReceipt(), ancho: 100 }]],
    ['an amount as a number', [{ ...aReceipt(), importeTotal: 5.7 }]],
    ['a QR that is not https', [aReceipt({ qr: { sistema: 'verifactu', url: 'http://prewww2.aeat.es/x' } })]],
    ['a javascript: QR', [aReceipt({ qr: { sistema: 'verifactu', url: 'javascript:alert(1)' } })]],
    ['a TicketBAI QR without its identifier', [{ ...aReceipt(), qr: { sistema: 'ticketbai', url: 'https://batuz.eus/QRTBAI/?id=x' } }]],
    ['a 10,000-character description', [aReceipt({ lineas: [{ descripcion: 'x'.repeat(10_000), cantidad: '1', precio: '1', importe: '1', tipoIva: '21' }] })]],
  ];
  for (const [what, args] of bad) {
    it(`till:print with ${what} → rejected before the printer`, async () => {
      const { router, handlers } = setup();
      expect((await rejection(router.dispatch(TILL_CHANNELS.print, args, till))).reason).toBe('bad-arguments');
      expect(handlers['till:print']).not.toHaveBeenCalled();
    });
  }

  it('till:device-info and till:app-info take no arguments', async () => {
    const { router } = setup();
    expect((await rejection(router.dispatch(TILL_CHANNELS.deviceInfo, ['x'], till))).reason).toBe('bad-arguments');
    expect((await rejection(router.dispatch(TILL_CHANNELS.appInfo, [{}], till))).reason).toBe('bad-arguments');
  });

  it('a well-formed receipt reaches the print handler, parsed', async () => {
    const { router, handlers } = setup();
    expect(await router.dispatch(TILL_CHANNELS.print, [aReceipt()], till)).toEqual({ ok: true, via: 'sistema', impresora: 'predeterminada' });
    expect(handlers['till:print']).toHaveBeenCalledWith(aReceipt());
  });

  it('through ipcMain: the registered handler rejects malformed arguments and logs it', async () => {
    const { router } = setup();
    const registered = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
    const warn = vi.fn();
    registerTillIpc({ handle: (c: string, h: never) => void registered.set(c, h), removeHandler: vi.fn() } as never, router, { warn });
    const event = { senderFrame: { url: till.url }, sender: { getURL: () => till.url } };
    await expect(registered.get('till:print')!(event, { nope: true })).rejects.toThrow(/till:print/);
    expect(warn).toHaveBeenCalledWith('IPC rejected', expect.objectContaining({ channel: 'till:print' }));
    await expect(registered.get('till:device-info')!(event)).resolves.toEqual({ idMaquina: 'TPV-0123456789AB' });
  });
});
