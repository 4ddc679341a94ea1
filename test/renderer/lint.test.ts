import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function ruleIdsFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('The renderer imports only src-shared (lint fails otherwise)', () => {
  const cases: [string, string][] = [
    ['the engine', "import { createEngine } from '../../engine/src/index';\nexport const x = createEngine;\n"],
    ['main', "import { EngineHost } from '../../src-main/engine-host';\nexport const x = EngineHost;\n"],
    ['node:fs', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"],
    ['fs', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n"],
    ['electron', "import { ipcRenderer } from 'electron';\nexport const x = ipcRenderer;\n"],
    ['better-sqlite3', "import Database from 'better-sqlite3';\nexport const x = Database;\n"],
  ];
  for (const [what, code] of cases) {
    it(`a renderer component importing ${what} fails lint`, async () => {
      const ids = await ruleIdsFor('src-renderer/features/probe.tsx', code);
      expect(ids.some((id) => id === 'import/no-restricted-paths' || id === 'no-restricted-imports'), ids.join(',')).toBe(true);
    });
  }

  it('src-shared, React and zustand pass', async () => {
    const code = "import { useState } from 'react';\nimport { create } from 'zustand';\nimport { entornoSchema } from '../../src-shared/api/common';\nexport const x = [useState, create, entornoSchema];\n";
    expect(await ruleIdsFor('src-renderer/features/probe.tsx', code)).toEqual([]);
  });

  it('the preload may not import main’s other modules or the engine', async () => {
    expect(await ruleIdsFor('src-main/preload/probe.ts', "import { EngineHost } from '../engine-host';\nexport const x = EngineHost;\n")).toContain('import/no-restricted-paths');
    expect(await ruleIdsFor('src-main/preload/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toContain('no-restricted-imports');
  });
});
