import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';

// TiempoEsperaEnvio 60 s.
const env = useEngineWithEmulators({ clock, waitSeconds: 60, aeat: { timeoutMs: 3000 } });

let numero = 0;
const issue = (n: number) =>
  Promise.all(
    Array.from({ length: n }, () =>
      env.t.engine.context.verifactu.crear(
        { keyId: 'k', entorno: 'test', account: env.t.engine.context.accounts.listAccounts()[0]!, limits: { rps: 1e9, burst: 1e9, monthlyQuota: 1e12 } },
        aFacturaF2({ cabecera: { serie: 'W', numero: String(++numero), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
      ),
    ),
  );

/** Until `done()` holds, or fails after a few seconds (the worker runs on its own). */
async function eventually(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await sleep(10);
  expect(done()).toBe(true);
}

afterEach(async () => env.t.engine.context.submissions.stop());

describe('The submission worker wakes on commit, not on a poll, and runs no pass a commit cannot make due', () => {
  it('the first record of a queue is sent at once; records into a queue waiting out TiempoEsperaEnvio run at most one pass', async () => {
    const worker = env.t.engine.context.submissions;
    // The idle poll set far off: every pass seen here was a wake.
    env.t.engine.context.config.submission.pollMs = 600_000;
    worker.start();
    await issue(1);
    await eventually(() => env.jobsLeft() === 0);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(1);
    await sleep(50);
    const passes = vi.spyOn(worker, 'tick');
    for (let i = 0; i < 20; i++) {
      await issue(1);
      await sleep(5);
    }
    // One pass learns the queue waits 60 s with room for 999 more; the 19 commits after it run none.
    expect(passes.mock.calls.length).toBeLessThanOrEqual(1);
    expect(env.jobsLeft()).toBe(20);
    passes.mockRestore();
  });

  it('a queue that fills a whole submission (1000 records) sends it before its time, woken by the commit', async () => {
    env.t.engine.context.submissions.start();
    const before = env.emu.aeat.ledger.countRecords(NIF);
    const waiting = env.jobsLeft();
    await issue(1000 - waiting);
    await eventually(() => env.jobsLeft() === 0);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(before + 1000);
    expect(env.emu.aeat.ledger.chainIntact(NIF)).toBe(true);
  });
});
