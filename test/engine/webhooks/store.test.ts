import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPrivateNetworkHost, webhookUrlProblem } from '../../../src-shared/api/webhooks';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';
import { deliveryBody, idEntrega, signature, uuidV5 } from '../../../engine/src/webhooks/signing';
import { WebhookStore } from '../../../engine/src/webhooks/store.sqlite';
import { insertAccountRow, insertActiveWebhookRows } from '../../fixtures/webhook-rows';

describe('idEntrega is a UUIDv5 (RFC 4122 §4.3), deterministic per (webhook, record, event)', () => {
  it('matches the published vector uuid5(NAMESPACE_DNS, "python.org")', () => {
    expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });
  it('is the same for the same triple and differs when any part differs', () => {
    const a = idEntrega('wh_1', 'reg_1', 'factura.rechazada');
    expect(idEntrega('wh_1', 'reg_1', 'factura.rechazada')).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set([a, idEntrega('wh_2', 'reg_1', 'factura.rechazada'), idEntrega('wh_1', 'reg_2', 'factura.rechazada'), idEntrega('wh_1', 'reg_1', 'factura.registrada')]).size).toBe(4);
  });
});

describe('The signature is sha256=<hex HMAC-SHA256 of the raw body> keyed with the secreto', () => {
  it('equals an independent HMAC over the exact bytes, UTF-8 included', () => {
    const raw = deliveryBody({ evento: 'factura.registrada', idEntrega: 'x', timestamp: '2026-11-20T10:00:00.000Z', datos: { nombre: 'Ferretería & Hijos' } });
    const expected = createHmac('sha256', 'clave-secreta-ñ-1234').update(Buffer.from(raw, 'utf8')).digest('hex');
    expect(signature(Buffer.from(raw, 'utf8'), 'clave-secreta-ñ-1234')).toBe(`sha256=${expected}`);
    expect(raw.startsWith('{"evento":"factura.registrada","idEntrega":"x","timestamp":')).toBe(true);
  });
});

describe('Private-network hosts (http:// allowed)', () => {
  it.each([
    ['127.0.0.1', true], ['10.255.0.1', true], ['172.16.0.0', true], ['172.31.1.1', true], ['172.32.0.1', false],
    ['192.168.0.1', true], ['192.167.0.1', false], ['169.254.1.1', false], ['8.8.8.8', false], ['[::1]', true],
    ['[fc00::1]', true], ['[fdff::1]', true], ['[fe80::1]', false], ['[2001:db8::1]', false], ['[::]', false],
    ['localhost', true], ['LOCALHOST.', true], ['a.localhost', true], ['caja.local', true], ['evil-local.com', false],
    ['caja', false], ['x.home.arpa', true], ['x.internal', true],
  ] as const)('%s → %s', (host, expected) => {
    expect(isPrivateNetworkHost(host)).toBe(expected);
  });
  it('uses the host as WHATWG URL normalizes it (decimal and short IPv4 forms)', () => {
    expect(webhookUrlProblem('http://167772161/hook')).toBeNull(); // 10.0.0.1
    expect(webhookUrlProblem('http://134744072/hook')).not.toBeNull(); // 8.8.8.8
    expect(webhookUrlProblem('http://127.1/hook')).toBeNull();
  });
});

describe('20261122T1500Z-webhooks', () => {
  async function migrated(): Promise<Database> {
    const db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'mig-wh-')));
    await db.migrate();
    insertAccountRow(db.sqlite);
    insertActiveWebhookRows(db.sqlite, 'https://x.example.com');
    return db;
  }

  it('webhooks, links, deliveries and attempts are STRICT, checked, and go with their webhook', async () => {
    const db = await migrated();
    expect(() => db.sqlite.exec(`INSERT INTO webhooks VALUES ('w2','a','test','n','u','s',NULL,'pausado',0,NULL,NULL,'X-','t','t')`)).toThrow(/CHECK/);
    expect(() => db.sqlite.exec(`INSERT INTO webhooks VALUES ('w3','a','prod','n','u','s',NULL,'activo',0,NULL,NULL,'X-','t','t')`)).toThrow(/CHECK/);
    expect(() => db.sqlite.exec(`INSERT INTO webhooks VALUES ('w4','a','test','n','u','s',NULL,'activo','cero',NULL,NULL,'X-','t','t')`)).toThrow();
    expect(() => db.sqlite.exec(`INSERT INTO webhooks VALUES ('w5','nadie','test','n','u','s',NULL,'activo',0,NULL,NULL,'X-','t','t')`)).toThrow(/FOREIGN KEY/);
    db.sqlite.exec('DELETE FROM webhooks');
    expect((db.sqlite.prepare('SELECT COUNT(*) AS n FROM webhook_issuers').get() as { n: number }).n).toBe(0);
    await db.close();
  });

  it('hot queries use their indexes (EXPLAIN QUERY PLAN)', async () => {
    const db = await migrated();
    const store = new WebhookStore(db);
    const plan = (q: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
      const c = q.compile();
      return (db.sqlite.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(...(c.parameters as never[])) as { detail: string }[]).map((r) => r.detail).join('\n');
    };
    const k = db.kysely;
    expect(
      plan(
        k.selectFrom('webhook_deliveries as d').innerJoin('webhooks as w', 'w.idWebhook', 'd.webhookId').select(['d.id'])
          .where('d.estado', '=', 'pendiente').where('d.siguienteIntentoEn', '<=', 'x').where('w.estado', '=', 'activo'),
      ),
    ).toMatch(/webhook_deliveries_due/);
    expect(
      plan(
        k.selectFrom('webhook_issuers as l').innerJoin('webhooks as w', 'w.idWebhook', 'l.webhookId').select(['w.idWebhook'])
          .where('l.entorno', '=', 'test').where('l.nif', '=', 'B12345674'),
      ),
    ).toMatch(/webhook_issuers_issuer|sqlite_autoindex_webhook_issuers/);
    expect(store.targetsOf({ accountId: 'a', entorno: 'test', nifEmisor: 'B12345674' })).toEqual([{ idWebhook: 'w', eventos: null }]);
    expect(store.dueDeliveries('z', 10)).toEqual([]);
    await db.close();
  });
});
