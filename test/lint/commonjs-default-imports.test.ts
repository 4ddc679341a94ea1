// A default import of a CommonJS package compiled from ES modules (`exports.__esModule = true`,
// `exports.default = …`) is the module object under Node (`npm start`, the desktop bundle, whose
// bare imports stay external) but `exports.default` under vitest and bundlers: the tests pass and
// the product fails (issue 28: `signpdf.sign is not a function`). Every default import of a package
// in engine/src and src-main is checked here under plain Node: what Node hands over as the default
// must be the package's own default too.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** Packages that load only inside Electron (they require 'electron'): Electron's own loader runs them. */
const ELECTRON_ONLY = new Set(['electron', 'electron-log/main']);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => path.join(dir, f));
}

/** `import name from 'pkg'` and `import name, { … } from 'pkg'` of a package (not `import type`). */
function defaultImportsOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^import\s+(?!type\b)[A-Za-z_$][\w$]*\s*(?:,\s*\{[^}]*\})?\s+from\s+'([^']+)'/gm)) {
    const specifier = m[1]!;
    if (!specifier.startsWith('.') && !specifier.startsWith('node:')) found.push(specifier);
  }
  return found;
}

/** Under plain Node: is the default import of each package the package's own default? */
function ambiguousUnderNode(specifiers: string[]): Record<string, string> {
  const script = `
    const out = {};
    for (const s of ${JSON.stringify(specifiers)}) {
      try {
        const d = (await import(s)).default;
        out[s] = d && d.__esModule === true && d.default !== d ? 'ambiguous' : 'ok';
      } catch (e) { out[s] = 'unloadable: ' + e.message.split('\\n')[0]; }
    }
    process.stdout.write(JSON.stringify(out));`;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout) as Record<string, string>;
}

describe('Default imports of CommonJS packages mean the same under Node as under vitest', () => {
  it('the scan finds default imports (and the one that broke representacion/firmar would be caught)', () => {
    expect(defaultImportsOf("import signpdf from '@signpdf/signpdf';\nimport type X from 'y';\nimport z from './z';")).toEqual(['@signpdf/signpdf']);
    expect(ambiguousUnderNode(['@signpdf/signpdf'])).toEqual({ '@signpdf/signpdf': 'ambiguous' });
  });

  it('no default import in engine/src or src-main is the module object under Node', () => {
    const byPackage = new Map<string, string[]>();
    for (const file of [...sourceFiles('engine/src'), ...sourceFiles('src-main')]) {
      for (const specifier of defaultImportsOf(readFileSync(path.join(root, file), 'utf8'))) {
        byPackage.set(specifier, [...(byPackage.get(specifier) ?? []), file]);
      }
    }
    expect(byPackage.size).toBeGreaterThan(3);
    const verdicts = ambiguousUnderNode([...byPackage.keys()].filter((s) => !ELECTRON_ONLY.has(s)));
    const wrong = Object.entries(verdicts)
      .filter(([, verdict]) => verdict !== 'ok')
      .map(([specifier, verdict]) => `${specifier} (${verdict}) in ${byPackage.get(specifier)!.join(', ')}`);
    expect(wrong).toEqual([]);
  });
});
