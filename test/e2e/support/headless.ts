/**
 * The real headless start (`npm start`'s script, engine/src/bin/serve.ts) on free ports and a fresh
 * data dir, with the AEAT emulator's TiempoEsperaEnvio at 1 s so filing is quick. Resolves when it
 * prints READY and demo-keys.json is written.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { DemoKeysFile } from '../../../engine/src/bin/start';
import { FREE_PORTS_ENV } from '../../support/free-ports';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const UI_DIR = path.join(ROOT, 'out/renderer');

/** demo-keys.json as `npm start` writes it (with its emulators running). */
export type DemoKeys = DemoKeysFile & { emulatorUrl: string };

export interface Headless {
  keys: DemoKeys;
  dataDir: string;
  output: string[];
  stop(): Promise<number | null>;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const stat = statSync(full);
    newest = Math.max(newest, stat.isDirectory() ? newestMtime(full) : stat.mtimeMs);
  }
  return newest;
}

/** Builds the UI (as `prestart` does) when out/renderer is missing or older than its sources. */
export function ensureUiBuilt(): void {
  let built = 0;
  try {
    built = statSync(path.join(UI_DIR, 'index.html')).mtimeMs;
  } catch {
    built = 0;
  }
  const sources = Math.max(newestMtime(path.join(ROOT, 'src-renderer')), newestMtime(path.join(ROOT, 'src-shared')), statSync(path.join(ROOT, 'vite.config.ts')).mtimeMs);
  if (built > sources) return;
  const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
  const res = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'error'], { cwd: ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`vite build failed: ${res.stderr}${res.stdout}`);
}

export async function startHeadless(env: Record<string, string> = {}): Promise<Headless> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'till-e2e-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'engine/src/bin/serve.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      POS_DATA_DIR: dataDir,
      ...FREE_PORTS_ENV,
      POS_EMULATOR_WAIT_S: '1',
      POS_UI_DIR: UI_DIR,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      if (line === 'READY') resolve();
    });
    createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
    child.once('exit', (code) => reject(new Error(`headless start exited ${code}:\n${output.join('\n')}`)));
  });
  const keys = JSON.parse(readFileSync(path.join(dataDir, 'demo-keys.json'), 'utf8')) as DemoKeys;
  return {
    keys,
    dataDir,
    output,
    /** Stops the start (its exit code) and removes its data dir. */
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
