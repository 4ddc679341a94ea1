/**
 * The engine as users run it, in a child process on free ports and a fresh data dir: `npm start`
 * (the package.json script itself, run by npm) and the desktop app's built engine bundle
 * (out/main/engine-utility.js under plain Node, a stand-in for Electron's parent port). Both
 * resolve once demo-keys.json is written and the engine answers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

/** The child as an artefact at once: its output collected, its exit awaited, a stop that kills its group. */
function observe(child: ChildProcess, dataDir: string, onStdoutLine: (line: string) => void = () => {}): RunningArtefact {
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    output.push(line);
    onStdoutLine(line);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  return {
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
}

/** Resolves once the artefact prints its ready line on stdout; rejects if it exits first. */
function watch(child: ChildProcess, dataDir: string, ready: (line: string) => boolean): Promise<RunningArtefact> {
  return new Promise<RunningArtefact>((resolve, reject) => {
    const artefact = observe(child, dataDir, (line) => {
      if (ready(line)) resolve(artefact);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before it was ready:\n${artefact.output.join('\n')}`)));
  });
}

/**
 * `npm start` as a user types it, without its `prestart` UI build (npm's --ignore-scripts skips
 * pre/post scripts only): the `start` script of package.json runs as written, in its own process
 * group so a test can signal npm alone or stop the whole group.
 */
export function startNpmStart(env: Record<string, string> = {}): Promise<RunningArtefact> {
  const { child, dataDir } = spawnNpmStart(env);
  return watch(child, dataDir, (line) => line === 'READY');
}

/** `npm start` spawned as startNpmStart spawns it, returned at once: not waiting for READY. */
export function launchNpmStart(env: Record<string, string> = {}): RunningArtefact {
  const { child, dataDir } = spawnNpmStart(env);
  return observe(child, dataDir);
}

function spawnNpmStart(env: Record<string, string>): { child: ChildProcess; dataDir: string } {
  // A data dir of the caller's (POS_DATA_DIR) for a start after another on the same data.
  const dataDir = env.POS_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'npm-start-'));
  const child = spawn('npm', ['start', '--ignore-scripts', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, POS_DATA_DIR: dataDir, ...freePorts, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return { child, dataDir };
}

/** Polls until `file` exists (a start's first trace on disk); the test's own time-out bounds it. */
export async function untilExists(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 5));
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
