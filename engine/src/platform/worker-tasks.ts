import { parentPort } from 'node:worker_threads';
import type { TaskHandlers } from './worker-pool';

interface Job {
  id: number;
  task: string;
  input: unknown;
  urgent: boolean;
}

/**
 * The worker side of WorkerPool: answers each job with its handler's result (synchronous, pure
 * functions) or its error's message, and says it is ready once its module graph has loaded.
 * Jobs are queued here as they arrive and run one per event-loop turn, urgent ones first, so an
 * urgent job that arrives behind others still goes next.
 */
export function serveTasks(handlers: TaskHandlers): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread');
  const urgent: Job[] = [];
  const normal: Job[] = [];
  let scheduled = false;
  const runNext = (): void => {
    scheduled = false;
    const job = urgent.shift() ?? normal.shift();
    if (!job) return;
    const handler = handlers[job.task] as ((input: unknown) => unknown) | undefined;
    try {
      if (!handler) throw new Error(`unknown task ${job.task}`);
      port.postMessage({ id: job.id, ok: true, value: handler(job.input) });
    } catch (error) {
      port.postMessage({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) });
    }
    if (urgent.length + normal.length > 0) schedule();
  };
  // setImmediate: messages that arrived meanwhile are queued before the next job is picked.
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(runNext);
  };
  port.on('message', (job: Job) => {
    (job.urgent ? urgent : normal).push(job);
    schedule();
  });
  port.postMessage({ ready: true });
}
