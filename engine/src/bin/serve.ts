/**
 * Headless start (`npm start`): the emulators, the engine, the demo account on an empty data dir
 * and the built till UI (engine/src/bin/start.ts, shared with the desktop's utility process);
 * prints the URLs and demo keys. Serves until SIGINT/SIGTERM, then shuts down cleanly.
 */
import path from 'node:path';
import { startEngine } from './start';

async function main(): Promise<void> {
  const started = await startEngine({
    env: process.env,
    // The built till UI (`vite build`, run by `prestart`), served beside the panel API.
    defaultUiDir: path.resolve(import.meta.dirname, '../../../out/renderer'),
    consoleLog: true,
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    started.logger.info('shutting down', { signal });
    await started.stop();
    process.exit(0);
  };
  // Before READY is printed: a service manager may signal the moment it reads it. Until here a
  // signal keeps Node's default and ends the start at once (Ctrl-C works even inside a blocking
  // call such as a PostgreSQL connect); nothing acknowledged is lost, the engine being crash-safe.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.stdout.write(started.banner);
}

main().catch((error: unknown) => {
  process.stderr.write(`engine failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
