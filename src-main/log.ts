// electron-log for the main process: one file beside the engine's (<dataDir>/logs/main.log).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import log from 'electron-log/main';

export interface MainLog {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
  readonly file: string;
}

export function createMainLog(dataDir: string): MainLog {
  const dir = path.join(dataDir, 'logs');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'main.log');
  log.transports.file.resolvePathFn = () => file;
  log.transports.console.level = process.env.NODE_ENV === 'production' ? false : 'info';
  const write = (level: 'info' | 'warn' | 'error') => (message: string, data?: Record<string, unknown>) => (data ? log[level](message, data) : log[level](message));
  return { info: write('info'), warn: write('warn'), error: write('error'), file };
}
