import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The till's end-to-end tests (test/e2e, Chromium against `npm start`) are part of `npm test`;
// TILL_E2E=0 leaves them out (e.g. on a machine without /usr/bin/chromium).
const skipE2e = process.env.TILL_E2E === '0';
const exclude = [...(skipE2e ? ['test/e2e/**'] : []), 'node_modules/**'];

// Files that SIGKILL an engine child mid-burst (their kill must land inside a window of a few
// hundred ms) or measure the till against a baseline of their own run: they run alone, one after
// another, once every other file has finished, so no other file's load moves their windows.
const ALONE = [
  'test/e2e/**/*.test.ts',
  'test/chaos/**/*.test.ts',
  'test/engine/submission/crash*.test.ts',
  'test/engine/webhooks/crash*.test.ts',
  'test/engine/devices-issuing/acceptance.test.ts',
];

// Files that need a module registry of their own (vitest's isolate): they mock modules (electron,
// node:fs), spy on or stub globals, set process.env, or drive the till UI's module-level stores.
// Every other file shares one registry per worker (isolate: false), so the engine's module graph
// is loaded once per worker instead of once per file (≈ 5–10 s of import per file under load).
const OWN_MODULES = [
  'test/main/**/*.test.ts',
  'test/renderer/**/*.test.ts',
  'test/emulators/aeat/wait-env.test.ts',
  'test/engine/filing/durable-before-send.test.ts',
  'test/engine/foundation/durable-commit.test.ts',
  'test/engine/submission/wake.test.ts',
];
// vitest's default is cores − 1, one file at a time on the 2-core CI machine: at least two.
const maxWorkers = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One temporary folder per run, removed at its end (test/support/run-tmpdir.ts), and in it one
    // database migrated once that new data dirs start from (test/support/migrated-template.ts).
    globalSetup: ['test/support/run-tmpdir.ts', 'test/support/migrated-template.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...exclude, ...ALONE, ...OWN_MODULES],
          isolate: false,
          maxWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'own-modules',
          include: OWN_MODULES,
          exclude: [...exclude, ...ALONE],
          maxWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          exclude,
          // fileParallelism off and the default groupOrder: vitest runs these after every other group.
          fileParallelism: false,
        },
      },
    ],
  },
});
