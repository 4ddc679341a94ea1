import { parentPort } from 'node:worker_threads';
import type { TaskHandlers } from './worker-pool';

const ANSWERS_PER_MESSAGE = 16;

interface Job {
  id: number;
  task: string;
  input: unknown;
  urgent: boolean;
}

/**
 * The worker side of WorkerPool: answers each job with its handler's result (synchronous, pure
 * functions) or its error's message, and says it is ready once its module graph has loaded.
 * Jobs arrive in batches and are queued here; they run one per event-loop turn, urgent ones
 * first, so an urgent job that arrives behind others still goes next. Answers leave together
 * (one message, one wake-up of the main thread) when the queue runs dry, after an urgent job (a
 * chain waits for it) or every few jobs.
 */
export function serveTasks(handlers: TaskHandlers): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread');
  const urgent: Job[] = [];
  const normal: Job[] = [];
  let scheduled = false;
  let answers: unknown[] = [];
  const runNext = (): void => {
    scheduled = false;
    const job = urgent.shift() ?? normal.shift();
    if (!job) return;
    const handler = handlers[job.task] as ((input: unknown) => unknown) | undefined;
    try {
      if (!handler) throw new Error(`unknown task ${job.task}`);
      answers.push({ id: job.id, ok: true, value: handler(job.input) });
    } catch (error) {
      answers.push({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) });
    }
    const more = urgent.length + normal.length > 0;
    if (!more || job.urgent || answers.length >= ANSWERS_PER_MESSAGE) {
      port.postMessage(answers);
      answers = [];
    }
    if (more) schedule();
  };
  // setImmediate: messages that arrived meanwhile are queued before the next job is picked.
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(runNext);
  };
  port.on('message', (jobs: Job[]) => {
    for (const job of jobs) (job.urgent ? urgent : normal).push(job);
    schedule();
  });
  port.postMessage({ ready: true });
}
