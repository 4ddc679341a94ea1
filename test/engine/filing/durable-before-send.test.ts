// The filing thread's connection reads rows issuing committed with synchronous=NORMAL whose fsync
// may still be running on the main thread. Its Database (`otherWriters`) fsyncs the WAL itself
// before every send. Here the same workers the thread builds (buildFilingWorkers) run on such a
// second connection in this process, so fs.fsync can be held (the technique of
// test/engine/foundation/durable-commit.test.ts; a worker thread would not see the mock).
import type * as NodeFs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { releaseHeldFsyncs } from '../../support/holdable-fsync';
import { aTicketDemo } from '../../fixtures/verifactu';

const fsyncControl = vi.hoisted(() => ({ calls: 0, held: [] as (() => void)[], hold: false }));

vi.mock('node:fs', async (importOriginal) => {
  const { withHoldableFsync } = await import('../../support/holdable-fsync');
  return withHoldableFsync(await importOriginal<typeof NodeFs>(), fsyncControl);
});

const { SqliteDatabase: Database } = await import('../../../engine/src/db/database');
const { buildFilingWorkers } = await import('../../../engine/src/filing/workers');
const { afterPendingEvents } = await import('../../../engine/src/db/write-priority');
const { LazySyncTurns } = await import('../../../engine/src/filing/lazy-sync-turns');
const { ManualClock } = await import('../../../engine/src/platform/clock');
const { sequentialIds } = await import('../../../engine/src/platform/ids');
const { silentLogger } = await import('../../../engine/src/platform/logger');
const { makeTestEngine } = await import('../../support/engine');
const { startTestEmulators } = await import('../../support/emulators');

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
let emu: Awaited<ReturnType<typeof startTestEmulators>>;
beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: 0 });
});
afterAll(async () => emu.close());

const releaseHeld = () => {
  releaseHeldFsyncs(fsyncControl);
};
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, 50));
  return done;
};

const factura = (nif: string, numero: string) => aTicketDemo(nif, 'D', numero);

describe('The filing connection sends nothing before its own fsync of the WAL returns', () => {
  // The filing thread's own turns commit with synchronous=NORMAL (LazySyncTurns): its submission
  // is then durable only through that same fsync before the send.
  it.each([
    ['commits with synchronous=FULL', (_db: InstanceType<typeof Database>) => afterPendingEvents],
    ["the filing thread's turns (synchronous=NORMAL)", (db: InstanceType<typeof Database>) => new LazySyncTurns(db, afterPendingEvents)],
  ])('a record committed by issuing, its fsync still running, reaches the authority only after the filing side fsynced (%s)', async (_name, turnsOf) => {
    emu.aeat.reset();
    const t = await makeTestEngine({ clock, submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl } } } });
    const config = t.engine.context.config;
    const filingDb = new Database(t.engine.context.db.file, { otherWriters: true });
    const { submissions } = buildFilingWorkers(
      filingDb,
      clock,
      sequentialIds(500_000),
      silentLogger,
      {
        submission: config.submission,
        submitAutomatically: false,
        webhooks: config.webhooks,
        tbaiEndpoints: config.ticketbai.endpoints,
      },
      turnsOf(filingDb),
    );
    try {
      fsyncControl.hold = true;
      const answer = t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '1') });
      // Issuing committed and waits for its fsync: visible to the filing connection, not durable.
      await vi.waitFor(() => expect(fsyncControl.held.length).toBe(1));
      expect(filingDb.sqlite.prepare('SELECT COUNT(*) AS n FROM submission_jobs').get()).toEqual({ n: 1 });

      const pass = submissions.tick();
      // The submission is built and committed, then the send waits for the filing side's fsync.
      await vi.waitFor(() => expect(fsyncControl.held.length).toBe(2));
      expect(await settled(pass)).toBe(false);
      expect(emu.aeat.ledger.records(t.nifEmisor)).toHaveLength(0);
      expect(await settled(answer)).toBe(false);

      fsyncControl.hold = false;
      releaseHeld();
      expect(await pass).toBe(1);
      expect(emu.aeat.ledger.records(t.nifEmisor)).toHaveLength(1);
      expect((await answer).statusCode).toBe(200);
      expect(filingDb.sqlite.prepare("SELECT estadoEnvioFinal FROM registros").get()).toEqual({ estadoEnvioFinal: 'registrada' });
    } finally {
      fsyncControl.hold = false;
      releaseHeld();
      await submissions.stop();
      await filingDb.close();
      await t.close();
    }
  });

  it('its own commits keep synchronous=FULL outside its write turns', async () => {
    const t = await makeTestEngine({ clock });
    const filingDb = new Database(t.engine.context.db.file, { otherWriters: true });
    try {
      expect(filingDb.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      await filingDb.close();
      await t.close();
    }
  });
});
