// The preload bridge when the UI runs in the Electron till window; undefined in a plain browser.
import type { TillBridge } from '../../src-shared/bridge';

declare global {
  interface Window {
    till?: TillBridge;
  }
}

export function tillBridge(): TillBridge | undefined {
  return (globalThis as { till?: TillBridge }).till;
}
