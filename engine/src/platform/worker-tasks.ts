import { parentPort } from 'node:worker_threads';
import type { TaskHandlers } from './worker-pool';

/**
 * The worker side of WorkerPool: answers each job with its handler's result (synchronous, pure
 * functions) or its error's message, and says it is ready once its module graph has loaded.
 */
export function serveTasks(handlers: TaskHandlers): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread');
  port.on('message', (job: { id: number; task: string; input: unknown }) => {
    const handler = handlers[job.task] as ((input: unknown) => unknown) | undefined;
    try {
      if (!handler) throw new Error(`unknown task ${job.task}`);
      port.postMessage({ id: job.id, ok: true, value: handler(job.input) });
    } catch (error) {
      port.postMessage({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  });
  port.postMessage({ ready: true });
}
