// The usage meter computes the Madrid month once and reuses it while the clock stays inside it
// (account/usage.ts): the count must still follow the clock across the month's edge, either way.
import { afterEach, describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../engine/src/account/usage';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine | undefined;
afterEach(async () => t?.close());

const limits = { rps: 1e9, burst: 1e9, monthlyQuota: 2 };
// 1 December 2026 00:00 in Madrid is 23:00Z on 30 November.
const LAST_MS_OF_NOVEMBER = '2026-11-30T22:59:59.999Z';
const FIRST_MS_OF_DECEMBER = '2026-11-30T23:00:00.000Z';

describe('The monthly count follows the clock across the month edge', () => {
  it('forwards at the exact instant, and back again to the same month count', async () => {
    t = await makeTestEngine({ now: '2026-11-30T12:00:00Z' });
    const meter = new UsageMeter(t.engine.context.db, t.clock);
    const keyId = t.engine.context.accounts.findActiveKey(t.keys.test)?.key.id ?? '';
    meter.admit(keyId, limits);
    t.clock.set(LAST_MS_OF_NOVEMBER);
    meter.admit(keyId, limits);
    expect(() => meter.admit(keyId, limits)).toThrow(expect.objectContaining({ code: 'QUOTA_EXCEEDED' }));
    meter.flush(); // what the running meter does every second
    t.clock.set(FIRST_MS_OF_DECEMBER);
    meter.admit(keyId, limits);
    expect(meter.consumo(keyId, limits)?.periodo).toBe('2026-12');
    // A clock set back (a manual correction) reads November again, whose quota is spent.
    t.clock.set(LAST_MS_OF_NOVEMBER);
    expect(() => meter.admit(keyId, limits)).toThrow(expect.objectContaining({ code: 'QUOTA_EXCEEDED' }));
    expect(meter.consumo(keyId, limits)?.periodo).toBe('2026-11');
  });
});
