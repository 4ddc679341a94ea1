// The sandboxed preload: exposes exactly one object, `window.till`, whose three methods invoke the
// allow-listed `till:*` channels. Raw ipcRenderer never reaches the page; main parses every
// argument again with zod (ipc/router.ts).
import { contextBridge, ipcRenderer } from 'electron';
import { isTillChannel, TILL_CHANNELS, type AppInfo, type DeviceInfo, type PrintResult, type Receipt, type TillBridge, type TillChannel } from '../../src-shared/bridge';

function invoke<T>(channel: TillChannel, ...args: unknown[]): Promise<T> {
  if (!isTillChannel(channel)) return Promise.reject(new Error(`channel not allowed: ${String(channel)}`));
  return ipcRenderer.invoke(channel, ...args) as Promise<T>;
}

export const till = {
  print: (receipt: Receipt) => invoke<PrintResult>(TILL_CHANNELS.print, receipt),
  deviceInfo: () => invoke<DeviceInfo>(TILL_CHANNELS.deviceInfo),
  appInfo: () => invoke<AppInfo>(TILL_CHANNELS.appInfo),
} satisfies TillBridge;

contextBridge.exposeInMainWorld('till', till);
