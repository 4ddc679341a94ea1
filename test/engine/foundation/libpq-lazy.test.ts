// libpq is loaded by the first PostgreSQL connection only: an engine on SQLite (every till) never
// maps it. Loaded, it slowed every HTTP request of the process by 4–6 % (a bare echo, measured).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PG_SERVER_URL } from '../../support/postgres-cluster';

const root = path.resolve(import.meta.dirname, '../../..');

/** test/support/libpq-probe.ts in a fresh Node process (the test runner's own may have loaded libpq). */
function probe(mode: 'sqlite' | 'postgres', target: string): { before: boolean; after: boolean } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/libpq-probe.ts'), mode, target], {
    cwd: root,
    env: { ...process.env, TEST_DATABASE: 'sqlite' },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { before: boolean; after: boolean };
}

it.runIf(process.platform === 'linux')('an engine on SQLite never loads libpq; one on PostgreSQL loads it at its connection', () => {
  expect(probe('sqlite', mkdtempSync(path.join(tmpdir(), 'libpq-lazy-')))).toEqual({ before: false, after: false });
  const server = process.env[PG_SERVER_URL];
  if (!server) throw new Error('no PostgreSQL cluster for this run (test/support/postgres-cluster.ts)');
  expect(probe('postgres', server)).toEqual({ before: false, after: true });
});
