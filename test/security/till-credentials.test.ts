import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostedExample01 } from '../fixtures/hosted-examples';
import { admin } from '../support/admin-cli';
import { makeTestEngine, type TestEngine } from '../support/engine';
import { sqliteOf } from '../support/sqlite-of';

const ADMIN = { authorization: 'Bearer panel-test-token' };
/** A till on the shop's network. */
const LAN = '192.168.1.21';

interface Issued {
  idMaquina: string;
  token: string;
  claves: { test: string; live: string };
  dispositivo: { test: string; live: string };
  engineJson: Record<string, string>;
}

let t: TestEngine;
let numero = 1;
beforeAll(async () => {
  t = await makeTestEngine();
  writeFileSync(path.join(t.dataDir, 'demo-keys.json'), JSON.stringify({ test: t.keys.test, live: t.keys.live, nifEmisor: t.nifEmisor }));
  // The high-capacity mode lets the tills register as devices (and be deactivated).
  const fase = await t.engine.apps.panel.inject({ method: 'PUT', url: `/panel/v1/cuentas/${t.nifEmisor}/clientes/${t.nifEmisor}/fase`, headers: ADMIN, payload: { faseAltaCapacidad: 'preparacion' } });
  expect(fase.statusCode).toBe(200);
});
afterAll(async () => t.close());

const panel = (method: string, url: string, token: string, payload?: object, extra: Record<string, string> = {}) =>
  t.engine.apps.panel.inject({ method: method as 'GET', url, remoteAddress: LAN, headers: { authorization: `Bearer ${token}`, ...extra }, ...(payload ? { payload } : {}) });

async function newTill(idMaquina: string): Promise<Issued> {
  const res = await t.engine.apps.panel.inject({ method: 'POST', url: '/panel/v1/cajas', headers: ADMIN, payload: { etiqueta: `Caja ${idMaquina}`, idMaquina } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Issued;
}

const factura = (idMaquina?: string) => ({ ...hostedExample01(t.nifEmisor, '20-11-2026', `TC${numero++}`), ...(idMaquina ? { idMaquina } : {}) });

describe('A credential per till: its own token and keys, bound to its idMaquina, revocable alone', () => {
  let caja2: Issued;
  beforeAll(async () => {
    caja2 = await newTill('TPV-CAJA2');
  });

  it('registering yields a token and keys shown once, stored only as hashes, and the till registered as a device', async () => {
    expect(caja2.token).toMatch(/^tt_./);
    expect(caja2.claves.test).toMatch(/^sk_test_/);
    expect(caja2.claves.live).toMatch(/^sk_live_/);
    expect(caja2.dispositivo).toEqual({ test: 'registrado', live: 'registrado' });
    expect(caja2.engineJson).toMatchObject({ idMaquina: 'TPV-CAJA2', tillToken: caja2.token });
    const stored = JSON.stringify([
      sqliteOf(t.engine.context.db).prepare('SELECT * FROM till_credentials').all(),
      sqliteOf(t.engine.context.db).prepare('SELECT * FROM api_keys').all(),
    ]);
    for (const secret of [caja2.token, caja2.claves.test, caja2.claves.live]) expect(stored).not.toContain(secret);
    const list = await t.engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/cajas', headers: ADMIN });
    expect(list.body).not.toContain(caja2.token);
    expect(list.json()).toMatchObject({ cajas: [expect.objectContaining({ idMaquina: 'TPV-CAJA2', revocadoEn: null })] });
  });

  it('the till’s token opens its panel as that till, and cannot read keys, mint keys, change phases, delete issuers, switch faults, pause filing or read the log', async () => {
    const arranque = await panel('GET', '/panel/v1/arranque', caja2.token);
    expect(arranque.statusCode).toBe(200);
    expect(arranque.json()).toMatchObject({ rol: 'caja', idDispositivo: 'TPV-CAJA2', nifEmisor: t.nifEmisor });
    expect(arranque.body).not.toContain(t.keys.test);
    expect(arranque.body).not.toContain(t.keys.live);
    const refused: [string, string, object?][] = [
      ['POST', '/panel/v1/claves', { entorno: 'live' }],
      ['PUT', `/panel/v1/cuentas/${t.nifEmisor}/clientes/${t.nifEmisor}/fase`, { faseAltaCapacidad: 'no_contratada' }],
      ['POST', `/panel/v1/cuentas/${t.nifEmisor}/clientes/${t.nifEmisor}/eliminar`, { entorno: 'test' }],
      ['PUT', '/panel/v1/emuladores/aeat/faults', { mode: 'down' }],
      ['PUT', '/panel/v1/emuladores/tbai/araba/faults', { mode: 'down' }],
      ['POST', '/panel/v1/sync/pausa', { entorno: 'live', pausado: true }],
      ['GET', '/panel/v1/registro'],
      ['POST', '/panel/v1/cajas', { etiqueta: 'otra' }],
      ['DELETE', '/panel/v1/cajas/TPV-CAJA2'],
    ];
    for (const [method, url, body] of refused) {
      const res = await panel(method, url, caja2.token, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({ code: 'ADMIN_REQUIRED' });
    }
    // Nothing changed: the phase is still the administrator's.
    const fase = await panel('GET', `/panel/v1/cuentas/${t.nifEmisor}/clientes/${t.nifEmisor}/fase`, caja2.token);
    expect(fase.json()).toMatchObject({ faseAltaCapacidad: 'preparacion' });
  });

  it('issuing with a till’s idMaquina needs that till’s credential: its key or its token through the relay; another till’s id is refused', async () => {
    expect((await t.billing('POST', '/v1/verifactu/crear', { key: caja2.claves.test, body: factura('TPV-CAJA2') })).statusCode).toBe(200);

    const withAccountKey = await t.billing('POST', '/v1/verifactu/crear', { body: factura('TPV-CAJA2') });
    expect(withAccountKey.statusCode).toBe(403);
    expect(withAccountKey.json()).toMatchObject({ code: 'MACHINE_CREDENTIAL_REQUIRED', campo: 'idMaquina' });

    const asAnother = await t.billing('POST', '/v1/verifactu/crear', { key: caja2.claves.test, body: factura('TPV-OTRA') });
    expect(asAnother.statusCode).toBe(403);
    expect(asAnother.json()).toMatchObject({ code: 'MACHINE_CREDENTIAL_MISMATCH', campo: 'idMaquina' });

    const relayed = await panel('POST', '/panel/v1/api/billing/v1/verifactu/crear', caja2.token, factura('TPV-CAJA2'));
    expect(relayed.statusCode, relayed.body).toBe(200);
    const relayedAsAnother = await panel('POST', '/panel/v1/api/billing/v1/verifactu/crear', caja2.token, factura('TPV-CAJA9'));
    expect(relayedAsAnother.json()).toMatchObject({ code: 'MACHINE_CREDENTIAL_MISMATCH' });

    // A header copied by a client proves nothing without the relay's per-launch secret.
    const forged = await t.billing('POST', '/v1/verifactu/crear', { body: factura('TPV-CAJA2'), headers: { 'x-panel-caja': 'TPV-CAJA2', 'x-panel-relay': 'guess' } });
    expect(forged.json()).toMatchObject({ code: 'MACHINE_CREDENTIAL_REQUIRED' });

    // A till without a credential (the server's own, POS software with an account key) works as before.
    expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura('TPV-LIBRE') })).statusCode).toBe(200);
    expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura() })).statusCode).toBe(200);
  });

  it('on the management API a till (its key, or its token through the relay) only reads, checks NIFs and registers itself', async () => {
    const asTill = { key: caja2.claves.test };
    const refusedWrites: [string, string, object?][] = [
      ['POST', '/v1/clientes/crear', { nif: 'B20123451', nombre: 'OTRA SL' }],
      ['PATCH', `/v1/clientes/${t.nifEmisor}/estado`, { estado: 'inactivo' }],
      ['PATCH', `/v1/clientes/${t.nifEmisor}`, { nombre: 'CAMBIADA SL' }],
      ['DELETE', `/v1/clientes/${t.nifEmisor}/dispositivos/TPV-OTRA-CAJA`],
      ['POST', `/v1/clientes/${t.nifEmisor}/dispositivos`, { idMaquina: 'TPV-INTRUSA' }],
      ['POST', `/v1/clientes/${t.nifEmisor}/dispositivos/series-centralizadas`, { series: ['Z'] }],
      ['POST', '/v1/webhooks', { url: 'https://example.org/hook', eventos: ['factura.registrada'] }],
    ];
    for (const [method, url, body] of refusedWrites) {
      const res = await t.manage(method, url, { ...asTill, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({ code: 'ADMIN_REQUIRED' });
      const relayed = await panel(method, `/panel/v1/api/manage${url}`, caja2.token, body);
      expect(relayed.statusCode, `relayed ${method} ${url}`).toBe(403);
    }
    expect((await t.manage('GET', '/v1/clientes', asTill)).statusCode).toBe(200);
    const own = await t.manage('POST', `/v1/clientes/${t.nifEmisor}/dispositivos`, { ...asTill, body: { idMaquina: 'TPV-CAJA2' } });
    expect(own.json()).toMatchObject({ code: 'MACHINE_ALREADY_REGISTERED' });
    const nif = await panel('POST', '/panel/v1/api/manage/v1/nif/validar', caja2.token, { nifs: [{ nif: 'B00000000', nombre: 'X' }] });
    expect(nif.statusCode).not.toBe(403);
  });

  it('revoking the till refuses its token and keys at once', async () => {
    const revoke = await t.engine.apps.panel.inject({ method: 'DELETE', url: '/panel/v1/cajas/TPV-CAJA2', headers: ADMIN });
    expect(revoke.statusCode).toBe(200);
    expect((await panel('GET', '/panel/v1/arranque', caja2.token)).statusCode).toBe(401);
    const key = await t.billing('POST', '/v1/verifactu/crear', { key: caja2.claves.test, body: factura('TPV-CAJA2') });
    expect(key.statusCode).toBe(403);
    expect(key.json()).toEqual({ message: 'Forbidden' });
    expect((await t.billing('GET', '/v1/cuenta', { key: caja2.claves.live })).statusCode).toBe(403);
  });

  it('deactivating the device through the management API revokes its credential in the same transaction', async () => {
    const caja3 = await newTill('TPV-CAJA3');
    expect((await panel('GET', '/panel/v1/sync', caja3.token)).statusCode).toBe(200);
    const baja = await t.manage('DELETE', `/v1/clientes/${t.nifEmisor}/dispositivos/TPV-CAJA3`);
    expect(baja.statusCode).toBe(200);
    expect((await panel('GET', '/panel/v1/sync', caja3.token)).statusCode).toBe(401);
    expect((await t.billing('GET', '/v1/cuenta', { key: caja3.claves.test })).statusCode).toBe(403);
  });

  it('a new credential for the same till replaces the old one', async () => {
    const first = await newTill('TPV-CAJA4');
    const second = await newTill('TPV-CAJA4');
    expect((await panel('GET', '/panel/v1/sync', first.token)).statusCode).toBe(401);
    expect((await panel('GET', '/panel/v1/sync', second.token)).statusCode).toBe(200);
    expect(second.dispositivo.test).toBe('ya_registrado');
  });

  it('the admin command line issues, lists and revokes a till’s credential on the running engine’s data dir', async () => {
    const added = (await admin(t.dataDir, 'till', 'add', t.nifEmisor, 'Caja CLI', 'TPV-CLI1')) as Issued & { engineJson: Record<string, string> };
    expect(added.engineJson).toMatchObject({ idMaquina: 'TPV-CLI1', tillToken: added.token, nifEmisor: t.nifEmisor });
    // Another process wrote it: the engine sees it from the next request on.
    expect((await panel('GET', '/panel/v1/arranque', added.token)).json()).toMatchObject({ rol: 'caja', idDispositivo: 'TPV-CLI1' });
    const list = JSON.stringify(await admin(t.dataDir, 'till', 'list', t.nifEmisor));
    expect(list).toContain('TPV-CLI1');
    expect(list).not.toContain(added.token);
    expect(await admin(t.dataDir, 'till', 'revoke', t.nifEmisor, 'TPV-CLI1')).toEqual({ idMaquina: 'TPV-CLI1', revocada: true });
    expect((await panel('GET', '/panel/v1/arranque', added.token)).statusCode).toBe(401);
    expect((await t.billing('GET', '/v1/cuenta', { key: added.claves.live })).statusCode).toBe(403);
  }, 60_000);
});
