/**
 * The engine's entry in the desktop app: src-main forks this file in an Electron utilityProcess
 * (engine-host.ts), so better-sqlite3 never runs on Electron's main thread. It also runs under a
 * plain Node `fork()` (tests). It imports the engine's public entry only.
 *
 * Environment: the headless start's POS_* variables, plus POS_PANEL_TOKEN (kept by the host across
 * restarts, so the window's token stays valid), POS_ASSETS_DIR (inside the packaged app) and
 * POS_UI_DIR (the built till UI). Messages to the host: {type:'ready', urls} | {type:'error', message};
 * from the host: {type:'stop'} → stop cleanly and exit 0.
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { configFromEnv, createEngine, seedDemoAccount } from '../index';

interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;

function send(message: unknown): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
}

function onMessage(listener: (message: unknown) => void): void {
  if (parentPort) parentPort.on('message', (event) => listener(event.data));
  else process.on('message', listener);
}

async function main(): Promise<void> {
  const env = process.env;
  const config = configFromEnv(env);
  const engine = await createEngine({
    ...config,
    ...(env.POS_PANEL_TOKEN ? { panelToken: env.POS_PANEL_TOKEN } : {}),
    ...(env.POS_ASSETS_DIR ? { assetsDir: env.POS_ASSETS_DIR } : {}),
    ...(env.POS_UI_DIR ? { uiDir: env.POS_UI_DIR } : {}),
    ...(env.POS_EMULATOR_URL ? { emulatorUrl: env.POS_EMULATOR_URL } : {}),
  });
  // First start of an empty data dir: the demo account, its keys in the data dir's keys file
  // (what the panel's /arranque and the UI relay read), as the headless start does.
  const seeded = seedDemoAccount(engine.context);
  const urls = await engine.start();
  if (seeded) {
    const file = path.join(engine.context.config.dataDir, 'demo-keys.json');
    const content = { ...seeded, billingUrl: urls.billing, manageUrl: urls.manage, panelUrl: urls.panel };
    await writeFile(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await engine.stop();
    process.exit(code);
  };
  onMessage((message) => {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'stop') void stop(0);
  });
  process.on('SIGTERM', () => void stop(0));
  send({ type: 'ready', urls, dataDir: engine.context.config.dataDir });
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.stderr.write(`engine failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
