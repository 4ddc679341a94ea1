import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function ruleIdsFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('Import boundaries of DESIGN.md §2 are enforced by ESLint', () => {
  it('an emulator importing engine/src fails lint', async () => {
    expect(await ruleIdsFor('engine/emulators/probe.ts', "import { SqliteDatabase } from '../src/db/database';\nexport const x = Database;\n")).toContain(
      'import/no-restricted-paths',
    );
  });
  it('the engine importing electron fails lint', async () => {
    expect(await ruleIdsFor('engine/src/probe.ts', "import { app } from 'electron';\nexport const x = app;\n")).toContain('no-restricted-imports');
  });
  it('the renderer importing the engine fails lint', async () => {
    expect(
      await ruleIdsFor('src-renderer/probe.ts', "import { createEngine } from '../engine/src/index';\nexport const x = createEngine;\n"),
    ).toContain('import/no-restricted-paths');
  });
  it('src-shared importing anything but zod fails lint', async () => {
    expect(await ruleIdsFor('src-shared/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toContain(
      'no-restricted-imports',
    );
  });
  it('the renderer importing src-shared passes', async () => {
    expect(await ruleIdsFor('src-renderer/probe.ts', "import { entornoSchema } from '../src-shared/api/common';\nexport const x = entornoSchema;\n")).toEqual(
      [],
    );
  });
});
