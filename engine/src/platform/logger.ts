import { mkdirSync } from 'node:fs';
import path from 'node:path';
import log from 'electron-log/node';

export interface Logger {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** One log file per install in `<dataDir>/logs/`, readable by support staff (electron-log). */
export function fileLogger(dataDir: string, echoToConsole = false): Logger {
  const dir = path.join(dataDir, 'logs');
  mkdirSync(dir, { recursive: true });
  const logger = log.create({ logId: `engine-${dataDir}` });
  logger.transports.file.resolvePathFn = () => path.join(dir, 'engine.log');
  logger.transports.console.level = echoToConsole ? 'info' : false;
  const write = (level: 'info' | 'warn' | 'error') => (message: string, data?: Record<string, unknown>) => {
    if (data) logger[level](message, data);
    else logger[level](message);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
