// docs/aeat-codes.md against the AEAT's code list shipped in assets/reference (issue 31): every
// code listed once, no code a VERI*FACTU submission can meet left unmarked, and the table in step
// with the engine's rule table and with the codes the emulator's sources answer.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REGLAS_VERIFACTU } from '../../../engine/src/regimes/verifactu/reglas';

const root = path.resolve(import.meta.dirname, '../../..');
const LIST = path.join(root, 'assets/reference/verifactu/validaciones/errores.properties');
const TABLE = path.join(root, 'docs/aeat-codes.md');

/** The codes of errores.properties (ISO-8859-1, `NNNN = text` lines). */
function officialCodes(): number[] {
  const raw = readFileSync(LIST, 'latin1');
  return [...raw.matchAll(/^(\d{4}) = /gm)].map((m) => Number(m[1]));
}

interface Row {
  code: number;
  section: string;
  meaning: string;
  submission: string;
  engine: string;
  emulator: string;
  tests: string;
}

function tableRows(): Row[] {
  const md = readFileSync(TABLE, 'utf8');
  return md
    .split('\n')
    .filter((l) => /^\| \d{4} \|/.test(l))
    .map((l) => {
      const c = l
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((x) => x.trim());
      expect(c, l).toHaveLength(7);
      const [code, section, meaning, submission, engine, emulator, tests] = c as [string, string, string, string, string, string, string];
      return { code: Number(code), section, meaning, submission, engine, emulator, tests };
    });
}

/** Codes the emulator's own sources answer: a rejection returned, a fault raised, a warning pushed. */
function emulatorCodes(): Set<number> {
  const dir = path.join(root, 'engine/emulators/aeat');
  const out = new Set<number>();
  for (const f of ['rules.ts', 'processor.ts', 'header.ts', 'index.ts']) {
    const src = readFileSync(path.join(dir, f), 'utf8');
    // `return 1189`, `rejectWith(1150)`, `push(2009)`, `clientFault(4102, …)`, `? 1143 : 1140`.
    for (const m of src.matchAll(/(?:return|rejectWith\(|reject\(|fault\(|clientFault\(|push\(|\? null :|\?|:)\s*(\d{4})\b/g)) out.add(Number(m[1]));
  }
  return out;
}

/** The numeric codes of the engine's rule table ('1235/1236' and '1160–1170' stand for several). */
function engineTableCodes(): Map<number, 'error' | 'aviso'> {
  const out = new Map<number, 'error' | 'aviso'>();
  for (const r of REGLAS_VERIFACTU) {
    const range = /^(\d{4})–(\d{4})$/.exec(r.codigo);
    const codes = range ? Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i) : r.codigo.split('/').filter((x) => /^\d{4}$/.test(x)).map(Number);
    for (const c of codes) out.set(c, r.gravedad);
  }
  return out;
}

describe('the shipped AEAT code list', () => {
  it('is the AEAT file, unmodified, with its 247 codes in three sections', () => {
    expect(createHash('sha256').update(readFileSync(LIST)).digest('hex')).toBe('06519ceb23422bd6b0ad3bfb659e3007615050da4920781d12cff536481d5902');
    const codes = officialCodes();
    expect(codes).toHaveLength(247);
    expect(new Set(codes).size).toBe(247);
    expect(readFileSync(LIST, 'latin1').match(/^\*{9} Listado/gm)).toHaveLength(3);
  });
});

describe('docs/aeat-codes.md', () => {
  const rows = tableRows();
  const byCode = new Map(rows.map((r) => [r.code, r]));

  it('lists every code of the list once, and no other', () => {
    const codes = rows.map((r) => r.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual([...officialCodes()].sort());
  });

  it('marks every code a VERI*FACTU submission can meet one way or the other, and says why the rest cannot be met', () => {
    const unmarked: string[] = [];
    for (const r of rows) {
      if (!/^(yes|no — |technical — )/.test(r.submission)) unmarked.push(`${r.code}: submission "${r.submission}"`);
      if (!r.submission.startsWith('yes')) continue;
      for (const [what, cell] of [['engine', r.engine], ['emulator', r.emulator]] as const) {
        if (cell === '' || cell === '?' || cell === '—') unmarked.push(`${r.code}: ${what} cell empty`);
      }
      // What a side claims to check is proven by a test.
      if (/^(400|aviso)/.test(r.engine) && r.tests === '—') unmarked.push(`${r.code}: the engine checks it but no test is named`);
      if (/^yes/.test(r.emulator) && r.tests === '—') unmarked.push(`${r.code}: the emulator answers it but no test is named`);
    }
    expect(unmarked).toEqual([]);
  });

  it('agrees with the engine rule table: each rule refuses (400) or warns (aviso) as the table says', () => {
    const drift: string[] = [];
    for (const [code, gravedad] of engineTableCodes()) {
      const r = byCode.get(code);
      if (!r) drift.push(`${code}: not in the table`);
      else if (!r.engine.startsWith(gravedad === 'error' ? '400' : 'aviso')) drift.push(`${code}: the table says "${r.engine}", the rule is an ${gravedad}`);
    }
    expect(drift).toEqual([]);
  });

  it('agrees with the emulator: the codes its sources answer are marked answered, and only those', () => {
    const answered = emulatorCodes();
    const drift: string[] = [];
    for (const r of rows) {
      const says = r.emulator.startsWith('yes');
      if (answered.has(r.code) !== says) drift.push(`${r.code}: table "${r.emulator}", sources ${answered.has(r.code) ? 'answer it' : 'do not'}`);
    }
    expect(drift).toEqual([]);
  });
});
