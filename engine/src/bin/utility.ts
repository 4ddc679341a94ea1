/**
 * The engine's entry in the desktop app: src-main forks this file in an Electron utilityProcess
 * (engine-host.ts), so better-sqlite3 never runs on Electron's main thread. It also runs under a
 * plain Node `fork()` (tests). It starts exactly what the headless start does (start.ts: the
 * emulators unless POS_EMULATORS=off, the engine, the demo data, demo-keys.json) and reports over
 * the parent port instead of waiting for signals only.
 *
 * Environment: the headless start's POS_* variables, plus POS_PANEL_TOKEN (kept by the host across
 * restarts, so the window's token stays valid), POS_ASSETS_DIR (inside the packaged app) and
 * POS_UI_DIR (the built till UI). Messages to the host:
 * {type:'ready', urls, dataDir, panelUrl, keysPath, emulatorUrl?, fingerprint256?} | {type:'error', message};
 * from the host: {type:'stop'} → stop cleanly and exit 0.
 */
import { startEngine } from './start';
import { StopRequests } from './stop-requests';

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

// The host's stop is listened for before the engine starts: a desktop quit during the start sends
// it then, and it is honoured once the start is done instead of waiting for the host's kill.
const stopRequests = new StopRequests();
onMessage((message) => {
  if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'stop') stopRequests.request('host');
});

async function main(): Promise<void> {
  const started = await startEngine({ env: process.env });
  stopRequests.handleWith((reason) => {
    void (async () => {
      started.logger.info('shutting down', { reason });
      await started.stop();
      process.exit(0);
    })();
  });
  if (stopRequests.reason !== undefined) return;
  // Before `ready`, as serve.ts does before READY; until here SIGTERM ends the start at once.
  process.on('SIGTERM', () => stopRequests.request('SIGTERM'));
  // stdio is inherited from Electron main: the same banner as `npm start`, for support staff.
  process.stdout.write(started.banner);
  send({
    type: 'ready',
    urls: started.urls,
    dataDir: started.engine.context.config.dataDir,
    panelUrl: started.panelUrl,
    keysPath: started.keysPath,
    ...(started.keys.emulatorUrl ? { emulatorUrl: started.keys.emulatorUrl } : {}),
    // HTTPS beyond loopback: the window trusts this certificate by its fingerprint (src-main/pinned-tls.ts).
    ...(started.keys.fingerprint256 ? { fingerprint256: started.keys.fingerprint256 } : {}),
  });
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.stderr.write(`engine failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
