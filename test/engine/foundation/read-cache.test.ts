import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { admin } from '../../support/admin-cli';

/** Another connection to the engine's database file (as any other process would open it). */
function otherConnection(t: TestEngine): BetterSqlite3.Database {
  const other = new BetterSqlite3(path.join(t.dataDir, 'engine.sqlite'));
  other.pragma('busy_timeout = 5000');
  return other;
}

let t: TestEngine;
let n = 0;
beforeEach(async () => {
  t = await makeTestEngine();
});
afterEach(async () => t.close());

const crear = (key?: string) =>
  t.billing('POST', '/v1/verifactu/crear', { ...(key ? { key } : {}), body: aFacturaF2({ cabecera: { numero: `RC-${++n}` } }) });
const cuenta = (key: string) => t.billing('GET', '/v1/cuenta', { key });

describe('Keys and accounts are read from memory while nothing about them changes', () => {
  it('the same lookup twice returns what was read the first time, without reading again', () => {
    const accounts = t.engine.context.accounts;
    const first = accounts.findActiveKey(t.keys.test);
    expect(first?.key.entorno).toBe('test');
    expect(accounts.findActiveKey(t.keys.test)).toBe(first);
  });

  it('an unrelated write (an invoice) keeps the cached key', async () => {
    const accounts = t.engine.context.accounts;
    const first = accounts.findActiveKey(t.keys.test);
    expect((await crear()).statusCode).toBe(200);
    expect(accounts.findActiveKey(t.keys.test)).toBe(first);
  });
});

describe('A revoked or rotated key is refused from the next request on', () => {
  it('revoked in this process', async () => {
    const accounts = t.engine.context.accounts;
    const account = accounts.listAccounts()[0]!;
    const key = accounts.createKey(account.id, 'test');
    expect((await cuenta(key.rawKey)).statusCode).toBe(200);
    accounts.revokeKey(key.id);
    expect((await cuenta(key.rawKey)).statusCode).toBe(403);
  });

  it('rotated in this process: the old key is refused, the new one admitted', async () => {
    const accounts = t.engine.context.accounts;
    const account = accounts.listAccounts()[0]!;
    const key = accounts.createKey(account.id, 'test');
    expect((await cuenta(key.rawKey)).statusCode).toBe(200);
    const fresh = accounts.rotateKey(key.id);
    expect((await cuenta(key.rawKey)).statusCode).toBe(403);
    expect((await cuenta(fresh.rawKey)).statusCode).toBe(200);
  });

  it('revoked by the admin command line in another process on the same data dir', async () => {
    const accounts = t.engine.context.accounts;
    const account = accounts.listAccounts()[0]!;
    const key = accounts.createKey(account.id, 'test');
    expect((await crear(key.rawKey)).statusCode).toBe(200);
    await admin(t.dataDir, 'key', 'revoke', '--key', key.id);
    expect((await crear(key.rawKey)).statusCode).toBe(403);
    expect((await cuenta(key.rawKey)).statusCode).toBe(403);
  });
});

describe('Account state changes apply from the next request on', () => {
  it('billing switched off by the admin command line in another process: a new invoice is refused with 402', async () => {
    expect((await crear()).statusCode).toBe(200);
    const account = t.engine.context.accounts.listAccounts()[0]!;
    await admin(t.dataDir, 'account', 'set', '--account', account.id, '--facturacion', 'off');
    const refused = await crear();
    expect(refused.statusCode).toBe(402);
  });

  it('billing switched off in this process: 402 at once', async () => {
    expect((await crear()).statusCode).toBe(200);
    const account = t.engine.context.accounts.listAccounts()[0]!;
    t.engine.context.accounts.updateAccount(account.id, { facturacionActiva: 0 });
    expect((await crear()).statusCode).toBe(402);
  });
});

describe('Issuer admission follows every change to the issuer from the next request on', () => {
  it('deactivated through the clients API: 403', async () => {
    expect((await crear()).statusCode).toBe(200);
    const issuer = t.engine.context.issuers.find('test', t.nifEmisor)!;
    t.engine.context.issuers.updateIssuer(issuer.id, { estado: 'inactivo' });
    expect((await crear()).statusCode).toBe(403);
  });

  it('deactivated by another process writing the database: 403', async () => {
    expect((await crear()).statusCode).toBe(200);
    const other = otherConnection(t);
    other.prepare("UPDATE issuers SET estado = 'inactivo' WHERE entorno = 'test' AND nif = ?").run(t.nifEmisor);
    other.close();
    expect((await crear()).statusCode).toBe(403);
  });

  it('an issuer added by the admin command line in another process issues at once', async () => {
    const account = t.engine.context.accounts.listAccounts()[0]!;
    const body = aFacturaF2({ emisor: { nif: 'A58818501', nombre: 'OTRO EMISOR SA' }, cabecera: { numero: 'RC-NEW' } });
    expect((await t.billing('POST', '/v1/verifactu/crear', { body })).statusCode).toBe(403);
    await admin(t.dataDir, 'issuer', 'add', '--account', account.id, '--entorno', 'test', '--nif', 'A58818501', '--nombre', 'OTRO EMISOR SA');
    expect((await t.billing('POST', '/v1/verifactu/crear', { body })).statusCode).toBe(200);
  });

  it('representation withdrawn in LIVE by another process: 403 REPRESENTATION_PENDING', async () => {
    const ctx = t.engine.context;
    const account = ctx.accounts.listAccounts()[0]!;
    ctx.issuers.create({ accountId: account.id, entorno: 'live', nif: 'A58818501', nombre: 'OTRO EMISOR SA', hacienda: 'verifactu', estadoRepresentacion: 'firmado' });
    const body = () => aFacturaF2({ emisor: { nif: 'A58818501', nombre: 'OTRO EMISOR SA' }, cabecera: { numero: `RC-L${++n}` } });
    expect((await t.billing('POST', '/v1/verifactu/crear', { key: t.keys.live, body: body() })).statusCode).toBe(200);
    const other = otherConnection(t);
    other.prepare("UPDATE issuers SET estadoRepresentacion = 'pendiente' WHERE entorno = 'live' AND nif = 'A58818501'").run();
    other.close();
    const refused = await t.billing('POST', '/v1/verifactu/crear', { key: t.keys.live, body: body() });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'REPRESENTATION_PENDING' });
  });
});

describe('Nothing read inside a transaction that rolls back is remembered', () => {
  it('an issuer seen only inside a rolled-back transaction is unknown afterwards', () => {
    const ctx = t.engine.context;
    const account = ctx.accounts.listAccounts()[0]!;
    expect(() =>
      ctx.db.transaction(() => {
        ctx.issuers.create({ accountId: account.id, entorno: 'test', nif: 'A58818501', nombre: 'X', hacienda: 'verifactu' });
        expect(ctx.issuers.find('test', 'A58818501')).toBeDefined();
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(ctx.issuers.find('test', 'A58818501')).toBeUndefined();
  });
});
