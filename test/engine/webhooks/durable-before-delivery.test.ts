// The filing thread commits its write turns with synchronous=NORMAL, on disk with the next fsync
// of the WAL (engine/src/filing/lazy-sync-turns.ts). A webhook delivery tells a receiver about a final verdict:
// it must never leave before the commits it rests on are on disk. The worker runs here on a
// second connection like the filing thread's, so fs.fsync can be held (the technique of
// test/engine/filing/durable-before-send.test.ts).
import type * as NodeFs from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { releaseHeldFsyncs } from '../../support/holdable-fsync';
import { insertAccountRow, insertActiveWebhookRows } from '../../fixtures/webhook-rows';

const fsyncControl = vi.hoisted(() => ({ calls: 0, held: [] as (() => void)[], hold: false }));

vi.mock('node:fs', async (importOriginal) => {
  const { withHoldableFsync } = await import('../../support/holdable-fsync');
  return withHoldableFsync(await importOriginal<typeof NodeFs>(), fsyncControl);
});

const { SqliteDatabase: Database } = await import('../../../engine/src/db/database');
const { afterPendingEvents } = await import('../../../engine/src/db/write-priority');
const { LazySyncTurns } = await import('../../../engine/src/filing/lazy-sync-turns');
const { ManualClock } = await import('../../../engine/src/platform/clock');
const { silentLogger } = await import('../../../engine/src/platform/logger');
const { DEFAULT_WEBHOOK_DELIVERY } = await import('../../../engine/src/webhooks/config');
const { WebhookDeliveryWorker } = await import('../../../engine/src/webhooks/delivery-worker');
const { startReceiver } = await import('../../support/webhook-receiver');

let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

const releaseHeld = () => {
  releaseHeldFsyncs(fsyncControl);
};

describe('A webhook delivery from the filing connection', () => {
  it('reaches its receiver only once the WAL holding its event and delivery has been fsynced', async () => {
    const engineDb = Database.open(mkdtempSync(path.join(tmpdir(), 'durable-before-delivery-')));
    await engineDb.migrate();
    insertAccountRow(engineDb.sqlite);
    insertActiveWebhookRows(engineDb.sqlite, `${rx.url}/hook`);
    engineDb.sqlite.pragma('foreign_keys = OFF');
    engineDb.sqlite.exec(`INSERT INTO events VALUES ('ev_1', 'factura.registrada', 'a', 'test', 'B12345674', 'inv_1', 'reg_1', '{"idFactura":"inv_1"}', 't')`);
    const filingDb = new Database(engineDb.file, { otherWriters: true });
    const worker = new WebhookDeliveryWorker(
      filingDb,
      new ManualClock('2026-11-20T10:00:00.000Z'),
      silentLogger,
      { ...DEFAULT_WEBHOOK_DELIVERY, timeoutMs: 2000 },
      new LazySyncTurns(filingDb, afterPendingEvents),
    );
    try {
      fsyncControl.hold = true;
      const pass = worker.tick();
      await vi.waitFor(() => expect(fsyncControl.held.length).toBeGreaterThan(0));
      await new Promise((r) => setTimeout(r, 100));
      expect(rx.received).toHaveLength(0);

      fsyncControl.hold = false;
      releaseHeld();
      expect(await pass).toBe(2);
      expect(rx.received).toHaveLength(1);
      expect(engineDb.sqlite.prepare('SELECT estado FROM webhook_deliveries').all()).toEqual([{ estado: 'entregada' }]);
    } finally {
      fsyncControl.hold = false;
      releaseHeld();
      await worker.stop();
      await filingDb.close();
      await engineDb.close();
    }
  });
});
