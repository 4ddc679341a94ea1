import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../engine/src/platform/secrets';

describe('hashApiKey', () => {
  it('is the SHA-256 of the key\'s UTF-8 bytes in hex, as stored by every earlier version', () => {
    for (const key of ['sk_test_abc', 'sk_live_' + 'x'.repeat(43), 'clé-ñ-€', '']) {
      expect(hashApiKey(key)).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
    }
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
