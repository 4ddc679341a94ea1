// The optional conformance suite: checks against external corpora (example records and replies
// published by other implementations) that the repository does not ship. It runs when
// POS_CONFORMANCE_DIR (default: the reading desk beside the repository) holds them, and is
// reported as skipped — by name, with the reason — when it does not. CI sets POS_CONFORMANCE_DIR.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const configured = process.env.POS_CONFORMANCE_DIR ?? path.resolve(repoRoot, '../shared/reference');

/** The corpus folder when it is there, else null. */
export const CONFORMANCE_DIR: string | null = existsSync(path.join(configured, 'verifactu', 'examples')) ? configured : null;

/** Suite name that says why it was skipped, so the runner's report names the reason. */
export function conformanceSuite(name: string): string {
  return CONFORMANCE_DIR === null
    ? `${name} — skipped: no external corpus at ${configured} (set POS_CONFORMANCE_DIR)`
    : `${name} (corpus: ${CONFORMANCE_DIR})`;
}

export function corpusFile(...parts: string[]): string {
  if (CONFORMANCE_DIR === null) throw new Error('conformance corpus not available');
  return path.join(CONFORMANCE_DIR, ...parts);
}

if (CONFORMANCE_DIR === null) {
  console.warn(`[conformance] skipped: no external corpus at ${configured} (set POS_CONFORMANCE_DIR)`);
}
