import { createHash, timingSafeEqual } from 'node:crypto';
import type { Entorno } from '../../../src-shared/api/common';
import type { IdGenerator } from './ids';

/**
 * API keys are 32 random bytes, so a plain SHA-256 is a sound verifier (no dictionary to attack)
 * and keeps key lookup a single indexed read per request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function newApiKey(ids: IdGenerator, entorno: Entorno): string {
  return `sk_${entorno}_${ids.secret(32)}`;
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
