// What the text-level lint tests share: engine/src's files, and the code lines (not comments) of
// one file that match a rule, named `file:line: what`.
import { readdirSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');

/** Every .ts file below `dir` (relative to the repository), with forward slashes. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f.split(path.sep).join('/')}`);
}

/** Comment lines say what the code does; they are not code. */
const isComment = (line: string) => /^\s*(?:\/\/|\/\*|\*)/.test(line);

/** Each code line of `source` that matches a rule, as `file:line: what` (one entry per rule it breaks). */
export function linesBreaking(file: string, source: string, rules: readonly (readonly [RegExp, string])[]): string[] {
  const found: string[] = [];
  source.split('\n').forEach((line, i) => {
    if (isComment(line)) return;
    for (const [pattern, what] of rules) if (pattern.test(line)) found.push(`${file}:${i + 1}: ${what}`);
  });
  return found;
}
