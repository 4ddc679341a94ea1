// The filing thread yields the CPU to issuing (engine/src/filing/thread-priority.ts): on Linux it
// lowers its own nice value, and only its own; the thread that answers the tills keeps its own.
import { mkdtempSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../engine/src/index';
import { FILING_THREAD_NICENESS } from '../../../engine/src/filing/thread-priority';
import type { Logger } from '../../../engine/src/platform/logger';
import { startModuleWorker } from '../../../engine/src/platform/worker-pool';
import { NO_LIMITS } from '../../support/engine';

/** A thread's nice value, from /proc/self/task/<tid>/stat (field 19). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe.runIf(process.platform === 'linux')('A thread lowering its CPU priority', () => {
  it('changes its own nice value and no other thread’s', async () => {
    const before = niceOf(process.pid);
    const worker = startModuleWorker(new URL('./nice-thread-fixture.ts', import.meta.url), { steps: 7 });
    const [{ tid, nice }] = (await once(worker, 'message')) as [{ tid: number; nice: number }];
    expect(tid).not.toBe(process.pid);
    // 19 is the lowest priority there is (the tests may already run niced).
    expect(nice).toBe(Math.min(19, before + 7));
    expect(niceOf(tid)).toBe(nice);
    expect(niceOf(process.pid)).toBe(before);
    worker.postMessage('exit');
    await once(worker, 'exit');
  });

  it('the engine’s filing thread runs FILING_THREAD_NICENESS steps nicer, the thread answering requests as before', async () => {
    const lines: { message: string; data?: Record<string, unknown> }[] = [];
    const logger: Logger = { info: (message, data) => void lines.push({ message, data }), warn: () => {}, error: () => {} };
    const before = niceOf(process.pid);
    const engine = await createEngine({ dataDir: mkdtempSync(path.join(tmpdir(), 'thread-priority-')), logger, limits: NO_LIMITS, billingPort: 0, managePort: 0, panelPort: 0 });
    try {
      expect(engine.context.config.filingThread).toBe(true);
      await engine.start();
      const deadline = Date.now() + 30_000;
      let line: (typeof lines)[number] | undefined;
      while (!(line = lines.find((l) => l.message === 'filing thread runs at a lower CPU priority')) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const nice = Math.min(19, before + FILING_THREAD_NICENESS);
      expect(line?.data).toMatchObject({ nice });
      const tid = line!.data!.tid as number;
      expect(niceOf(tid)).toBe(nice);
      expect(niceOf(process.pid)).toBe(before);
    } finally {
      await engine.stop();
    }
  });
});
