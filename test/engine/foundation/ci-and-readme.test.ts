// Issues 2 and 12, acceptance: `.ci/run` installs what CI needs, clones the commit into an empty
// folder and runs, from there, `npm ci`, `npm start` (the README's curl) and the README's test
// command; the README has the two commands (`npm ci && npm start`, `npm ci && npm test`) and stands
// alone; nothing in the repository reaches for files beside it.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
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

  it('clones the commit into an empty temporary folder, then runs npm ci, the start smoke test and the README’s test command from there', () => {
    const testCommand = readmeCommands().find((c) => c.startsWith('npm ci && ') && c.endsWith(' test'))?.slice('npm ci && '.length);
    expect(testCommand).toBe('npm test');
    const tmp = ciLines.findIndex((l) => /^work="\$\(mktemp -d\)"$/.test(l));
    const clone = ciLines.findIndex((l) => l === 'git clone -q "$src" "$work/clone"');
    const cd = ciLines.indexOf('cd "$work/clone"');
    const ci = ciLines.findIndex((l) => /^npm ci(\s|$)/.test(l));
    const smoke = ciLines.indexOf('bash scripts/smoke-start.sh');
    const test = ciLines.indexOf(testCommand ?? '');
    expect(tmp).toBeGreaterThanOrEqual(0);
    expect([clone, cd, ci, smoke, test].every((i, n, all) => i > (n === 0 ? tmp : all[n - 1]!))).toBe(true);
  });

  it('reads nothing outside the repository: the conformance corpus comes only from the environment', () => {
    expect(ciRun).not.toMatch(/shared/);
    expect(ciRun).not.toMatch(/POS_CONFORMANCE_DIR=/);
  });

  it('installs, through apt, the programs the suite runs (openssl, xmlsec1, Chromium for the end-to-end test)', () => {
    expect(ciRun).toMatch(/apt-get install -y[^\n]*"\$\{need\[@\]\}"/);
    expect(ciRun).toMatch(/command -v openssl [^\n]*need\+=\(openssl\)/);
    expect(ciRun).toMatch(/command -v xmlsec1 [^\n]*need\+=\(xmlsec1\)/);
    expect(ciRun).toMatch(/\[ -x \/usr\/bin\/chromium \] \|\| need\+=\(chromium\)/);
  });
});

describe('smoke start: the README’s "Try it" block is what CI runs against `npm start`', () => {
  const smoke = readFileSync(path.join(root, 'scripts/smoke-start.sh'), 'utf8');
  it('runs npm start until READY, the README’s Try-it commands, and stops it with SIGINT', () => {
    accessSync(path.join(root, 'scripts/smoke-start.sh'), constants.X_OK);
    expect(smoke).toContain('setsid npm start');
    expect(smoke).toContain("awk '/^Try it:/");
    expect(smoke).toContain('kill -INT -- "-$pid"');
  });
  it('the README’s Try-it block reads the demo keys and calls crear', () => {
    const block = /Try it:\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(block).toContain('data/demo-keys.json');
    expect(block).toContain('/v1/verifactu/crear');
  });
});

describe('a plain clone needs nothing beside it', () => {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter((f) => f !== '' && existsSync(path.join(root, f)));
  // Spelled in two parts so that this file is not a hit of its own.
  const beside = ['..', 'shared'].join('/');
  it(`no tracked file names ${beside}, but for the conformance suite’s default corpus path`, () => {
    const hits = tracked.filter((f) => f !== 'test/conformance/corpus.ts' && !f.startsWith('assets/reference/') && readFileSync(path.join(root, f), 'utf8').includes(beside));
    expect(hits).toEqual([]);
  });
  it('the README links nothing outside the repository', () => {
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.filter((l) => l.startsWith('..') || l.startsWith('/'))).toEqual([]);
    for (const l of links.filter((x) => !/^[a-z]+:/.test(x))) expect(existsSync(path.join(root, l.split('#')[0]!)), l).toBe(true);
  });
  it('ships the official schemas the emulators read, unmodified (git keeps their bytes: -text)', () => {
    expect(readFileSync(path.join(root, '.gitattributes'), 'utf8')).toMatch(/^assets\/reference\/\*\* -text$/m);
    for (const f of ['verifactu/xsd/SuministroLR.xsd', 'verifactu/xsd/SuministroInformacion.xsd', 'ticketbai/xsd/v1-2-2/ticketbaiv1-2-2.xsd', 'ticketbai/xsd/lroe-bizkaia/batuz_TiposBasicos.xsd', 'ticketbai/xsd/xmldsig-core-schema.xsd', 'catalog.xml', 'README.md']) {
      expect(existsSync(path.join(root, 'assets/reference', f)), f).toBe(true);
    }
    // The 1.2.2 package is published with a BOM and CRLF line ends; a checkout must keep both.
    const tbai = readFileSync(path.join(root, 'assets/reference/ticketbai/xsd/v1-2-2/ticketbaiv1-2-2.xsd'));
    expect([...tbai.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(tbai.includes('\r\n')).toBe(true);
  });
});
