// Issue 2, acceptance: `.ci/run` installs what CI needs and runs the README's test command; the
// README has the two commands of DEVELOPERS.md (`npm ci && npm start`, `npm ci && npm test`).
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const ciRun = readFileSync(path.join(root, '.ci/run'), 'utf8');
/** The script's commands: no comments, no blank lines. */
const ciLines = ciRun
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

/** Lines of the README's fenced code blocks, trailing comments removed. */
function readmeCommands(): string[] {
  const blocks = [...readme.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return blocks.flatMap((b) => b.split('\n')).map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '');
}

describe('README: the two commands of DEVELOPERS.md', () => {
  it('has `npm ci && npm start` and `npm ci && npm test` as commands of a code block', () => {
    expect(readmeCommands()).toEqual(expect.arrayContaining(['npm ci && npm start', 'npm ci && npm test']));
  });
});

describe('.ci/run', () => {
  it('is an executable bash script that stops at the first failure', () => {
    accessSync(path.join(root, '.ci/run'), constants.X_OK);
    expect(ciRun.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(ciLines).toContain('set -euo pipefail');
  });

  it('runs npm ci, then the README’s test command', () => {
    const testCommand = readmeCommands().find((c) => c.startsWith('npm ci && ') && c.endsWith(' test'))?.slice('npm ci && '.length);
    expect(testCommand).toBe('npm test');
    const ci = ciLines.findIndex((l) => /^npm ci(\s|$)/.test(l));
    const test = ciLines.indexOf(testCommand ?? '');
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(test).toBeGreaterThan(ci);
  });

  it('installs, through apt, the programs the suite runs (openssl, xmlsec1, Chromium for the end-to-end test)', () => {
    expect(ciRun).toMatch(/apt-get install -y[^\n]*"\$\{need\[@\]\}"/);
    expect(ciRun).toMatch(/command -v openssl [^\n]*need\+=\(openssl\)/);
    expect(ciRun).toMatch(/command -v xmlsec1 [^\n]*need\+=\(xmlsec1\)/);
    expect(ciRun).toMatch(/\[ -x \/usr\/bin\/chromium \] \|\| need\+=\(chromium\)/);
  });
});
