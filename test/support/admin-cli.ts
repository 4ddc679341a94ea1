import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DATABASE_URL_FILE } from './postgres';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/**
 * The admin command line (`npm run admin -- …`) as an operator runs it: another process on the
 * data dir `dataDir` (and on the PostgreSQL database its engines use, when the data dir names one:
 * postgres.ts, postgresUrlOf). Resolves with its JSON answer; rejects (with the exit `code`) when it fails.
 */
export async function admin(dataDir: string, ...args: string[]): Promise<unknown> {
  const urlFile = path.join(dataDir, DATABASE_URL_FILE);
  const database: Record<string, string> = existsSync(urlFile) ? { POS_DATABASE_URL: readFileSync(urlFile, 'utf8') } : {};
  return adminWith({ POS_DATA_DIR: dataDir, ...database }, ...args);
}

/** The same, with the engine's environment given (e.g. POS_DATABASE_URL: the engine's PostgreSQL database). */
export async function adminWith(env: Record<string, string>, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(root, 'engine/src/bin/admin.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout);
}
