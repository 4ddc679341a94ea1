import { describe, expect, it } from 'vitest';
import { benchVerifactuRecord } from '../../bench/verifactu-record';

describe('issuing hot path bench (zod parse + reglas + RegistroAlta) runs', () => {
  it('reports a throughput (no assertion on speed: that is the bench\'s job, not a test\'s)', async () => {
    const r = await benchVerifactuRecord(2_000);
    expect(r.records).toBe(2_000);
    expect(r.recordsPerSecond).toBeGreaterThan(0);
    expect(r.roundsRecordsPerSecond).toHaveLength(5);
    expect(Math.max(...r.roundsRecordsPerSecond)).toBe(r.recordsPerSecond);
    for (const stage of ['parse', 'rules', 'record'] as const) expect(r.cpuMicrosecondsPerRecord[stage]).toBeGreaterThan(0);
  });
});
