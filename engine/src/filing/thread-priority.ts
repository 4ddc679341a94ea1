import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import path from 'node:path';

/**
 * How much nicer than the engine the filing thread runs: filing is background work, and on a
 * till's two cores the scheduler gives the issuing thread (and the till's own programs) the CPU
 * first. Ten steps down, the filing thread weighs about a tenth of the issuing thread while both
 * want the CPU, and runs at full speed whenever nothing else does. Measured on the build machine
 * (docs/benchmarks.md, seventh round), `crear` at 250 req/s while 30 k records drain: p50 35–37 →
 * 13–20 ms when quiet; under load, 175–183 → 235–249 answered req/s and p50 1.4–1.7 s → 18–261 ms.
 */
export const FILING_THREAD_NICENESS = 10;

/** The highest nice value (the lowest priority) Linux has. */
const LOWEST = 19;

/**
 * Lowers the calling thread's CPU priority by `steps` nice values (never past the lowest), and
 * returns its thread id and new nice value; undefined where it cannot be done for one thread.
 * Lowering needs no privilege. Linux keeps a nice value per thread and setpriority() given a
 * thread id changes that thread alone; elsewhere Node has no handle on a thread (on Windows
 * setPriority would change the whole process), so nothing changes there.
 */
export function lowerThisThreadsPriority(steps: number): { tid: number; nice: number } | undefined {
  let tid: number;
  try {
    // "<pid>/task/<tid>": Linux's own name for the calling thread.
    tid = Number(path.basename(readlinkSync('/proc/thread-self')));
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(tid) || tid <= 0) return undefined;
  const nice = Math.min(LOWEST, getPriority(tid) + steps);
  setPriority(tid, nice);
  return { tid, nice };
}
