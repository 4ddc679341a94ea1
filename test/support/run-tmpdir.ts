/**
 * vitest globalSetup: every temporary folder of a run — the tests' data dirs, the emulators'
 * ledgers, Chromium's profile, and those of the engine processes the tests spawn or SIGKILL —
 * goes under one folder of the run (TMPDIR, which os.tmpdir() reads and child processes inherit),
 * removed when the run ends. A killed engine cannot clean up after itself; this does.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const MARK = 'VITEST_RUN_TMPDIR';

export default function setup(): () => void {
  // The root config and each project (test.projects) run the global setups: the first one wins.
  if (process.env[MARK] !== undefined) return () => {};
  const systemTmp = tmpdir();
  const runDir = mkdtempSync(path.join(systemTmp, 'vitest-run-'));
  // tsx keeps its compile cache in <tmpdir>/tsx-<uid>: the spawned engines keep using the
  // system one (warm from earlier runs) through a link, which the removal below only unlinks.
  const tsxCache = `tsx-${process.getuid?.() ?? 0}`;
  mkdirSync(path.join(systemTmp, tsxCache), { recursive: true });
  symlinkSync(path.join(systemTmp, tsxCache), path.join(runDir, tsxCache), 'dir');
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = runDir;
  process.env[MARK] = runDir;
  return () => {
    delete process.env[MARK];
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (existsSync(runDir)) rmSync(runDir, { recursive: true, force: true });
  };
}
