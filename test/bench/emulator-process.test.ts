// The benches' AEAT emulator (test/bench/drain.ts) stands for another machine: every thread of its
// process runs as nice as the engine's filing thread, so the bench's own authority never outweighs
// the filing it measures.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILING_THREAD_NICENESS } from '../../engine/src/filing/thread-priority';
import { emulatorCommand, startEmulatorProcess } from './drain';

/** Each thread's nice value (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('the benches’ emulator process', () => {
  it('is started under `nice` by the filing thread’s steps, and plainly where there is no `nice`', () => {
    expect(emulatorCommand('/x/serve.ts', 'linux')).toEqual({
      command: 'nice',
      args: ['-n', String(FILING_THREAD_NICENESS), process.execPath, '--import', 'tsx', '/x/serve.ts'],
    });
    expect(emulatorCommand('/x/serve.ts', 'win32')).toEqual({ command: process.execPath, args: ['--import', 'tsx', '/x/serve.ts'] });
  });

  it.runIf(process.platform === 'linux')('runs every thread of it that many steps nicer, and answers', async () => {
    const own = threadNiceValues(process.pid)[0]!;
    const emulators = await startEmulatorProcess(mkdtempSync(path.join(tmpdir(), 'bench-emu-nice-')));
    try {
      expect(await emulators.countRecords()).toBe(0);
      const pid = emulators.pid!;
      const values = threadNiceValues(pid);
      // Node's own threads and libuv's pool at least; any it starts later inherit the value.
      expect(values.length).toBeGreaterThan(4);
      expect(new Set(values)).toEqual(new Set([Math.min(19, own + FILING_THREAD_NICENESS)]));
      expect(emulators.cpuMs()).toBeGreaterThan(0);
    } finally {
      await emulators.close();
    }
  });
});
