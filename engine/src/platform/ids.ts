import { randomBytes, randomUUID } from 'node:crypto';

/** Every identifier the engine mints comes from an IdGenerator, so tests can make them predictable. */
export interface IdGenerator {
  /** An opaque unique identifier, optionally prefixed (`fac_…`). */
  next(prefix?: string): string;
  /** URL-safe random secret material (API keys, panel tokens). */
  secret(bytes: number): string;
}

export const randomIds: IdGenerator = {
  next: (prefix) => (prefix ? `${prefix}_${randomUUID().replaceAll('-', '')}` : randomUUID()),
  secret: (bytes) => randomBytes(bytes).toString('base64url'),
};

/** Deterministic ids for tests: `fac_000001`, `fac_000002`, … */
export function sequentialIds(seed = 0): IdGenerator {
  let counter = seed;
  return {
    next: (prefix) => {
      counter += 1;
      const n = String(counter).padStart(6, '0');
      return prefix ? `${prefix}_${n}` : `id_${n}`;
    },
    secret: (bytes) => {
      counter += 1;
      return `s${String(counter).padStart(Math.max(8, bytes), '0')}`;
    },
  };
}
