// Signed at-least-once delivery (spec "Events"), against a real local HTTP receiver and the AEAT
// emulator: invoices reach their final verdict through the submission worker, the webhook worker
// turns the events into deliveries.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { panelEntregasResponse, webhookEntregaSchema } from '../../../src-shared/api/webhooks';
import { resolveConfig } from '../../../engine/src/config';
import { ManualClock } from '../../../engine/src/platform/clock';
import { DEFAULT_WEBHOOK_DELIVERY } from '../../../engine/src/webhooks/config';
import { aFacturaF2 } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import { signatureValid, type Receiver } from '../../support/webhook-receiver';
import { aTicketTbai } from '../../fixtures/ticketbai';
import type { Emulators } from '../../support/emulators';
import { useDeliveryRig } from './helpers';

let t: TestEngine;
let emu: Emulators;
let rx: Receiver;
const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const SECRETO = 'secreto-del-receptor-0001';

useDeliveryRig({
  clock,
  onStart: (rig) => {
    ({ t, emu, rx } = rig);
  },
  // Each test starts with no webhook (the rig deletes them) and a receiver answering 200.
  afterEachTest: () => {
    rx.answer = () => ({ status: 200 });
  },
});

const ctx = () => t.engine.context;
const worker = () => ctx().webhookDeliveries;
let serial = 0;

const ticket = (numero: string) =>
  aFacturaF2({ cabecera: { serie: 'W', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } });

async function issue(n = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.billing('POST', '/v1/verifactu/crear', { body: ticket(`${++serial}`) });
    expect(res.statusCode, res.body).toBe(200);
    ids.push(res.json().idFactura);
  }
  return ids;
}

/** Runs the submission worker, moving time past each TiempoEsperaEnvio, until nothing waits. */
async function fileEverything(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await ctx().submissions.drainDue();
    const waiting = ctx().db.statement('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number };
    if (waiting.n === 0) return;
    clock.advance(61_000);
  }
  throw new Error('submission did not finish');
}

async function createWebhook(o: { path: string; secreto?: string; eventos?: string[]; prefijoCabeceras?: string; link?: boolean }) {
  const res = await t.manage('POST', '/v1/webhooks', {
    body: {
      nombre: o.path,
      url: `${rx.url}${o.path}`,
      secreto: o.secreto ?? SECRETO,
      ...(o.eventos ? { eventos: o.eventos } : {}),
      ...(o.prefijoCabeceras ? { prefijoCabeceras: o.prefijoCabeceras } : {}),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().webhook.idWebhook as string;
  if (o.link !== false) {
    const link = await t.manage('POST', `/v1/webhooks/${id}/clientes`, { body: { clientes: [NIF] } });
    expect(link.statusCode).toBe(200);
  }
  return id;
}

const detail = async (id: string) => (await t.manage('GET', `/v1/webhooks/${id}`)).json().webhook;
const panel = (url: string) => t.panel('GET', url);
const deliveriesOf = (id: string) =>
  ctx().db.statement('SELECT * FROM webhook_deliveries WHERE webhookId = ? ORDER BY creadoEn, id').all(id) as {
    id: string;
    estado: string;
    intentos: number;
    evento: string;
    ultimoCodigo: number | null;
    ultimoError: string | null;
  }[];

/** RFC 4122 §4.3 computed here, independently of the engine. */
function uuid5(name: string, namespace: string): string {
  const h = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

describe('A delivery: POST with the spec’s headers, a body per the Events section, signed over the raw bytes', () => {
  it('factura.registrada arrives once, verifiable with the secreto over the raw body and not after re-serialization', async () => {
    const id = await createWebhook({ path: '/firma' });
    const [idFactura] = await issue();
    await fileEverything();
    await worker().drainDue();
    expect(rx.received).toHaveLength(1);
    const d = rx.received[0]!;
    // The check a receiver makes, before parsing.
    expect(signatureValid(d.raw, d.headers['x-service-signature'], SECRETO)).toBe(true);
    expect(signatureValid(d.raw, d.headers['x-service-signature'], 'otro-secreto-cualquiera')).toBe(false);
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(d.raw.toString('utf8')), null, 2));
    expect(signatureValid(reserialized, d.headers['x-service-signature'], SECRETO)).toBe(false);

    const body = webhookEntregaSchema.parse(JSON.parse(d.raw.toString('utf8')));
    expect(d.headers['content-type']).toBe('application/json');
    expect(d.headers['user-agent']).toBe('ServiceWebhooks/1.0');
    expect(d.headers['x-service-event']).toBe(body.evento);
    expect(d.headers['x-service-delivery-id']).toBe(body.idEntrega);
    expect(d.headers['idempotency-key']).toBe(body.idEntrega);
    expect(d.headers['x-service-timestamp']).toBe(body.timestamp);
    expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.evento).toBe('factura.registrada');
    expect(body.datos).toMatchObject({
      sistemaFiscal: 'verifactu',
      nifEmisor: NIF,
      idFactura,
      numeroFactura: expect.any(String),
      tipoFactura: 'F2',
      importeTotal: expect.stringMatching(/^\d+\.\d{2}$/),
      cuotaTotal: expect.stringMatching(/^\d+\.\d{2}$/),
      estadoFactura: 'registrada',
      fechaRegistro: expect.any(String),
      csvAeat: expect.stringMatching(/^A-/),
      hashVerifactu: expect.stringMatching(/^[0-9A-F]{64}$/),
    });
    expect(body.datos).not.toHaveProperty('motivoRechazo');
    // Deterministic: a UUIDv5 of (webhook, record, event), never random.
    const event = ctx().db.statement('SELECT registroId FROM events WHERE invoiceId = ?').get(idFactura) as { registroId: string };
    expect(body.idEntrega).toBe(uuid5(`${id}\n${event.registroId}\nfactura.registrada`, '3f8e2a61-5c0d-4b7e-9a14-6d2f0c8b7e53'));
    expect(deliveriesOf(id)).toMatchObject([{ estado: 'entregada', intentos: 1 }]);
    // Nothing more to send.
    clock.advance(3_600_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(1);
  });

  it('a configured header prefix replaces X-Service- in the four headers', async () => {
    await createWebhook({ path: '/prefijo', prefijoCabeceras: 'X-Acme-' });
    await issue();
    await fileEverything();
    await worker().drainDue();
    const d = rx.received[0]!;
    expect(d.headers['x-acme-event']).toBe('factura.registrada');
    expect(d.headers['x-acme-delivery-id']).toBe(d.json.idEntrega);
    expect(d.headers['x-acme-timestamp']).toBe(d.json.timestamp);
    expect(signatureValid(d.raw, d.headers['x-acme-signature'], SECRETO)).toBe(true);
    expect(d.headers['idempotency-key']).toBe(d.json.idEntrega);
    expect(d.headers['x-service-event']).toBeUndefined();
  });
});

describe('Rule 2 and 6: every retry carries the same idEntrega, a byte-identical body and so the same signature', () => {
  it('500, 503, then 200: three attempts with exponential back-off, identical bytes; the log shows each', async () => {
    const id = await createWebhook({ path: '/reintentos' });
    const answers = [500, 503, 200];
    rx.answer = () => ({ status: answers.shift() ?? 200 });
    await issue();
    await fileEverything();
    await worker().drainDue();
    expect(rx.received).toHaveLength(1);
    expect(await detail(id)).toMatchObject({ fallosConsecutivos: 1, estado: 'activo' });
    clock.advance(29_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(1); // not before the first wait (30 s)
    clock.advance(1_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(2);
    clock.advance(119_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(2); // the second wait is longer (2 min)
    clock.advance(1_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(3);
    const [a, b, c] = rx.received as [typeof rx.received[0], typeof rx.received[0], typeof rx.received[0]];
    for (const r of [b, c]) {
      expect(r.raw.equals(a.raw)).toBe(true);
      for (const h of ['x-service-delivery-id', 'idempotency-key', 'x-service-signature', 'x-service-timestamp', 'x-service-event']) {
        expect(r.headers[h], h).toBe(a.headers[h]);
      }
    }
    expect(await detail(id)).toMatchObject({ fallosConsecutivos: 0 });
    const log = panelEntregasResponse.parse((await panel(`/panel/v1/webhooks/${id}/entregas`)).json());
    expect(log.entregas).toHaveLength(1);
    expect(log.entregas[0]).toMatchObject({ idEntrega: a.json.idEntrega, estado: 'entregada', intentos: 3, ultimoCodigo: 200 });
    expect(log.entregas[0]!.registroIntentos.map((i) => [i.intento, i.codigoHttp, i.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 503, 'HTTP 503'],
      [3, 200, undefined],
    ]);
    for (const i of log.entregas[0]!.registroIntentos) expect(i.latenciaMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(log)).not.toContain(SECRETO);
  });

  it('at most 3 retries: after 4 failed attempts the delivery is fallida and nothing more is sent', async () => {
    const id = await createWebhook({ path: '/siempre-500' });
    rx.answer = () => ({ status: 500 });
    await issue();
    await fileEverything();
    for (let i = 0; i < 6; i++) {
      await worker().drainDue();
      clock.advance(10 * 60_000);
    }
    expect(rx.received).toHaveLength(4);
    expect(new Set(rx.received.map((r) => r.headers['x-service-delivery-id'])).size).toBe(1);
    expect(deliveriesOf(id)).toMatchObject([{ estado: 'fallida', intentos: 4 }]);
    expect(await detail(id)).toMatchObject({ estado: 'activo', fallosConsecutivos: 4 });
  });

  it('an answer after the time-out counts as a failure, and the retry is the same delivery', async () => {
    const id = await createWebhook({ path: '/lento' });
    let first = true;
    rx.answer = () => {
      const slow = first;
      first = false;
      return { status: 200, delayMs: slow ? 1_500 : 0 };
    };
    await issue();
    await fileEverything();
    await worker().drainDue();
    const [entrega] = deliveriesOf(id);
    expect(entrega).toMatchObject({ estado: 'pendiente', ultimoCodigo: null });
    expect(entrega!.ultimoError).toMatch(/sin respuesta en 400 ms/);
    clock.advance(30_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]!.raw.equals(rx.received[0]!.raw)).toBe(true);
    expect(deliveriesOf(id)).toMatchObject([{ estado: 'entregada', intentos: 2 }]);
  });

  it('a PATCH of url and secreto reaches the pending retry: same idEntrega and body, new address, new signature', async () => {
    const id = await createWebhook({ path: '/viejo' });
    rx.answer = (r) => ({ status: r.path === '/viejo' ? 500 : 200 });
    await issue();
    await fileEverything();
    await worker().drainDue();
    const patched = await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { url: `${rx.url}/nuevo`, secreto: 'secreto-rotado-000000001' } });
    expect(patched.statusCode).toBe(200);
    clock.advance(30_000);
    await worker().drainDue();
    const [old, fresh] = [rx.byPath('/viejo'), rx.byPath('/nuevo')];
    expect([old.length, fresh.length]).toEqual([1, 1]);
    expect(fresh[0]!.raw.equals(old[0]!.raw)).toBe(true);
    expect(fresh[0]!.headers['x-service-delivery-id']).toBe(old[0]!.headers['x-service-delivery-id']);
    expect(signatureValid(fresh[0]!.raw, fresh[0]!.headers['x-service-signature'], 'secreto-rotado-000000001')).toBe(true);
  });
});

describe('Rule 3: two webhooks linked to the same issuer each get their own delivery, even for the same URL', () => {
  it('two deliveries with different identifiers, each signed with its own secreto', async () => {
    const a = await createWebhook({ path: '/mismo', secreto: 'secreto-del-primero-0001' });
    const b = await createWebhook({ path: '/mismo', secreto: 'secreto-del-segundo-0002' });
    await issue();
    await fileEverything();
    await worker().drainDue();
    const got = rx.byPath('/mismo');
    expect(got).toHaveLength(2);
    const ids = got.map((r) => r.json.idEntrega);
    expect(new Set(ids).size).toBe(2);
    expect(ids.sort()).toEqual([deliveriesOf(a)[0]!.id, deliveriesOf(b)[0]!.id].sort());
    const bySecret = got.map((r) =>
      signatureValid(r.raw, r.headers['x-service-signature'], 'secreto-del-primero-0001') ? 'a' : signatureValid(r.raw, r.headers['x-service-signature'], 'secreto-del-segundo-0002') ? 'b' : '?',
    );
    expect(bySecret.sort()).toEqual(['a', 'b']);
    expect(got[0]!.json.datos.idFactura).toBe(got[1]!.json.datos.idFactura);
  });

  it('an unlinked webhook and a webhook linked to another account’s issuer get nothing', async () => {
    await createWebhook({ path: '/sin-vincular', link: false });
    const c = ctx();
    const otherKey = c.db.transaction(() => {
      const acc = c.accounts.createAccount({ nif: 'B87654323', nombre: 'OTRA SL', plan: 'empresa' });
      c.issuers.create({ accountId: acc.id, entorno: 'test', nif: acc.nif, nombre: acc.nombre, hacienda: 'verifactu' });
      return c.accounts.createKey(acc.id, 'test').rawKey;
    });
    const theirs = await t.manage('POST', '/v1/webhooks', { key: otherKey, body: { nombre: 'ajeno', url: `${rx.url}/ajeno`, secreto: SECRETO } });
    await t.manage('POST', `/v1/webhooks/${theirs.json().webhook.idWebhook}/clientes`, { key: otherKey, body: { clientes: ['B87654323'] } });
    await issue();
    await fileEverything();
    await worker().drainDue();
    expect(rx.received).toHaveLength(0);
    await t.manage('DELETE', `/v1/webhooks/${theirs.json().webhook.idWebhook}`, { key: otherKey });
  });
});

describe('Rule 4: an invoice rejected and later registered after a correction produces two deliveries', () => {
  it('factura.rechazada (motivoRechazo, tipoRegistro) then factura.registrada, with different identifiers; a webhook subscribed only to rechazada gets one', async () => {
    await createWebhook({ path: '/todo' });
    await createWebhook({ path: '/solo-rechazos', eventos: ['factura.rechazada'] });
    emu.aeat.faults.set({ rejectNext: { count: 1, codigo: 1108 } });
    const numero = `${++serial}`;
    const res = await t.billing('POST', '/v1/verifactu/crear', { body: ticket(numero) });
    const idFactura = res.json().idFactura as string;
    await fileEverything();
    await worker().drainDue();
    const fix = await t.billing('PUT', '/v1/verifactu/subsanar', { body: { ...ticket(numero), subsanacion: true } });
    expect(fix.statusCode, fix.body).toBe(200);
    await fileEverything();
    await worker().drainDue();

    const all = rx.byPath('/todo');
    expect(all.map((r) => r.json.evento)).toEqual(['factura.rechazada', 'factura.registrada']);
    expect(all[0]!.json.idEntrega).not.toBe(all[1]!.json.idEntrega);
    expect(all.every((r) => r.json.datos.idFactura === idFactura)).toBe(true);
    expect(all[0]!.json.datos).toMatchObject({ estadoFactura: 'rechazada', tipoRegistro: 'alta', motivoRechazo: { codigo: '1108', descripcion: expect.any(String) } });
    expect(all[1]!.json.datos).toMatchObject({ estadoFactura: 'registrada' });
    const rejections = rx.byPath('/solo-rechazos');
    expect(rejections.map((r) => r.json.evento)).toEqual(['factura.rechazada']);
    expect(rejections[0]!.json.idEntrega).not.toBe(all[0]!.json.idEntrega);
  });
});

describe('Rule 7: after 20 consecutive failures the webhook is suspendido; PATCH estado: activo resets and deliveries resume', () => {
  // Decision (the spec is silent): events that arrive while a webhook is suspendido are not turned
  // into deliveries for it, not even after reactivation, so a receiver coming back is not flooded
  // with the backlog; the status endpoint stays the source of truth (Events rule 8). Deliveries
  // already pending when it was suspended do go out after reactivation.
  it('suspends at the 20th failure; events arriving while suspendido are never delivered (no flood at reactivation); pending deliveries resume', async () => {
    const id = await createWebhook({ path: '/caido' });
    let down = true;
    rx.answer = () => ({ status: down ? 500 : 204 });
    await issue(22);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received).toHaveLength(20);
    const suspended = await detail(id);
    expect(suspended).toMatchObject({ estado: 'suspendido', fallosConsecutivos: 20, suspendidoEn: clock.now().toISOString(), ultimoError: 'HTTP 500' });

    // Deliveries stop: no retries, and an event arriving now is not turned into a delivery.
    clock.advance(60 * 60_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(20);
    const before = deliveriesOf(id).length;
    const [whileSuspended] = await issue(1);
    await fileEverything();
    await worker().drainDue();
    expect(deliveriesOf(id).length).toBe(before);
    expect(rx.received).toHaveLength(20);

    // The endpoint is fixed; reactivation resets the counter and the pending deliveries go out.
    down = false;
    const on = await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { estado: 'activo' } });
    expect(on.json().webhook).toMatchObject({ estado: 'activo', fallosConsecutivos: 0 });
    await worker().drainDue();
    const delivered = deliveriesOf(id);
    expect(delivered).toHaveLength(22);
    expect(delivered.every((d) => d.estado === 'entregada')).toBe(true);
    expect(new Set(rx.received.map((r) => r.json.idEntrega)).size).toBe(22);
    // And new events are delivered again.
    await issue(1);
    await fileEverything();
    await worker().drainDue();
    expect(new Set(rx.received.map((r) => r.json.idEntrega)).size).toBe(23);
    expect(rx.received.some((r) => r.json.datos.idFactura === whileSuspended)).toBe(false);
    expect(await detail(id)).toMatchObject({ estado: 'activo', fallosConsecutivos: 0 });
  });

  it('a success in between resets the counter: failures must be consecutive', async () => {
    const id = await createWebhook({ path: '/intermitente' });
    let n = 0;
    rx.answer = () => ({ status: ++n % 10 === 0 ? 200 : 500 });
    await issue(25);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received).toHaveLength(25);
    expect(await detail(id)).toMatchObject({ estado: 'activo', fallosConsecutivos: 5 });
  });
});

describe('An inactivo webhook receives nothing', () => {
  // Decision, as for suspendido: events that arrive while inactivo are never turned into deliveries,
  // so reactivation does not flood the receiver with what happened meanwhile.
  it('events arriving while inactivo are never delivered, not even after PATCH activo; only later events arrive', async () => {
    const id = await createWebhook({ path: '/apagado' });
    await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { estado: 'inactivo' } });
    await issue(2);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received).toHaveLength(0);
    expect(deliveriesOf(id)).toHaveLength(0);
    await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { estado: 'activo' } });
    const [later] = await issue(1);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received.map((r) => r.json.datos.idFactura)).toEqual([later]);
  });

  it('deliveries pending when it goes inactivo wait, and go out when it is active again', async () => {
    const id = await createWebhook({ path: '/pausa' });
    rx.answer = () => ({ status: 500 });
    await issue(1);
    await fileEverything();
    await worker().drainDue();
    await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { estado: 'inactivo' } });
    clock.advance(60 * 60_000);
    await worker().drainDue();
    expect(rx.received).toHaveLength(1);
    rx.answer = () => ({ status: 200 });
    await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { estado: 'activo' } });
    await worker().drainDue();
    expect(rx.received).toHaveLength(2);
    expect(deliveriesOf(id)).toMatchObject([{ estado: 'entregada', intentos: 2 }]);
  });
});

describe('Fan-out is exactly once per (webhook, event)', () => {
  it('repeating the fan-out, even from a cursor moved back, creates no second delivery', async () => {
    const id = await createWebhook({ path: '/una-vez' });
    rx.answer = () => ({ status: 500 });
    await worker().fanOut();
    const cursor = worker().store.eventCursor();
    await issue(3);
    await fileEverything();
    expect(await worker().fanOut()).toBe(3);
    expect(await worker().fanOut()).toBe(0);
    expect(worker().store.eventCursor()).toBeGreaterThan(cursor);
    // As if the cursor had not been saved with the deliveries: the idEntrega key still holds.
    worker().store.setEventCursor(cursor);
    expect(await worker().fanOut()).toBe(0);
    expect(deliveriesOf(id)).toHaveLength(3);
  });
});

describe('Panel: the delivery log per webhook for support staff', () => {
  it('lists the install’s webhooks and, per webhook, deliveries with their attempts; needs the panel token', async () => {
    const id = await createWebhook({ path: '/log' });
    rx.answer = () => ({ status: 502 });
    await issue(2);
    await fileEverything();
    await worker().drainDue();
    const list = (await panel('/panel/v1/webhooks')).json();
    expect(list.webhooks.find((w: { idWebhook: string }) => w.idWebhook === id)).toMatchObject({ entorno: 'test', clientes: [NIF] });
    const log = panelEntregasResponse.parse((await panel(`/panel/v1/webhooks/${id}/entregas?estado=pendiente&limite=1`)).json());
    expect(log.entregas).toHaveLength(1);
    expect(log.entregas[0]).toMatchObject({ estado: 'pendiente', intentos: 1, ultimoCodigo: 502, ultimoError: 'HTTP 502', siguienteIntentoEn: expect.any(String) });
    expect(log.entregas[0]!.registroIntentos).toEqual([{ intento: 1, codigoHttp: 502, latenciaMs: expect.any(Number), error: 'HTTP 502', en: expect.any(String) }]);
    expect((await panel('/panel/v1/webhooks/wh_nope/entregas')).statusCode).toBe(404);
    const noToken = await t.engine.apps.panel.inject({ method: 'GET', url: `/panel/v1/webhooks/${id}/entregas` });
    expect(noToken.statusCode).toBe(401);
  });
});

describe('factura.anulada, and a rejected cancellation as factura.rechazada with tipoRegistro anulacion', () => {
  const anular = (numero: string) =>
    t.billing('POST', '/v1/verifactu/anular', { body: { version: '1.0', facturaAnulada: { nifEmisor: NIF, serie: 'W', numero, fechaExpedicion: '20-11-2026' } } });

  it('an accepted cancellation delivers factura.anulada with tipoRegistro anulacion, fechaRegistro and the cancellation record’s huella', async () => {
    await createWebhook({ path: '/anulada' });
    const numero = `${++serial}`;
    const idFactura = (await t.billing('POST', '/v1/verifactu/crear', { body: ticket(numero) })).json().idFactura as string;
    await fileEverything();
    await worker().drainDue();
    expect((await anular(numero)).statusCode).toBe(200);
    await fileEverything();
    await worker().drainDue();

    expect(rx.received.map((r) => r.json.evento)).toEqual(['factura.registrada', 'factura.anulada']);
    const [alta, anulada] = rx.received as [typeof rx.received[0], typeof rx.received[0]];
    expect(anulada.headers['x-service-event']).toBe('factura.anulada');
    expect(signatureValid(anulada.raw, anulada.headers['x-service-signature'], SECRETO)).toBe(true);
    const body = webhookEntregaSchema.parse(JSON.parse(anulada.raw.toString('utf8')));
    const registro = ctx().db.statement("SELECT huella, envioCompletadoEn FROM registros WHERE invoiceId = ? AND tipo = 'anulacion'").get(idFactura) as {
      huella: string;
      envioCompletadoEn: string;
    };
    expect(body.datos).toMatchObject({
      sistemaFiscal: 'verifactu',
      nifEmisor: NIF,
      idFactura,
      numeroFactura: alta.json.datos.numeroFactura,
      tipoFactura: 'F2',
      importeTotal: '12.10',
      cuotaTotal: '2.10',
      // The spec's values only ("registrada or rechazada"): the cancellation record was registered.
      estadoFactura: 'registrada',
      tipoRegistro: 'anulacion',
      fechaRegistro: registro.envioCompletadoEn,
      csvAeat: expect.stringMatching(/^A-/),
      hashVerifactu: registro.huella,
    });
    expect(body.datos.hashVerifactu).not.toBe(alta.json.datos.hashVerifactu);
    expect(body.datos).not.toHaveProperty('motivoRechazo');
    expect(body.idEntrega).not.toBe(alta.json.idEntrega);
  });

  it('a cancellation the authority rejects arrives as factura.rechazada with tipoRegistro anulacion and motivoRechazo; the invoice stays registrada', async () => {
    await createWebhook({ path: '/anulacion-rechazada' });
    const numero = `${++serial}`;
    const idFactura = (await t.billing('POST', '/v1/verifactu/crear', { body: ticket(numero) })).json().idFactura as string;
    await fileEverything();
    await worker().drainDue();
    emu.aeat.faults.set({ rejectNext: { count: 1, codigo: 1104 } });
    expect((await anular(numero)).statusCode).toBe(200);
    await fileEverything();
    await worker().drainDue();

    expect(rx.received.map((r) => r.json.evento)).toEqual(['factura.registrada', 'factura.rechazada']);
    const rechazo = webhookEntregaSchema.parse(JSON.parse(rx.received[1]!.raw.toString('utf8')));
    expect(rechazo.datos).toMatchObject({
      idFactura,
      estadoFactura: 'rechazada',
      tipoRegistro: 'anulacion',
      motivoRechazo: { codigo: '1104', descripcion: 'El valor del campo NumSerieFactura es incorrecto.' },
    });
    expect(rechazo.datos).not.toHaveProperty('fechaRegistro');
    // One reason from AEAT: RespuestaLinea holds a single CodigoErrorRegistro.
    expect(rechazo.datos.motivoRechazo).not.toHaveProperty('motivosAdicionales');
    expect((await t.billing('GET', `/v1/facturas/${idFactura}/estado?nifEmisor=${NIF}`)).json().estadoFactura).toBe('registrada');
  });
});

describe('A TicketBAI event reaches the receiver with the TicketBAI datos (provincia, idRegistroTbai)', () => {
  const TBAI_NIF = 'A58818501';
  beforeAll(() => {
    // The engine files with the emulators' TicketBAI services; a Gipuzkoa issuer of the demo account.
    const base = (p: string) => ({ test: `${emu.url}/tbai/${p}`, live: `${emu.url}/tbai/${p}` });
    Object.assign(ctx().config.ticketbai.endpoints.base, { araba: base('araba'), bizkaia: base('bizkaia'), gipuzkoa: base('gipuzkoa') });
    const account = ctx().accounts.listAccounts()[0]!;
    ctx().issuers.create({ accountId: account.id, entorno: 'test', nif: TBAI_NIF, nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
  });
  const tbai = (numero: string) => aTicketTbai('gipuzkoa', { nif: TBAI_NIF, nombre: 'EMISOR GIPUZKOA SL' }, 'W', numero);

  it('factura.registrada and factura.rechazada of a Gipuzkoa invoice, without the VeriFactu fields', async () => {
    const id = await createWebhook({ path: '/tbai', link: false });
    expect((await t.manage('POST', `/v1/webhooks/${id}/clientes`, { body: { clientes: [TBAI_NIF] } })).statusCode).toBe(200);
    const ok = await t.billing('POST', '/v1/ticketbai/crear', { body: tbai(`${++serial}`) });
    expect(ok.statusCode, ok.body).toBe(200);
    await fileEverything();
    // The fault hits the next record filed: set it once the first one is in.
    emu.tbai.faults.gipuzkoa.set({ rejectNext: { count: 1, codigo: '004' } });
    const ko = await t.billing('POST', '/v1/ticketbai/crear', { body: tbai(`${++serial}`) });
    expect(ko.statusCode, ko.body).toBe(200);
    await fileEverything();
    await worker().drainDue();

    const got = new Map(rx.byPath('/tbai').map((r) => [r.json.datos.idFactura, r]));
    expect(got.size).toBe(2);
    const registrada = got.get(ok.json().idFactura)!;
    expect(signatureValid(registrada.raw, registrada.headers['x-service-signature'], SECRETO)).toBe(true);
    const a = webhookEntregaSchema.parse(JSON.parse(registrada.raw.toString('utf8')));
    expect(a.evento).toBe('factura.registrada');
    expect(a.datos).toMatchObject({
      sistemaFiscal: 'ticketbai',
      nifEmisor: TBAI_NIF,
      idFactura: ok.json().idFactura,
      numeroFactura: expect.any(String),
      tipoFactura: 'F2',
      importeTotal: '12.10',
      cuotaTotal: '2.10',
      estadoFactura: 'registrada',
      fechaRegistro: expect.any(String),
      provincia: 'gipuzkoa',
      idRegistroTbai: expect.any(String),
    });
    expect(a.datos).not.toHaveProperty('csvAeat');
    expect(a.datos).not.toHaveProperty('hashVerifactu');
    const b = webhookEntregaSchema.parse(JSON.parse(got.get(ko.json().idFactura)!.raw.toString('utf8')));
    expect(b.evento).toBe('factura.rechazada');
    expect(b.datos).toMatchObject({ sistemaFiscal: 'ticketbai', provincia: 'gipuzkoa', estadoFactura: 'rechazada', tipoRegistro: 'alta', motivoRechazo: { codigo: '004' } });
    expect(b.datos).not.toHaveProperty('idRegistroTbai');
  });
});

describe('The subscription and the links decide what is delivered', () => {
  it('a PATCH of eventos on a linked webhook filters the deliveries from then on; eventos null brings all back', async () => {
    const id = await createWebhook({ path: '/filtro' });
    const patched = await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { eventos: ['factura.rechazada'] } });
    expect(patched.json().webhook.eventos).toEqual(['factura.rechazada']);
    const [accepted] = await issue(1);
    await fileEverything();
    // The fault hits the next record filed: set it once the first one is in.
    emu.aeat.faults.set({ rejectNext: { count: 1, codigo: 1104 } });
    const [rejected] = await issue(1);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received.map((r) => [r.json.evento, r.json.datos.idFactura])).toEqual([['factura.rechazada', rejected]]);
    // Filtered at fan-out: the registrada event left no delivery behind.
    expect(deliveriesOf(id).map((d) => d.evento)).toEqual(['factura.rechazada']);
    // The registrada event did happen; it was filtered out for this webhook.
    expect((await t.billing('GET', `/v1/facturas/${accepted}/estado?nifEmisor=${NIF}`)).json().estadoFactura).toBe('registrada');

    await t.manage('PATCH', `/v1/webhooks/${id}`, { body: { eventos: null } });
    const [later] = await issue(1);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received.map((r) => [r.json.evento, r.json.datos.idFactura])).toEqual([
      ['factura.rechazada', rejected],
      ['factura.registrada', later],
    ]);
  });

  it('unlinking the issuer (DELETE /v1/webhooks/{id}/clientes/{nif}) stops its deliveries; events while unlinked never arrive', async () => {
    const id = await createWebhook({ path: '/desvincular' });
    const [first] = await issue(1);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received.map((r) => r.json.datos.idFactura)).toEqual([first]);

    const unlinked = await t.manage('DELETE', `/v1/webhooks/${id}/clientes/${NIF}`);
    expect(unlinked.json()).toEqual({ idWebhook: id, clientes: [] });
    await issue(2);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received).toHaveLength(1);
    expect(deliveriesOf(id)).toHaveLength(1);

    // Linked again: only what happens from then on.
    await t.manage('POST', `/v1/webhooks/${id}/clientes`, { body: { clientes: [NIF] } });
    const [relinked] = await issue(1);
    await fileEverything();
    await worker().drainDue();
    expect(rx.received.map((r) => r.json.datos.idFactura)).toEqual([first, relinked]);
  });
});

describe('Events rule 6: a delivery times out after 10 seconds by default', () => {
  it('the default and the resolved engine configuration say 10 000 ms', () => {
    expect(DEFAULT_WEBHOOK_DELIVERY.timeoutMs).toBe(10_000);
    expect(resolveConfig({ dataDir: '/tmp/none' }).webhooks.timeoutMs).toBe(10_000);
    // A test that shortens it only changes its own engine.
    expect(ctx().config.webhooks.timeoutMs).toBe(400);
  });
});
