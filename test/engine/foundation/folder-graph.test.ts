// The folder graph of engine/src is checked by dependency-cruiser (.dependency-cruiser.cjs, run by
// `npm run lint:deps` in `npm test`). These tests run the same check on small trees that break one
// rule each, so a rule that silently stopped matching (a renamed folder, a changed regex) fails here.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { cruise, type ICruiseOptions, type IForbiddenRuleType } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '../../..');
const CONFIG = path.join(REPO, '.dependency-cruiser.cjs');

const trees: string[] = [];
afterAll(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** An engine/src of the given files (path → source) in a temporary folder. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'folder-graph-'));
  trees.push(dir);
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

/** The rules of .dependency-cruiser.cjs on the engine/src below `cwd`, in process (a child process per case would cost seconds each). */
async function check(cwd: string): Promise<{ code: number; output: string }> {
  const config = createRequire(import.meta.url)(CONFIG) as { forbidden: IForbiddenRuleType[]; options: ICruiseOptions };
  const { tsConfig: _tsConfig, ...options } = config.options;
  const result = await cruise(['engine/src'], { ...options, baseDir: cwd, validate: true, ruleSet: { forbidden: config.forbidden }, outputType: 'err' });
  return { code: result.exitCode, output: String(result.output) };
}

/**
 * A cycle among the folders of engine/src with each regime taken whole (regimes/verifactu with its
 * rules/, record/ and authority/): dependency-cruiser compares every folder with every other, so a
 * regime's subfolder and a feature can close a loop through the regime's root that no single pair
 * shows. Returns the loop, or undefined.
 */
async function wholeFolderCycle(cwd: string): Promise<string[] | undefined> {
  const config = createRequire(import.meta.url)(CONFIG) as { options: ICruiseOptions };
  const { tsConfig: _tsConfig, ...options } = config.options;
  const result = await cruise(['engine/src'], { ...options, baseDir: cwd, outputType: 'json' });
  const modules = (JSON.parse(String(result.output)) as { modules: { source: string; dependencies: { resolved: string }[] }[] }).modules;
  const folderOf = (file: string) => /^engine\/src\/(regimes\/[^/]+|[^/]+)/.exec(file)?.[1];
  const edges = new Map<string, Set<string>>();
  for (const m of modules) {
    const from = folderOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (folder: string): string[] | undefined => {
    if (done.has(folder)) return undefined;
    const at = path.indexOf(folder);
    if (at >= 0) return [...path.slice(at), folder];
    path.push(folder);
    for (const next of edges.get(folder) ?? []) {
      const loop = visit(next);
      if (loop) return loop;
    }
    path.pop();
    done.add(folder);
    return undefined;
  };
  for (const folder of edges.keys()) {
    const loop = visit(folder);
    if (loop) return loop;
  }
  return undefined;
}

// A well-layered little engine: every rule below is broken by adding one file or one import to it.
const LAYERED = {
  'engine/src/core/errors.ts': 'export class EngineError extends Error {}\n',
  'engine/src/clients/store.ts': "import { EngineError } from '../core/errors';\nexport const issuers = () => new EngineError();\n",
  'engine/src/issuing/importes.ts': "export const importe = (v: string) => v;\n",
  'engine/src/verifactu/service.ts': "import { issuers } from '../clients/store';\nimport { importe } from '../issuing/importes';\nexport const vf = () => [issuers(), importe('1')];\n",
  'engine/src/ticketbai/service.ts': "import { importe } from '../issuing/importes';\nexport const tbai = () => importe('2');\n",
  'engine/src/context.ts': "import { vf } from './verifactu/service';\nimport { tbai } from './ticketbai/service';\nexport const ctx = { vf, tbai };\n",
  'engine/src/http/server.ts': "import { ctx } from '../context';\nexport const app = ctx;\n",
  'engine/src/index.ts': "export { app } from './http/server';\n",
};

describe('the folder graph check (npm run lint:deps)', () => {
  it('passes on the engine as it is', async () => {
    const result = await check(REPO);
    expect(result.output).toContain('no dependency violations found');
    expect(result.code).toBe(0);
  });

  it('finds no cycle among the folders with each regime taken whole', async () => {
    expect(await wholeFolderCycle(REPO)).toBeUndefined();
    expect(await wholeFolderCycle(tree(LAYERED))).toBeUndefined();
  });

  it('finds the loop that a subfolder of a regime and a feature close through the regime', async () => {
    const loop = await wholeFolderCycle(
      tree({
        ...LAYERED,
        'engine/src/regimes/verifactu/record/registro.ts': 'export const registro = 1;\n',
        'engine/src/regimes/verifactu/service.ts': "import type { Firma } from '../../no-verifactu/issuing';\nexport type F = Firma;\n",
        'engine/src/no-verifactu/issuing.ts': "import { registro } from '../regimes/verifactu/record/registro';\nexport type Firma = typeof registro;\n",
      }),
    );
    expect(loop).toEqual(expect.arrayContaining(['regimes/verifactu', 'no-verifactu']));
  });

  it('passes on a layered tree (the fixture the failing cases start from)', async () => {
    const result = await check(tree(LAYERED));
    expect(result.output).toContain('no dependency violations found');
    expect(result.code).toBe(0);
  });

  it('fails when one import closes a cycle between two folders', async () => {
    const cyclic = {
      ...LAYERED,
      // clients → verifactu, while verifactu → clients: a folder cycle, though no module cycle.
      'engine/src/clients/views.ts': "import { vf } from '../verifactu/service';\nexport const view = vf;\n",
    };
    const result = await check(tree(cyclic));
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('no-folder-cycle');
  });

  it('fails when a cycle runs through the composition root', async () => {
    const result = await check(tree({ ...LAYERED, 'engine/src/clients/config.ts': "import type { ctx } from '../context';\nexport type Ctx = typeof ctx;\n" }));
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('no-import-of-the-composition-root');
  });

  it('fails when a feature imports http/', async () => {
    const result = await check(tree({ ...LAYERED, 'engine/src/http/auth.ts': 'export interface Caller { id: string }\n', 'engine/src/clients/routes.ts': "import type { Caller } from '../http/auth';\nexport type Who = Caller;\n" }));
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('no-feature-into-http');
  });

  it('fails when one regime imports another (also below regimes/)', async () => {
    const flat = await check(tree({ ...LAYERED, 'engine/src/ticketbai/xml.ts': "import { vf } from '../verifactu/service';\nexport const x = vf;\n" }));
    expect(flat.code).not.toBe(0);
    expect(flat.output).toContain('no-regime-into-regime');
    const nested = await check(
      tree({
        'engine/src/regimes/verifactu/rules/fecha.ts': 'export const fecha = 1;\n',
        'engine/src/regimes/ticketbai/record/xml.ts': "import { fecha } from '../../verifactu/rules/fecha';\nexport const x = fecha;\n",
      }),
    );
    expect(nested.code).not.toBe(0);
    expect(nested.output).toContain('no-regime-into-regime');
  });

  it('fails when core/ imports a feature', async () => {
    const result = await check(tree({ ...LAYERED, 'engine/src/core/caller.ts': "import type { issuers } from '../clients/store';\nexport type I = typeof issuers;\n" }));
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('core-imports-no-feature');
  });
});
