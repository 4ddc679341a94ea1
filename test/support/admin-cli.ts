import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/**
 * The admin command line (`npm run admin -- …`) as an operator runs it: another process on the
 * data dir `dataDir`. Resolves with its JSON answer; rejects (with the exit `code`) when it fails.
 */
export async function admin(dataDir: string, ...args: string[]): Promise<unknown> {
  return adminWith({ POS_DATA_DIR: dataDir }, ...args);
}

/** The same, with the engine's environment given (e.g. POS_DATABASE_URL: the engine's PostgreSQL database). */
export async function adminWith(env: Record<string, string>, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(root, 'engine/src/bin/admin.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout);
}
