// Run as its own process by test/engine/foundation/libpq-lazy.test.ts: whether libpq is mapped into
// this process before and after an engine on SQLite starts (`sqlite <dataDir>`), or before and
// after a first PostgreSQL connection (`postgres <url>`). Prints {"before":…,"after":…}.
import { readFileSync } from 'node:fs';

const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes('libpq.so');
const [mode, target] = process.argv.slice(2);

if (mode === 'sqlite') {
  const { createEngine } = await import('../../engine/src/index');
  const { testEngineConfig } = await import('./engine');
  const before = mapped();
  const engine = await createEngine(testEngineConfig(target ?? ''));
  await engine.start();
  const after = mapped();
  await engine.stop();
  console.log(JSON.stringify({ before, after }));
} else {
  const { PostgresDatabase } = await import('../../engine/src/db/postgres');
  const before = mapped();
  const db = new PostgresDatabase(target ?? '');
  db.statement('SELECT 1').all();
  const after = mapped();
  await db.close();
  console.log(JSON.stringify({ before, after }));
}
process.exit(0);
