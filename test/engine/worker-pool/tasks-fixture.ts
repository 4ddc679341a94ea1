// A worker entry for the pool's own tests: answers, throws, blocks until released, or dies.
import { threadId } from 'node:worker_threads';
import { serveTasks } from '../../../engine/src/platform/worker-tasks';

serveTasks({
  double: (n: number) => n * 2,
  fail: (message: string) => {
    throw new Error(message);
  },
  /** Ends the thread (not the process) with `code`, as a native crash would end it. */
  crash: (code: number) => process.exit(code),
  /**
   * Counts itself in, then blocks until `expected` jobs have counted in (or 20 s passed, a safety
   * net only): true when they met, i.e. ran at the same time on different threads.
   */
  rendezvous: (input: { counter: SharedArrayBuffer; expected: number }) => {
    const cells = new Int32Array(input.counter);
    Atomics.add(cells, 0, 1);
    Atomics.notify(cells, 0);
    const deadline = Date.now() + 20_000;
    for (let seen = Atomics.load(cells, 0); seen < input.expected && Date.now() < deadline; seen = Atomics.load(cells, 0)) {
      Atomics.wait(cells, 0, seen, 100);
    }
    return { met: Atomics.load(cells, 0) >= input.expected, threadId };
  },
});
