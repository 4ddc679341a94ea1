import { hash, timingSafeEqual } from 'node:crypto';
import type { Entorno } from '../../../src-shared/api/common';
import type { IdGenerator } from './ids';

/**
 * API keys are 32 random bytes, so a plain SHA-256 is a sound verifier (no dictionary to attack)
 * and keeps key lookup a single indexed read per request. One-shot `hash`: every request hashes
 * its key, and a `createHash` object per call cost several times more (the same digest).
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function newApiKey(ids: IdGenerator, entorno: Entorno): string {
  return `sk_${entorno}_${ids.secret(32)}`;
}

/**
 * Constant-time comparison of two secrets: both are hashed first, so the comparison takes the
 * same time whatever their lengths (no early return that tells a guesser the token's length).
 */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer'));
}
