import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { killMidLoad } from '../../support/engine-child';
import { expectedIdEntrega, signatureValid, startReceiver, type Receiver } from '../../support/webhook-receiver';
import { invalidAeatRepliesIn } from '../../support/xsd';
import { aTicketDemo } from '../../fixtures/verifactu';

interface Info {
  billing: string;
  manage: string;
  key: string;
  nif: string;
}
const root = path.resolve(import.meta.dirname, '../../..');
const SECRETO = 'secreto-de-la-prueba-de-caida';
let emu: Emulators;
let rx: Receiver;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
  rx = await startReceiver();
  // Slow answers keep deliveries in flight when the engine is killed.
  rx.answer = () => ({ status: 200, delayMs: 20 + Math.floor(Math.random() * 60) });
});
afterAll(async () => {
  await emu.close();
  await rx.close();
});

async function startEngine(dataDir: string): Promise<{ child: ChildProcess; info: Info }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/engine-process.ts'), dataDir, emu.aeatUrl], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`engine exited ${code}`)));
  });
  return { child, info: JSON.parse(line) as Info };
}

function ticket(nif: string, numero: string) {
  return JSON.stringify(aTicketDemo(nif, 'H', numero, 'Ticket'));
}

async function api(info: Info, method: string, url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${info.manage}${url}`, {
    method,
    headers: { 'x-api-key': info.key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

describe('The engine killed with SIGKILL during deliveries, 5 times', () => {
  it('after restart every event is delivered at least once, none is lost, each fanned out once, every signature valid', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'webhook-crash-'));
    let counter = 0;
    let idWebhook = '';
    let undeliveredAtKill = 0;
    for (let round = 0; round < 5; round++) {
      const { child, info } = await startEngine(dataDir);
      if (round === 0) {
        const created = await api(info, 'POST', '/v1/webhooks', { nombre: 'caída', url: `${rx.url}/hook`, secreto: SECRETO });
        idWebhook = (created.webhook as { idWebhook: string }).idWebhook;
        await api(info, 'POST', `/v1/webhooks/${idWebhook}/clientes`, { clientes: [info.nif] });
      }
      let sending = true;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const load = (async () => {
        while (sending) {
          await Promise.all(
            Array.from({ length: 10 }, async () => {
              try {
                await fetch(`${info.billing}/v1/verifactu/crear`, {
                  method: 'POST',
                  headers: { 'x-api-key': info.key, 'content-type': 'application/json' },
                  body: ticket(info.nif, String(counter++)),
                });
              } catch {
                // The engine died under this request.
              }
            }),
          );
        }
      })();
      await killMidLoad(child, exited, { minMs: 500, spreadMs: 700 }, async () => {
        sending = false;
        await load;
      });
      // What the killed engine left on disk: events not yet delivered (pending deliveries, or events
      // not fanned out yet). The last kill must have hit with some, or the restart proves nothing.
      const left = new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
      undeliveredAtKill = (
        left.prepare("SELECT (SELECT COUNT(*) FROM events) - (SELECT COUNT(*) FROM webhook_deliveries WHERE estado = 'entregada') AS n").get() as { n: number }
      ).n;
      left.close();
    }
    expect(undeliveredAtKill, 'the last kill hit with no delivery pending').toBeGreaterThan(0);

    // Last start, no load: let submissions and deliveries drain (the receiver answers at once now).
    rx.answer = () => ({ status: 200 });
    const { child } = await startEngine(dataDir);
    const db = new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
    const pending = () =>
      (db.prepare('SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NULL').get() as { n: number }).n +
      (db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE estado = 'pendiente'").get() as { n: number }).n +
      (db.prepare('SELECT COUNT(*) AS n FROM events WHERE rowid > (SELECT CAST(value AS INTEGER) FROM settings WHERE key = ?)').get('webhookEventCursor') as { n: number }).n;
    for (let i = 0; i < 300 && pending() > 0; i++) await new Promise((r) => setTimeout(r, 100));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;

    const events = db.prepare('SELECT registroId, evento FROM events').all() as { registroId: string; evento: string }[];
    expect(events.length).toBeGreaterThan(20);
    const expected = new Set(events.map((e) => expectedIdEntrega(idWebhook, e.registroId, e.evento)));
    const received = new Set(rx.received.map((r) => r.json.idEntrega));
    for (const id of expected) expect(received.has(id), `delivery ${id} lost`).toBe(true);
    expect(received.size).toBe(expected.size);
    for (const r of rx.received) expect(signatureValid(r.raw, r.headers['x-service-signature'], SECRETO)).toBe(true);
    // A redelivery after a crash is the same delivery, byte for byte.
    const bodies = new Map<string, Buffer>();
    for (const r of rx.received) {
      const first = bodies.get(r.json.idEntrega);
      if (first) expect(r.raw.equals(first)).toBe(true);
      else bodies.set(r.json.idEntrega, r.raw);
    }
    const deliveries = db.prepare("SELECT COUNT(*) AS n, SUM(estado = 'entregada') AS ok FROM webhook_deliveries").get() as { n: number; ok: number };
    expect(deliveries).toEqual({ n: events.length, ok: events.length });
    db.close();
    expect(await invalidAeatRepliesIn(dataDir)).toEqual([]);
  }, 180_000);
});
