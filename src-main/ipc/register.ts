// Wires the router to Electron's ipcMain: one `handle` per allow-listed channel, nothing else.
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import type { TillIpcRouter } from './router';

export interface IpcLog {
  warn(message: string, data?: Record<string, unknown>): void;
}

export function registerTillIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, router: TillIpcRouter, log: IpcLog): () => void {
  for (const channel of router.channels) {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      const url = event.senderFrame?.url ?? event.sender.getURL();
      try {
        return await router.dispatch(channel, args, { url });
      } catch (error) {
        log.warn('IPC rejected', { channel, error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
    });
  }
  return () => {
    for (const channel of router.channels) ipcMain.removeHandler(channel);
  };
}
