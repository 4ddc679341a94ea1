// The spec's Webhooks section (management API) with the shapes of API-CONTRACT: one describe
// per rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookResponse, webhooksListResponse } from '../../../src-shared/api/webhooks';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
let other: { key: string; nif: string; liveKey: string };
const SECRETO = 'un-secreto-de-prueba-0123456789';
const ALL = ['factura.registrada', 'factura.rechazada', 'factura.anulada'];

beforeAll(async () => {
  t = await makeTestEngine();
  const ctx = t.engine.context;
  // A second account, with its own issuer, in the same install.
  other = ctx.db.transaction(() => {
    const account = ctx.accounts.createAccount({ nif: 'B87654323', nombre: 'OTRA CUENTA SL', plan: 'empresa' });
    ctx.issuers.create({ accountId: account.id, entorno: 'test', nif: account.nif, nombre: account.nombre, hacienda: 'verifactu' });
    return {
      key: ctx.accounts.createKey(account.id, 'test').rawKey,
      liveKey: ctx.accounts.createKey(account.id, 'live').rawKey,
      nif: account.nif,
    };
  });
});
afterAll(async () => t.close());

const body = (o: Record<string, unknown> = {}) => ({ nombre: 'TPV cocina', url: 'https://pos.example.com/hooks', secreto: SECRETO, ...o });

async function create(o: Record<string, unknown> = {}, key?: string) {
  const res = await t.manage('POST', '/v1/webhooks', { body: body(o), ...(key ? { key } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().webhook as { idWebhook: string; eventos: string[]; estado: string; [k: string]: unknown };
}

async function expect400(res: Promise<{ statusCode: number; json(): unknown; body: string }>, campo: string) {
  const r = await res;
  expect(r.statusCode, r.body).toBe(400);
  const b = r.json() as { code: string; campo: string; message: string; errors: string[] };
  expect(b.code).toBe('VALIDATION_ERROR');
  expect(b.campo).toBe(campo);
  expect(b.errors.length).toBeGreaterThan(0);
  return b;
}

const count = async () => ((await t.manage('GET', '/v1/webhooks')).json() as { webhooks: unknown[] }).webhooks.length;

describe('POST /v1/webhooks → 201 with the created webhook under `webhook` (and `entorno`)', () => {
  it('answers the Webhook resource: activo, no failures, all events, default header prefix, never the secreto', async () => {
    const res = await t.manage('POST', '/v1/webhooks', { body: body() });
    expect(res.statusCode).toBe(201);
    const parsed = webhookResponse.parse(res.json());
    expect(parsed.entorno).toBe('test');
    expect(parsed.webhook).toMatchObject({
      nombre: 'TPV cocina',
      url: 'https://pos.example.com/hooks',
      eventos: ALL,
      estado: 'activo',
      fallosConsecutivos: 0,
      prefijoCabeceras: 'X-Service-',
      creadoEn: '2026-11-20T10:00:00.000Z',
      ultimaModificacion: '2026-11-20T10:00:00.000Z',
    });
    expect(res.body).not.toContain(SECRETO);
    expect(res.json().webhook).not.toHaveProperty('secreto');
    expect(res.json().webhook).not.toHaveProperty('suspendidoEn');
    expect(res.json().webhook).not.toHaveProperty('ultimoError');
  });

  it('nombre, url and secreto are required; an unknown field is named', async () => {
    await expect400(t.manage('POST', '/v1/webhooks', { body: { url: 'https://a.example.com', secreto: SECRETO } }), 'nombre');
    await expect400(t.manage('POST', '/v1/webhooks', { body: { nombre: 'x', secreto: SECRETO } }), 'url');
    await expect400(t.manage('POST', '/v1/webhooks', { body: { nombre: 'x', url: 'https://a.example.com' } }), 'secreto');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ nombre: '   ' }) }), 'nombre');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ colour: 'blue' }) }), 'colour');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ estado: 'inactivo' }) }), 'estado');
  });
});

describe('GET /v1/webhooks → {webhooks: […]}; GET /v1/webhooks/{id} → {webhook, entorno}', () => {
  it('lists the webhooks of the key’s account and environment only', async () => {
    const mine = await create({ nombre: 'listado' });
    const theirs = await create({ nombre: 'ajeno' }, other.key);
    const list = webhooksListResponse.parse((await t.manage('GET', '/v1/webhooks')).json());
    const ids = list.webhooks.map((w) => w.idWebhook);
    expect(ids).toContain(mine.idWebhook);
    expect(ids).not.toContain(theirs.idWebhook);
    // The environment comes from the key: a LIVE key does not see TEST webhooks.
    const live = (await t.manage('GET', '/v1/webhooks', { key: t.keys.live })).json();
    expect(live).toEqual({ webhooks: [] });
    const detail = await t.manage('GET', `/v1/webhooks/${mine.idWebhook}`);
    expect(detail.statusCode).toBe(200);
    expect(webhookResponse.parse(detail.json())).toMatchObject({ entorno: 'test', webhook: { idWebhook: mine.idWebhook } });
    expect(detail.body).not.toContain(SECRETO);
  });
});

describe('A webhook of another account (or environment) is 404 NOT_FOUND, whatever the operation', () => {
  it('GET, PATCH, DELETE and the links answer 404 and change nothing', async () => {
    const theirs = await create({ nombre: 'de otra cuenta' }, other.key);
    const id = theirs.idWebhook;
    for (const [method, url, b] of [
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`, { nombre: 'mío' }],
      ['DELETE', `/v1/webhooks/${id}`],
      ['GET', `/v1/webhooks/${id}/clientes`],
      ['POST', `/v1/webhooks/${id}/clientes`, { clientes: [t.nifEmisor] }],
      ['DELETE', `/v1/webhooks/${id}/clientes/${other.nif}`],
    ] as const) {
      const res = await t.manage(method, url, b ? { body: b } : {});
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('NOT_FOUND');
    }
    expect((await t.manage('GET', `/v1/webhooks/${id}`, { key: other.liveKey })).statusCode).toBe(404);
    const still = (await t.manage('GET', `/v1/webhooks/${id}`, { key: other.key })).json();
    expect(still.webhook.nombre).toBe('de otra cuenta');
    expect((await t.manage('GET', '/v1/webhooks/wh_nope')).statusCode).toBe(404);
  });

  it('without a key the gateway answers 403 {"message":"Forbidden"}', async () => {
    const res = await t.manage('GET', '/v1/webhooks', { key: null });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ message: 'Forbidden' });
  });
});

describe('Rule 2: eventos is optional on POST and PATCH; omitting it means all events', () => {
  it('POST without eventos (or with null) delivers all three', async () => {
    expect((await create()).eventos).toEqual(ALL);
    expect((await create({ eventos: null })).eventos).toEqual(ALL);
  });
  it('PATCH without eventos keeps the subscription', async () => {
    const w = await create({ eventos: ['factura.rechazada'] });
    const res = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { nombre: 'otro nombre' } });
    expect(res.json().webhook.eventos).toEqual(['factura.rechazada']);
  });
});

describe('Rule 3: valid names are exactly the three events; an unknown name gives 400 VALIDATION_ERROR', () => {
  it('POST and PATCH name the offending entry, and nothing is stored', async () => {
    const before = await count();
    const b = await expect400(
      t.manage('POST', '/v1/webhooks', { body: body({ eventos: ['factura.rechazada', 'factura.pagada'] }) }),
      'eventos[1]',
    );
    expect(b.message).toContain('factura.pagada');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ eventos: ['FACTURA.RECHAZADA'] }) }), 'eventos[0]');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ eventos: 'factura.rechazada' }) }), 'eventos');
    expect(await count()).toBe(before);
    const w = await create();
    await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { eventos: ['factura.rechazada', 'x'] } }), 'eventos[1]');
    expect((await t.manage('GET', `/v1/webhooks/${w.idWebhook}`)).json().webhook.eventos).toEqual(ALL);
  });
});

describe('Rule 4: a subscription that omits factura.rechazada is rejected', () => {
  it('on POST and on PATCH', async () => {
    const before = await count();
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ eventos: ['factura.registrada', 'factura.anulada'] }) }), 'eventos');
    expect(await count()).toBe(before);
    const w = await create();
    const b = await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { eventos: ['factura.registrada'] } }), 'eventos');
    expect(b.message).toContain('factura.rechazada');
  });
});

describe('Rule 5: PATCH with eventos null clears the subscription and returns to all events', () => {
  it('answers and stores all three events again', async () => {
    const w = await create({ eventos: ['factura.rechazada', 'factura.anulada'] });
    expect(w.eventos).toEqual(['factura.rechazada', 'factura.anulada']);
    const res = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { eventos: null } });
    expect(res.statusCode).toBe(200);
    expect(res.json().webhook.eventos).toEqual(ALL);
    const stored = t.engine.context.db.statement('SELECT eventos FROM webhooks WHERE idWebhook = ?').get(w.idWebhook) as { eventos: string | null };
    expect(stored.eventos).toBeNull();
    expect((await t.manage('GET', `/v1/webhooks/${w.idWebhook}`)).json().webhook.eventos).toEqual(ALL);
  });
});

describe('Rule 6: an empty list [] is rejected; to stop deliveries use PATCH estado: inactivo', () => {
  it('on POST and on PATCH', async () => {
    const b = await expect400(t.manage('POST', '/v1/webhooks', { body: body({ eventos: [] }) }), 'eventos');
    expect(b.message).toContain('inactivo');
    const w = await create();
    await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { eventos: [] } }), 'eventos');
  });
});

describe('Rule 7: the order sent is not kept; the stored list is canonical and without duplicates', () => {
  it('answers the spec’s order, once each, on POST, PATCH and GET', async () => {
    const w = await create({ eventos: ['factura.anulada', 'factura.rechazada', 'factura.anulada', 'factura.rechazada'] });
    expect(w.eventos).toEqual(['factura.rechazada', 'factura.anulada']);
    const p = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, {
      body: { eventos: ['factura.anulada', 'factura.registrada', 'factura.rechazada', 'factura.registrada'] },
    });
    expect(p.json().webhook.eventos).toEqual(ALL);
    const stored = t.engine.context.db.statement('SELECT eventos FROM webhooks WHERE idWebhook = ?').get(w.idWebhook) as { eventos: string };
    expect(JSON.parse(stored.eventos)).toEqual(ALL);
  });
});

describe('Webhook secreto: 16 to 512 characters', () => {
  it('accepts 16 and 512, refuses 15 and 513 without echoing the value', async () => {
    await create({ secreto: 'a'.repeat(16) });
    await create({ secreto: 'b'.repeat(512) });
    // Characters, not bytes: 16 two-byte characters are 16 characters.
    await create({ secreto: 'ñ'.repeat(16) });
    const short = await expect400(t.manage('POST', '/v1/webhooks', { body: body({ secreto: 'c'.repeat(15) }) }), 'secreto');
    expect(JSON.stringify(short)).not.toContain('c'.repeat(15));
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ secreto: 'd'.repeat(513) }) }), 'secreto');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ secreto: 1234567890123456 }) }), 'secreto');
    const w = await create();
    await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { secreto: 'corto' } }), 'secreto');
  });
});

describe('URL: https:// anywhere; http:// only to loopback and private-network hosts', () => {
  const accepted = [
    'https://pos.example.com/hooks',
    'https://203.0.113.9:8443/x',
    'https://192.168.1.20/hook',
    'http://127.0.0.1:9000/hook',
    'http://127.10.0.1/hook',
    'http://localhost:3000/hook',
    'http://10.0.0.7/hook',
    'http://172.16.0.1/hook',
    'http://172.31.255.254/hook',
    'http://192.168.1.50:8080/caja?x=1',
    'http://[::1]:9000/hook',
    'http://[fd12:3456::1]/hook',
    'http://[::ffff:192.168.0.2]/hook',
    'http://caja-2.local/hook',
    'http://tpv.home.arpa/hook',
    'http://tpv.internal/hook',
  ];
  const refused = [
    'http://pos.example.com/hooks',
    'http://8.8.8.8/hook',
    'http://172.32.0.1/hook',
    'http://172.15.255.255/hook',
    'http://192.169.0.1/hook',
    'http://[2001:db8::1]/hook',
    'http://[::ffff:8.8.8.8]/hook',
    // Link-local (cloud metadata answers there): never a receiver, over http or https (issue 28).
    'http://169.254.10.10/hook',
    'https://169.254.169.254/',
    'http://[fe80::1]/hook',
    'http://localhost.example.com/hook',
    'http://caja/hook',
    'ftp://192.168.1.2/x',
    'file:///etc/passwd',
    'pos.example.com/hooks',
    '/relative',
    'https://user:pass@pos.example.com/hooks',
    'https://pos.example.com/hooks#frag',
    ' https://pos.example.com/hooks',
    `https://pos.example.com/${'a'.repeat(2100)}`,
  ];
  it.each(accepted)('accepts %s', async (url) => {
    expect((await create({ url })).url).toBe(url);
  });
  it.each(refused)('refuses %s with 400 naming url', async (url) => {
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ url }) }), 'url');
  });
  it('PATCH applies the same rule', async () => {
    const w = await create();
    await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { url: 'http://pos.example.com/x' } }), 'url');
    const ok = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { url: 'http://192.168.1.9/x' } });
    expect(ok.json().webhook.url).toBe('http://192.168.1.9/x');
  });
});

describe('Header prefix: X-Service- by default, configurable', () => {
  it('accepts a token prefix and refuses one that cannot start a header name', async () => {
    expect((await create({ prefijoCabeceras: 'X-Acme-' })).prefijoCabeceras).toBe('X-Acme-');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ prefijoCabeceras: 'X Acme' }) }), 'prefijoCabeceras');
    await expect400(t.manage('POST', '/v1/webhooks', { body: body({ prefijoCabeceras: '' }) }), 'prefijoCabeceras');
  });
});

describe('PATCH /v1/webhooks/{id}: url, nombre, secreto, eventos or estado → {webhook, entorno}', () => {
  it('changes what is sent and moves ultimaModificacion; the secreto is never answered', async () => {
    const w = await create();
    t.clock.advance(60_000);
    const res = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, {
      body: { nombre: 'Caja 2', url: 'https://caja2.example.com/h', secreto: 'otro-secreto-distinto-123' },
    });
    expect(res.statusCode).toBe(200);
    const parsed = webhookResponse.parse(res.json());
    expect(parsed).toMatchObject({ entorno: 'test', webhook: { nombre: 'Caja 2', url: 'https://caja2.example.com/h' } });
    expect(parsed.webhook.ultimaModificacion).toBe('2026-11-20T10:01:00.000Z');
    expect(parsed.webhook.creadoEn).toBe('2026-11-20T10:00:00.000Z');
    expect(res.body).not.toContain('otro-secreto-distinto-123');
    const row = t.engine.context.db.statement('SELECT secreto FROM webhooks WHERE idWebhook = ?').get(w.idWebhook) as { secreto: string };
    expect(row.secreto).toBe('otro-secreto-distinto-123');
    t.clock.set('2026-11-20T10:00:00.000Z');
  });

  it('a PATCH without any accepted field is 400; an unknown field is named', async () => {
    const w = await create();
    await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: {} }), 'body');
    await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { idWebhook: 'x' } }), 'idWebhook');
  });
});

describe('Webhook estado: activo ↔ inactivo by the caller; suspendido only by the platform', () => {
  it('activo → inactivo → activo; the caller cannot set suspendido', async () => {
    const w = await create();
    const off = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { estado: 'inactivo' } });
    expect(off.json().webhook.estado).toBe('inactivo');
    const again = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { estado: 'inactivo' } });
    expect(again.statusCode).toBe(200);
    const b = await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { estado: 'suspendido' } }), 'estado');
    expect(b.message).toContain('platform');
    await expect400(t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { estado: 'borrado' } }), 'estado');
    const on = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { estado: 'activo' } });
    expect(on.json().webhook).toMatchObject({ estado: 'activo', fallosConsecutivos: 0 });
  });

  it('suspendido shows suspendidoEn and ultimoError; PATCH activo resets fallosConsecutivos and hides them', async () => {
    const w = await create();
    t.engine.context.db
      .statement("UPDATE webhooks SET estado = 'suspendido', fallosConsecutivos = 20, suspendidoEn = '2026-11-20T09:00:00.000Z', ultimoError = 'HTTP 500' WHERE idWebhook = ?")
      .run(w.idWebhook);
    const detail = (await t.manage('GET', `/v1/webhooks/${w.idWebhook}`)).json().webhook;
    expect(detail).toMatchObject({ estado: 'suspendido', fallosConsecutivos: 20, suspendidoEn: '2026-11-20T09:00:00.000Z', ultimoError: 'HTTP 500' });
    const on = (await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: { estado: 'activo' } })).json().webhook;
    expect(on).toMatchObject({ estado: 'activo', fallosConsecutivos: 0 });
    expect(on).not.toHaveProperty('suspendidoEn');
    expect(on).not.toHaveProperty('ultimoError');
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('answers {idWebhook, eliminado: true}; then the webhook and its links are gone', async () => {
    const w = await create();
    await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes: [t.nifEmisor] } });
    const res = await t.manage('DELETE', `/v1/webhooks/${w.idWebhook}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ idWebhook: w.idWebhook, eliminado: true });
    expect((await t.manage('GET', `/v1/webhooks/${w.idWebhook}`)).statusCode).toBe(404);
    expect((await t.manage('DELETE', `/v1/webhooks/${w.idWebhook}`)).statusCode).toBe(404);
    const links = t.engine.context.db.statement('SELECT COUNT(*) AS n FROM webhook_issuers WHERE webhookId = ?').get(w.idWebhook) as { n: number };
    expect(links.n).toBe(0);
  });
});

describe('Rule 1 and the links: issuers of the key’s account and environment, {idWebhook, clientes}', () => {
  it('links, lists and unlinks; linking twice changes nothing; unlinking twice too', async () => {
    const w = await create();
    expect((await t.manage('GET', `/v1/webhooks/${w.idWebhook}/clientes`)).json()).toEqual({ idWebhook: w.idWebhook, clientes: [] });
    const linked = await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes: [t.nifEmisor, t.nifEmisor] } });
    expect(linked.statusCode).toBe(200);
    expect(linked.json()).toEqual({ idWebhook: w.idWebhook, clientes: [t.nifEmisor] });
    const twice = await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes: [t.nifEmisor] } });
    expect(twice.json()).toEqual({ idWebhook: w.idWebhook, clientes: [t.nifEmisor] });
    expect((await t.manage('GET', `/v1/webhooks/${w.idWebhook}/clientes`)).json()).toEqual({ idWebhook: w.idWebhook, clientes: [t.nifEmisor] });
    const unlinked = await t.manage('DELETE', `/v1/webhooks/${w.idWebhook}/clientes/${t.nifEmisor}`);
    expect(unlinked.statusCode).toBe(200);
    expect(unlinked.json()).toEqual({ idWebhook: w.idWebhook, clientes: [] });
    expect((await t.manage('DELETE', `/v1/webhooks/${w.idWebhook}/clientes/${t.nifEmisor}`)).json()).toEqual({ idWebhook: w.idWebhook, clientes: [] });
  });

  it('an issuer of another account gives 403 FORBIDDEN and links nothing, even beside an own issuer', async () => {
    const w = await create();
    for (const clientes of [[other.nif], [t.nifEmisor, other.nif], ['A58818501']]) {
      const res = await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes } });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    }
    expect((await t.manage('GET', `/v1/webhooks/${w.idWebhook}/clientes`)).json().clientes).toEqual([]);
    // The own company exists in LIVE too, but the key's environment decides: a TEST webhook
    // cannot link what only another environment holds, and a LIVE key cannot reach this webhook.
    expect((await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { key: t.keys.live, body: { clientes: [t.nifEmisor] } })).statusCode).toBe(404);
  });

  it('a deleted issuer of the account gives 403 FORBIDDEN like a foreign one, and links nothing', async () => {
    const ctx = t.engine.context;
    const account = ctx.accounts.listAccounts().find((a) => a.nif !== other.nif)!;
    ctx.issuers.create({ accountId: account.id, entorno: 'test', nif: 'B00000034', nombre: 'EMISOR BORRADO SL', hacienda: 'verifactu' });
    const w = await create();
    // Linkable while it exists…
    expect((await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes: ['B00000034'] } })).statusCode).toBe(200);
    await t.manage('DELETE', `/v1/webhooks/${w.idWebhook}/clientes/B00000034`);
    // …then deleted in the panel.
    const deleted = await t.engine.apps.panel.inject({
      method: 'POST',
      url: `/panel/v1/cuentas/${account.id}/clientes/B00000034/eliminar`,
      headers: { authorization: 'Bearer panel-test-token' },
      payload: { entorno: 'test' },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    for (const clientes of [['B00000034'], [t.nifEmisor, 'B00000034']]) {
      const res = await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes } });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    }
    expect((await t.manage('GET', `/v1/webhooks/${w.idWebhook}/clientes`)).json().clientes).toEqual([]);
  });

  it('the body is {clientes: [nif, …]}: empty, malformed NIFs or extra fields are 400', async () => {
    const w = await create();
    await expect400(t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes: [] } }), 'clientes');
    await expect400(t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes: ['b12345674'] } }), 'clientes[0]');
    await expect400(t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { nifs: [t.nifEmisor] } }), 'clientes');
    await expect400(t.manage('DELETE', `/v1/webhooks/${w.idWebhook}/clientes/XYZ`), 'nif');
  });
});

describe('Rule 8: a PATCH is propagated to every linked issuer — atomically here', () => {
  it('a repeated PATCH is idempotent and never answers PROPAGATION_INCOMPLETE', async () => {
    const w = await create();
    await t.manage('POST', `/v1/webhooks/${w.idWebhook}/clientes`, { body: { clientes: [t.nifEmisor] } });
    const patch = { url: 'https://nuevo.example.com/h', eventos: ['factura.rechazada'], estado: 'activo' };
    const a = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: patch });
    const b = await t.manage('PATCH', `/v1/webhooks/${w.idWebhook}`, { body: patch });
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(b.json().webhook).toEqual(a.json().webhook);
  });
});
