// Issue 27: two nodes' filing workers on one PostgreSQL (in one process, driven by hand). A queue
// or a webhook another node holds is left alone; once free, either node files or delivers it; and
// TiempoEsperaEnvio runs from the answer whichever node received it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import { workOwnershipOf } from '../../../engine/src/db/work-ownership';
import { createEngine, type Engine } from '../../../engine/src/index';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { startTestEmulators } from '../../support/emulators';
import { migratedDataDir, testEngineConfig } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';
import { startReceiver, type Receiver } from '../../support/webhook-receiver';

const NIF = 'B12345674';
const clock = new ManualClock('2026-11-20T10:00:00.000Z');
let emu: Awaited<ReturnType<typeof startTestEmulators>>;
let a: Engine;
let b: Engine;
let key: string;
let rx: Receiver;

beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: 60 });
  rx = await startReceiver();
  const url = freshPostgresUrl();
  const start = () =>
    createEngine(testEngineConfig(migratedDataDir(), { databaseUrl: url, clock, submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl } } } }));
  a = await start();
  b = await start();
  key = seedDemoAccount(a.context)!.test;
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await emu?.close();
  await rx?.close();
});

let numero = 0;
async function issue(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const payload = aFacturaF2({ cabecera: { numero: String(++numero), fechaExpedicion: '20-11-2026' } }) as object;
    const res = await a.apps.billing.inject({ method: 'POST', url: '/v1/verifactu/crear', headers: { 'x-api-key': key }, payload });
    expect(res.statusCode).toBe(200);
  }
}

/** The node's submission worker, driven by hand (an in-process engine has it; one on the filing thread would not). */
function submissionsOf(engine: Engine) {
  const worker = engine.context.submissions as Engine['context']['submissions'] | undefined;
  if (worker === undefined) throw new Error('this engine files on its filing thread');
  return worker;
}

function deliveriesOf(engine: Engine) {
  const worker = engine.context.webhookDeliveries as Engine['context']['webhookDeliveries'] | undefined;
  if (worker === undefined) throw new Error('this engine delivers on its filing thread');
  return worker;
}

const jobs = () => Number((a.context.db.statement('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number }).n);

describe('submission queues across two nodes', () => {
  it('a queue another node drives is left alone; once it is free, this node files it', async () => {
    await issue(3);
    const { queueKey } = a.context.db.statement('SELECT DISTINCT queueKey FROM submission_jobs').get() as { queueKey: string };
    const ownershipOfB = workOwnershipOf(b.context.db);
    expect(ownershipOfB.tryTake('submission-queue', queueKey)).toBe(true);
    await submissionsOf(a).drainDue();
    expect(emu.aeat.ledger.submissions()).toHaveLength(0);
    expect(jobs()).toBe(3);
    ownershipOfB.release('submission-queue', queueKey);
    await submissionsOf(a).drainDue();
    expect(emu.aeat.ledger.countRecords(NIF)).toBe(3);
    expect(jobs()).toBe(0);
  });

  it('TiempoEsperaEnvio runs from the answer one node received: the other node waits it out too', async () => {
    await issue(2);
    clock.advance(30_000);
    // B never saw the answer A received (60 s to wait): it reads the queue's state from the database.
    await submissionsOf(b).drainDue();
    expect(emu.aeat.ledger.countRecords(NIF)).toBe(3);
    clock.advance(31_000);
    await submissionsOf(b).drainDue();
    expect(emu.aeat.ledger.countRecords(NIF)).toBe(5);
    expect(emu.aeat.ledger.flowViolations(NIF)).toEqual([]);
    expect(emu.aeat.ledger.duplicatesReceived()).toEqual([]);
  });

  it('a webhook another node delivers to is left alone by this one; once it is free, this node delivers', async () => {
    const manage = (url: string, payload: unknown) =>
      a.apps.manage.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload: payload as object });
    const created = await manage('/v1/webhooks', { nombre: 'nodos', url: `${rx.url}/nodos`, secreto: 'secreto-de-los-nodos-0001', eventos: ['factura.registrada', 'factura.rechazada'] });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const idWebhook = (created.json() as { webhook: { idWebhook: string } }).webhook.idWebhook;
    expect((await manage(`/v1/webhooks/${idWebhook}/clientes`, { clientes: [NIF] })).statusCode).toBeLessThan(300);
    await issue(1);
    clock.advance(61_000);
    await submissionsOf(a).drainDue();
    expect(emu.aeat.ledger.countRecords(NIF)).toBe(6);

    const ownershipOfB = workOwnershipOf(b.context.db);
    expect(ownershipOfB.tryTake('webhook', idWebhook)).toBe(true);
    await deliveriesOf(a).drainDue();
    const pending = () => Number((a.context.db.statement("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE estado = 'pendiente'").get() as { n: number }).n);
    // Fanned out (the events of all six records), none sent: B holds the webhook.
    expect(pending()).toBe(6);
    expect(rx.received).toHaveLength(0);
    ownershipOfB.release('webhook', idWebhook);
    await deliveriesOf(a).drainDue();
    expect(pending()).toBe(0);
    expect(new Set(rx.received.map((d) => d.json.idEntrega)).size).toBe(6);
  });
});
