import { describe, expect, it } from 'vitest';
import { benchTicketbaiSign } from '../../bench/ticketbai-sign';

describe('TicketBAI signing bench runs', () => {
  it('reports docs/s beside the raw RSA rate of the same run (no assertion on speed)', async () => {
    const r = await benchTicketbaiSign({ docs: 50, rounds: 1 });
    expect(r.docsPerSecond).toBeGreaterThan(0);
    expect(r.rawRsaSignaturesPerSecond).toBeGreaterThan(0);
    expect(r.ratio).toBeGreaterThan(0);
  });
});
