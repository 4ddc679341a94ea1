// Run as its own process: a pool that answered a job and stays open must not keep the process alive.
import { WorkerPool } from '../../../engine/src/platform/worker-pool';

const pool = new WorkerPool<{ double: (n: number) => number }>({ entry: new URL('./tasks-fixture.ts', import.meta.url), size: 1, name: 'idle-exit' });
process.stdout.write(`answer ${await pool.run('double', 21)}\n`);
