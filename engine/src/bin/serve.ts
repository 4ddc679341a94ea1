/**
 * Headless start (`npm start`): the emulators, the engine, the demo account on an empty data dir
 * and the built till UI (engine/src/bin/start.ts, shared with the desktop's utility process);
 * prints the URLs and demo keys. Serves until SIGINT/SIGTERM, then shuts down cleanly.
 */
import path from 'node:path';
import { startEngine } from './start';
import { StopRequests } from './stop-requests';

// Caught before the engine starts: a service manager may signal the moment READY is printed (or
// before), and Node's default SIGINT/SIGTERM would kill the process without a clean stop. A
// second signal while it still starts (Ctrl-C again) exits at once: whatever it acknowledged is
// already committed.
const stopRequests = new StopRequests();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopRequests.reason !== undefined && !stopRequests.handled) process.exit(130);
    stopRequests.request(signal);
  });
}

async function main(): Promise<void> {
  const started = await startEngine({
    env: process.env,
    // The built till UI (`vite build`, run by `prestart`), served beside the panel API.
    defaultUiDir: path.resolve(import.meta.dirname, '../../../out/renderer'),
    consoleLog: true,
  });
  // Asked to stop while starting: it stops without announcing READY, which it would not honour.
  if (stopRequests.reason === undefined) process.stdout.write(started.banner);
  stopRequests.handleWith((signal) => {
    void (async () => {
      started.logger.info('shutting down', { signal });
      await started.stop();
      process.exit(0);
    })();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`engine failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
