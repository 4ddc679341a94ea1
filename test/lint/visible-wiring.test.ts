// Visible wiring (issue 26, docs/architecture.md §2): the composition root passes every hook and
// every authority adapter to constructors. No callback field is assigned after construction, no
// Proxy stands in for a missing object (a type says it is absent), and the submission worker
// names no regime (filing/workers.ts builds the adapters). Checked over the text of engine/src.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { linesBreaking, root, sourceFiles } from './source-scan';

const RULES: readonly [RegExp, string][] = [
  [/\bnew Proxy\b/, 'a Proxy (say with a type that the object is absent)'],
  [/\b[\w$]+\.(?:on|after|before)[A-Z]\w*\s*=(?![=>])/, 'a hook assigned after construction (pass it to the constructor)'],
];

/** The lines of `source` (named `file`) that hide wiring, as `file:line: what`. */
export function hiddenWiring(file: string, source: string): string[] {
  return linesBreaking(file, source, RULES);
}

/** The modules `source` imports (static `import … from` and `export … from`). */
function importsOf(source: string): string[] {
  return [...source.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gm)].map((m) => m[1]!);
}

describe('Wiring is visible: hooks and adapters go to constructors', () => {
  it('the check fails on a Proxy and on a hook assigned after construction, not on a comparison or an arrow', () => {
    const file = 'engine/src/context.ts';
    expect(hiddenWiring(file, 'return new Proxy({} as T, { get() { throw new Error(); } });')).toEqual([`${file}:1: a Proxy (say with a type that the object is absent)`]);
    expect(hiddenWiring(file, 'x;\ninvoices.onEnqueued = (queueKey) => filing.enqueued(queueKey);')).toEqual([
      `${file}:2: a hook assigned after construction (pass it to the constructor)`,
    ]);
    expect(hiddenWiring(file, 'webhooks.afterChange = () => filing.webhooksChanged();')).toHaveLength(1);
    expect(hiddenWiring(file, 'if (deps.onDeactivated === undefined) return;\nconst f = { onDeactivated: (a) => a };\n// a.onX = y')).toEqual([]);
    expect(importsOf("import { AeatAdapter } from '../regimes/verifactu/authority/aeat-adapter';\nexport type { X } from './x';")).toEqual([
      '../regimes/verifactu/authority/aeat-adapter',
      './x',
    ]);
  });

  it('engine/src has no Proxy and no hook assigned after construction', () => {
    const found = sourceFiles('engine/src').flatMap((file) => hiddenWiring(file, readFileSync(path.join(root, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the submission worker names no regime: every authority adapter is passed to its constructor', () => {
    const source = readFileSync(path.join(root, 'engine/src/submission/worker.ts'), 'utf8');
    expect(importsOf(source).length).toBeGreaterThan(5);
    expect(importsOf(source).filter((m) => m.includes('/regimes/'))).toEqual([]);
    expect(readFileSync(path.join(root, 'engine/src/filing/workers.ts'), 'utf8')).toMatch(/new AeatAdapter\(/);
  });
});
