// Stopping the engine cuts a delivery on the wire without counting it; the next start sends the
// same delivery again.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine } from '../../support/engine';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { startReceiver, type Receiver } from '../../support/webhook-receiver';

let emu: Emulators;
let rx: Receiver;
const clock = new ManualClock('2026-11-20T10:00:00.000Z');

beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: 60 });
  rx = await startReceiver();
});
afterAll(async () => {
  await emu.close();
  await rx.close();
});

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Engine stop during a delivery: quick, nothing counted, the delivery survives the restart', () => {
  it('stop() does not wait for a hanging receiver; after restart the same idEntrega is delivered', async () => {
    const submission = { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl } } };
    const t = await makeTestEngine({ clock, submission, webhooks: { pollMs: 10 } });
    const created = await t.manage('POST', '/v1/webhooks', { body: { nombre: 'n', url: `${rx.url}/h`, secreto: 'secreto-de-apagado-00' } });
    const id = created.json().webhook.idWebhook as string;
    await t.manage('POST', `/v1/webhooks/${id}/clientes`, { body: { clientes: [t.nifEmisor] } });
    rx.answer = () => ({ status: 200, delayMs: 8_000 });
    const res = await t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie: 'Z', numero: '1', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    expect(res.statusCode).toBe(200);
    await t.engine.context.submissions.drainDue();
    await t.engine.start();
    await until(() => rx.received.length === 1);

    const started = Date.now();
    await t.close({ keepData: true });
    expect(Date.now() - started).toBeLessThan(2_000);

    const again = await makeTestEngine({ clock, submission, dataDir: t.dataDir, ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}), seed: false });
    const row = again.engine.context.db.statement('SELECT id, estado, intentos FROM webhook_deliveries').get() as { id: string; estado: string; intentos: number };
    expect(row).toMatchObject({ estado: 'pendiente', intentos: 0 });
    expect(again.engine.context.db.statement('SELECT COUNT(*) AS n FROM webhook_delivery_attempts').get()).toEqual({ n: 0 });
    rx.answer = () => ({ status: 200 });
    await again.engine.context.webhookDeliveries.drainDue();
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]!.raw.equals(rx.received[0]!.raw)).toBe(true);
    expect(rx.received[1]!.json.idEntrega).toBe(row.id);
    expect(again.engine.context.db.statement('SELECT estado, intentos FROM webhook_deliveries').get()).toEqual({ estado: 'entregada', intentos: 1 });
    await again.close();
    rmSync(t.dataDir, { recursive: true, force: true });
  });
});
