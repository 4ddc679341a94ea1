// How the emulated census compares a queried name with the one on record. Natural persons only:
// for legal persons the census ignores the queried name. Deliberately independent of the engine.

/** Upper case, accents and punctuation removed, single spaces: "Pérez Núñez, Lucía" → "PEREZ NUNEZ LUCIA". */
export function normalizeName(raw: string): string {
  return raw
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();
}

export type NameMatch = 'exact' | 'partial' | 'similar' | 'none';

/**
 * exact   — the same name once normalized (case, accents, punctuation and spacing do not count);
 * partial — at least two words, the first surname equal, every word found in order in the record,
 *           a single letter standing for a word it starts ("GARCIA LOPEZ", "GARCIA LOPEZ M");
 * similar — the same words in another order, or a Levenshtein similarity of 0.8 or more;
 * none    — anything else.
 */
export function matchPersonName(queried: string, official: string): NameMatch {
  const q = normalizeName(queried);
  const c = normalizeName(official);
  if (q === '' || c === '') return 'none';
  if (q === c) return 'exact';
  const qt = q.split(' ');
  const ct = c.split(' ');
  if (qt.length >= 2 && qt.length <= ct.length && qt[0] === ct[0] && isOrderedSubset(qt, ct)) return 'partial';
  if ([...qt].sort().join(' ') === [...ct].sort().join(' ')) return 'similar';
  return similarity(q, c) >= 0.8 ? 'similar' : 'none';
}

function isOrderedSubset(query: string[], record: string[]): boolean {
  let j = 0;
  for (const word of query) {
    while (j < record.length && !wordMatches(word, record[j] ?? '')) j++;
    if (j === record.length) return false;
    j++;
  }
  return true;
}

function wordMatches(word: string, recorded: string): boolean {
  return word === recorded || (word.length === 1 && recorded.startsWith(word));
}

/** 1 − Levenshtein distance / length of the longer string. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 1;
  return 1 - levenshtein(a, b) / longest;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
