// `npm run bench tail` reads a timeline the bench's engine process writes (tail-trace.ts), made by
// wrapping methods of the issuing path from outside: a method renamed in the engine must fail
// here, not only when someone next runs the bench.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { facturaBody, startServer } from './harness';
import { SEQ_HEADER, type ServerTrace } from './tail-trace';

describe('the bench engine’s per-request timeline (BENCH_TRACE)', () => {
  it('times each crear from arrival through its batch’s commit and fsync to the answer', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tail-trace-')), 'trace.json');
    const engine = await startServer('engine', [], { BENCH_TRACE: file });
    const { url, key, nif } = engine.info;
    const body = facturaBody(nif ?? '', 'trace', []);
    try {
      const answers = await Promise.all(
        [1, 2, 3].map((i) =>
          fetch(`${url}/v1/verifactu/crear`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': key ?? '', [SEQ_HEADER]: String(i) },
            body: body(i),
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    } finally {
      await engine.stop();
    }
    const trace = JSON.parse(readFileSync(file, 'utf8')) as ServerTrace;
    for (const seq of ['1', '2', '3']) {
      const m = trace.requests[seq]!;
      const order = [m.arrival, m.crear, m.workStart, m.workEnd, m.committed, m.answered, m.finish];
      expect(order.every((t) => typeof t === 'number')).toBe(true);
      expect([...order].sort((a, b) => a! - b!)).toEqual(order);
      const batch = trace.batches[m.batch!]!;
      expect(batch.size).toBeGreaterThanOrEqual(1);
      expect(batch.txStart).toBeLessThanOrEqual(m.workStart!);
      expect(batch.txEnd).toBeGreaterThanOrEqual(m.workEnd!);
      expect(batch.durable).toBeGreaterThanOrEqual(batch.txEnd);
      expect(batch.durable).toBeLessThanOrEqual(m.committed!);
    }
    expect(trace.batches.reduce((sum, b) => sum + b.size, 0)).toBeGreaterThanOrEqual(3);
    expect(trace.fsyncs.length).toBeGreaterThanOrEqual(1);
  });
});
