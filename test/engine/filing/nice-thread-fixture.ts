// A thread that lowers its own CPU priority (engine/src/filing/thread-priority.ts), says which
// thread it is, and lives until told to exit.
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThreadsPriority } from '../../../engine/src/filing/thread-priority';

const { steps } = (workerData as { data: { steps: number } }).data;
const port = parentPort!;
port.postMessage(lowerThisThreadsPriority(steps));
port.on('message', () => process.exit(0));
