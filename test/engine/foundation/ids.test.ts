import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { timeOrderedIds } from '../../../engine/src/platform/ids';

describe('Ids are time-ordered, unique and unguessable', () => {
  it('sort in creation order within and across milliseconds, never repeat, carry 64 random bits', () => {
    const clock = new ManualClock('2026-11-20T10:00:00.000Z');
    const ids = timeOrderedIds(clock);
    const made: string[] = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 1000 === 999) clock.advance(1);
      made.push(ids.next('fac'));
    }
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    expect(made[0]).toMatch(/^fac_[0-9a-f]{12}[0-9a-f]{4}[0-9a-f]{16}$/);
    // The random parts never repeat either (they come from a pool refilled every 512 ids).
    expect(new Set(made.map((id) => id.slice(-16))).size).toBe(made.length);
    expect(ids.secret(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
