/**
 * The engine as users run it, in a child process on free ports and a fresh data dir: `npm start`
 * (the package.json script itself, run by npm) and the desktop app's built engine bundle
 * (out/main/engine-utility.js under plain Node, a stand-in for Electron's parent port). Both
 * resolve once demo-keys.json is written and the engine answers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { FREE_PORTS_ENV } from './free-ports';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface RunningArtefact {
  child: ChildProcess;
  dataDir: string;
  output: string[];
  exited: Promise<number | null>;
  /** Stops it (the whole process group, whatever the artefact does with signals) and removes its data dir. */
  stop(): Promise<void>;
}

const freePorts = { ...FREE_PORTS_ENV, POS_EMULATOR_WAIT_S: '1' };

function watch(child: ChildProcess, dataDir: string, ready: (line: string) => boolean): Promise<RunningArtefact> {
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise<RunningArtefact>((resolve, reject) => {
    const artefact: RunningArtefact = {
      child,
      dataDir,
      output,
      exited,
      async stop() {
        if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
          await exited;
        }
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
    const onLine = (line: string) => {
      output.push(line);
      if (ready(line)) resolve(artefact);
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
    child.once('exit', (code) => reject(new Error(`exited ${code} before it was ready:\n${output.join('\n')}`)));
  });
}

/**
 * `npm start` as a user types it, without its `prestart` UI build (npm's --ignore-scripts skips
 * pre/post scripts only): the `start` script of package.json runs as written, in its own process
 * group so a test can signal npm alone or stop the whole group.
 */
export function startNpmStart(env: Record<string, string> = {}): Promise<RunningArtefact> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'npm-start-'));
  const child = spawn('npm', ['start', '--ignore-scripts', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, POS_DATA_DIR: dataDir, ...freePorts, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return watch(child, dataDir, (line) => line === 'READY');
}

/** vite build --mode main: the bundle the desktop app ships (out/main), from the sources as they are. */
export function buildDesktopMain(): void {
  const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
  const res = spawnSync(process.execPath, [vite, 'build', '--mode', 'main', '--logLevel', 'error'], { cwd: ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`vite build --mode main failed: ${res.stderr}${res.stdout}`);
}

/**
 * What Electron's utilityProcess gives the engine (`process.parentPort`: on('message') with
 * `{data}`, postMessage), played over Node's fork() IPC channel; loaded before the bundle.
 */
const PARENT_PORT_STANDIN =
  "process.parentPort={on(e,l){if(e==='message')process.on('message',(data)=>l({data}))},postMessage(m){process.send(m)}};";

/** The desktop app's engine bundle under plain Node, as engine-host.ts forks it in Electron. */
export function startDesktopBundle(env: Record<string, string> = {}): Promise<RunningArtefact & { messages: unknown[] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'desktop-bundle-'));
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(PARENT_PORT_STANDIN)}`, path.join(ROOT, 'out/main/engine-utility.js')], {
    cwd: ROOT,
    env: { ...process.env, POS_DATA_DIR: dataDir, ...freePorts, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  const messages: unknown[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (message) => {
      messages.push(message);
      const type = (message as { type?: string }).type;
      if (type === 'ready') resolve();
      if (type === 'error') reject(new Error(`the bundle reported an error: ${JSON.stringify(message)}`));
    });
  });
  return watch(child, dataDir, (line) => line === 'READY').then(async (artefact) => {
    await ready;
    return { ...artefact, messages };
  });
}
