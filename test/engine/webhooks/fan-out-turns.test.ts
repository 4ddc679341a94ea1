// The webhook fan-out takes write turns like the submission worker (on the filing thread: after
// issuing's commits), one chunk of events per turn, and none when there is nothing new; with no
// active webhook it moves its cursor past the events without delivering any.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';
import type { WriteTurns } from '../../../engine/src/db/write-priority';
import { ManualClock } from '../../../engine/src/platform/clock';
import { silentLogger } from '../../../engine/src/platform/logger';
import { DEFAULT_WEBHOOK_DELIVERY } from '../../../engine/src/webhooks/config';
import { WebhookDeliveryWorker } from '../../../engine/src/webhooks/delivery-worker';
import { insertAccountRow, insertActiveWebhookRows } from '../../fixtures/webhook-rows';

let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

/** Turns that count how many write transactions were asked for, and run each at once. */
function countingTurns() {
  const turns = {
    taken: 0,
    take<T>(transaction: () => T): Promise<T> {
      turns.taken += 1;
      return Promise.resolve(transaction());
    },
  };
  return turns satisfies WriteTurns;
}

/** A webhook worker whose write turns are counted. */
function countingWorker(on: Database) {
  const turns = countingTurns();
  return { turns, worker: new WebhookDeliveryWorker(on, new ManualClock('2026-11-20T10:00:00.000Z'), silentLogger, DEFAULT_WEBHOOK_DELIVERY, turns) };
}

async function engineDb(): Promise<Database> {
  db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'fan-out-turns-')));
  await db.migrate();
  insertAccountRow(db.sqlite);
  return db;
}

/** `n` final-verdict events of the issuer (their invoices and records are beside the point here). */
function addEvents(db: Database, n: number, from: number): void {
  db.sqlite.pragma('foreign_keys = OFF');
  const insert = db.sqlite.prepare("INSERT INTO events VALUES (?, 'factura.registrada', 'a', 'test', 'B12345674', ?, ?, '{}', 't')");
  db.transaction(() => {
    for (let i = from; i < from + n; i++) insert.run(`ev_${i}`, `inv_${i}`, `reg_${i}`);
  });
  db.sqlite.pragma('foreign_keys = ON');
}

const cursor = (db: Database) => Number((db.sqlite.prepare("SELECT value FROM settings WHERE key = 'webhookEventCursor'").get() as { value: string } | undefined)?.value ?? 0);
const deliveries = (db: Database) => (db.sqlite.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get() as { n: number }).n;

describe('Webhook fan-out in write turns', () => {
  it('with no active webhook, one turn moves the cursor past every event; with nothing new, no turn at all', async () => {
    const db = await engineDb();
    const { worker, turns } = countingWorker(db);
    addEvents(db, 600, 0);
    expect(await worker.fanOut()).toBe(0);
    expect(turns.taken).toBe(1);
    expect(cursor(db)).toBe(600);
    expect(await worker.fanOut()).toBe(0);
    expect(turns.taken).toBe(1);
    expect(deliveries(db)).toBe(0);
  });

  it('with an active webhook, one delivery per event, a chunk of events per turn, the cursor at the last event', async () => {
    const db = await engineDb();
    insertActiveWebhookRows(db.sqlite, 'https://x.example.com');
    const { worker, turns } = countingWorker(db);
    addEvents(db, 600, 0);
    expect(await worker.fanOut()).toBe(600);
    expect(turns.taken).toBeGreaterThan(1);
    expect(cursor(db)).toBe(600);
    expect(deliveries(db)).toBe(600);
    const taken = turns.taken;
    expect(await worker.fanOut()).toBe(0);
    expect(turns.taken).toBe(taken);

    // Suspended: events after it go to no one, and the cursor still moves on.
    db.sqlite.exec("UPDATE webhooks SET estado = 'suspendido'");
    addEvents(db, 10, 600);
    expect(await worker.fanOut()).toBe(0);
    expect(cursor(db)).toBe(610);
    expect(deliveries(db)).toBe(600);
  });
});
