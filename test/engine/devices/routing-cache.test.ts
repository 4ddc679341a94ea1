// The device rows issuing reads on every request in `activa` (phase, device, series owner) are
// kept in memory (devices/routing-cache.ts): a change by any path — this process, another
// connection, the admin command line — is seen by the next request, and a write that rolls back
// is never remembered.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SHARD0, type DeviceStore } from '../../../engine/src/devices/store';
import { verifactuChainKey } from '../../../engine/src/regimes/verifactu/service';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { admin } from '../../support/admin-cli';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { otherConnection as openOther } from '../../support/other-connection';

const NIF = 'B12345674';

let t: TestEngine;
let store: DeviceStore;
let n = 0;
beforeEach(async () => {
  t = await makeTestEngine();
  store = t.engine.context.deviceStore;
  const account = t.engine.context.accounts.listAccounts()[0]!;
  t.engine.context.devices.setPhase(account.id, NIF, 'activa');
  for (const idMaquina of ['caja-1', 'caja-2']) t.engine.context.devices.register({ account, entorno: 'test' }, NIF, { idMaquina });
});
afterEach(async () => t.close());

/** Another connection to the engine's database, as another process would open it. */
const otherConnection = () => openOther(t.engine.context.db);

const crear = (idMaquina: string | undefined, serie = `S-${idMaquina ?? 'central'}`) =>
  t.billing('POST', '/v1/verifactu/crear', { body: aFacturaF2({ cabecera: { serie, numero: String(++n) }, ...(idMaquina ? { idMaquina } : {}) }) });

async function crearOk(idMaquina: string | undefined, serie?: string): Promise<{ idFactura: string }> {
  const res = await crear(idMaquina, serie);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const chainOfInvoice = (idFactura: string) =>
  (t.engine.context.db.statement('SELECT chainKey FROM registros WHERE invoiceId = ?').get(idFactura) as { chainKey: string }).chainKey;

describe('Routing rows are read from memory while nothing about them changes', () => {
  it('the same phase, device and series owner twice are the rows read the first time, an invoice in between', async () => {
    await crearOk('caja-1');
    const phase = store.phase(t.engine.context.accounts.listAccounts()[0]!.id, NIF);
    const device = store.device('test', NIF, 'caja-1');
    const owner = store.seriesOwner('test', NIF, 'S-caja-1');
    expect(owner?.idMaquinaPropietaria).toBe('caja-1');
    await crearOk('caja-1');
    expect(store.phase(t.engine.context.accounts.listAccounts()[0]!.id, NIF)).toBe(phase);
    expect(store.device('test', NIF, 'caja-1')).toBe(device);
    expect(store.seriesOwner('test', NIF, 'S-caja-1')).toBe(owner);
  });
});

describe('A deactivated device is refused from the next request on', () => {
  it('deactivated through the API of this engine', async () => {
    await crearOk('caja-1');
    const res = await t.manage('DELETE', `/v1/clientes/${NIF}/dispositivos/caja-1`);
    expect(res.statusCode, res.body).toBe(200);
    const refused = await crear('caja-1');
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'MACHINE_NOT_REGISTERED', campo: 'idMaquina' });
    await crearOk('caja-2');
  });

  it('deactivated, then reactivated, by another connection (another process on the same file)', async () => {
    await crearOk('caja-1');
    const other = otherConnection();
    try {
      other.statement("UPDATE devices SET activo = 0 WHERE entorno = 'test' AND nif = ? AND idMaquina = 'caja-1'").run(NIF);
      expect((await crear('caja-1')).json()).toMatchObject({ code: 'MACHINE_NOT_REGISTERED' });
      other.statement("UPDATE devices SET activo = 1 WHERE entorno = 'test' AND nif = ? AND idMaquina = 'caja-1'").run(NIF);
      await crearOk('caja-1');
    } finally {
      void other.close();
    }
  });

  it('a series given to another owner by another connection is refused to its former owner', async () => {
    // The second invoice reads the claim the first one made, and keeps it.
    await crearOk('caja-1');
    await crearOk('caja-1');
    const other = otherConnection();
    try {
      other.statement("UPDATE device_series SET idMaquinaPropietaria = 'caja-2' WHERE entorno = 'test' AND nif = ? AND serie = 'S-caja-1'").run(NIF);
    } finally {
      void other.close();
    }
    const refused = await crear('caja-1');
    expect(refused.json()).toMatchObject({ code: 'SERIE_OWNED_BY_OTHER_MACHINE', campo: 'serie' });
    await crearOk('caja-2', 'S-caja-1');
  });
});

describe('A phase changed by the admin command line in another process applies from the next request on', () => {
  it('activa → preparacion (no device has a chain yet): a request naming a till goes to the issuer’s single chain', async () => {
    // The phase read (activa) and kept by a centralized invoice.
    await crearOk(undefined);
    const central = await crearOk(undefined);
    expect(chainOfInvoice(central.idFactura)).toBe(verifactuChainKey('test', NIF));
    await admin(t.dataDir, 'devices', 'phase', NIF, 'preparacion');
    const single = await crearOk('caja-1');
    expect(chainOfInvoice(single.idFactura)).toBe(verifactuChainKey('test', NIF));
    expect(store.device('test', NIF, 'caja-1')?.numeroInstalacion).toBeNull();
  });
});

describe('A write that rolls back is never remembered', () => {
  it('a series claimed in a transaction that rolls back is unclaimed afterwards, and another writer may claim it', () => {
    const db = t.engine.context.db;
    expect(store.seriesOwner('test', NIF, 'R1')).toBeUndefined();
    expect(() =>
      db.transaction(() => {
        expect(store.claimSeries('test', NIF, 'R1', 'caja-1', 't1')).toBe(true);
        expect(store.seriesOwner('test', NIF, 'R1')?.idMaquinaPropietaria).toBe('caja-1');
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    // Another connection's commit brings the counter to the value the rolled-back claim had:
    // the cache must not take the old claim for the new state.
    const other = otherConnection();
    try {
      other.statement("INSERT INTO device_series (entorno, nif, serie, idMaquinaPropietaria, reclamadaEn, reservada) VALUES ('test', ?, 'R1', ?, 't2', 0)").run(NIF, SHARD0);
    } finally {
      void other.close();
    }
    expect(store.seriesOwner('test', NIF, 'R1')?.idMaquinaPropietaria).toBe(SHARD0);
    expect(store.claimSeries('test', NIF, 'R3', 'caja-1', 't3')).toBe(true);
    expect(store.seriesOwner('test', NIF, 'R3')?.idMaquinaPropietaria).toBe('caja-1');
  });

  it('a claim rolled back to its savepoint inside a group of requests: later reads of the transaction go to the database', () => {
    const db = t.engine.context.db;
    db.transaction(() => {
      expect(store.seriesOwner('test', NIF, 'R2')).toBeUndefined();
      expect(() =>
        db.transaction(() => {
          store.claimSeries('test', NIF, 'R2', 'caja-1', 't1');
          throw new Error('this request fails');
        }),
      ).toThrow('this request fails');
      expect(store.seriesOwner('test', NIF, 'R2')).toBeUndefined();
      expect(store.claimSeries('test', NIF, 'R2', 'caja-2', 't2')).toBe(true);
      expect(store.seriesOwner('test', NIF, 'R2')?.idMaquinaPropietaria).toBe('caja-2');
    });
    expect(store.seriesOwner('test', NIF, 'R2')?.idMaquinaPropietaria).toBe('caja-2');
  });
});
