import { beforeEach, describe, expect, it } from 'vitest';
import { deviceChainKey, ticketbaiDeviceChainKey, verifactuDeviceChainKey } from '../../../engine/src/devices/chain-keys';
import { NO_PHASE, SHARD0, type DeviceStore } from '../../../engine/src/devices/store';
import { makeDevicesEngine, OWN, type DevicesEngine } from './helpers';
import { withoutForeignKeys } from '../../support/db-faults';

let t: DevicesEngine;
let store: DeviceStore;
beforeEach(async (ctx) => {
  t = await makeDevicesEngine();
  store = t.engine.context.deviceStore;
  ctx.onTestFinished(() => t.close());
});

describe('DeviceStore: what issuing reads and writes inside its transaction', () => {
  it('an issuer without a stored phase reads no_contratada / unica', () => {
    expect(store.phase(t.account().id, OWN)).toEqual(NO_PHASE);
  });

  it('a series claim never overwrites its owner; a reservation is only ever SHARD0’s and only a reservation is released', () => {
    expect(store.claimSeries('test', OWN, 'C1', 'CAJA-1', 't1')).toBe(true);
    expect(store.claimSeries('test', OWN, 'C1', SHARD0, 't2')).toBe(false);
    expect(store.reserveSeries('test', OWN, 'C1', 't3')).toBe(false);
    expect(store.seriesOwner('test', OWN, 'C1')).toMatchObject({ idMaquinaPropietaria: 'CAJA-1', reclamadaEn: 't1', reservada: 0 });
    // The same series in the other environment is another claim.
    expect(store.claimSeries('live', OWN, 'C1', 'CAJA-9', 't1')).toBe(true);
    // Claimed by the centralized flow's first invoice: not a reservation, never released.
    store.claimSeries('test', OWN, 'FC', SHARD0, 't1');
    expect(store.releaseReservation('test', OWN, 'FC')).toBe(false);
    expect(store.reserveSeries('test', OWN, 'FR', 't1')).toBe(true);
    expect(store.releaseReservation('test', OWN, 'FR')).toBe(true);
    expect(store.seriesOwner('test', OWN, 'FR')).toBeUndefined();
  });

  it('the installation number is given once; deviceHasChain sees it, or a chain head under the device’s key', async () => {
    await t.setFase('activa');
    store.insertDevice({ entorno: 'test', nif: OWN, idMaquina: 'CAJA-1', etiqueta: '', now: 't' });
    store.insertDevice({ entorno: 'live', nif: OWN, idMaquina: 'CAJA-2', etiqueta: '', now: 't' });
    expect(store.deviceHasChain('test', OWN, 'CAJA-1')).toBe(false);
    expect(store.anyDeviceHasChain(OWN)).toBe(false);
    store.assignNumeroInstalacion('test', OWN, 'CAJA-1', 'inst-1');
    store.assignNumeroInstalacion('test', OWN, 'CAJA-1', 'inst-2');
    expect(store.device('test', OWN, 'CAJA-1')?.numeroInstalacion).toBe('inst-1');
    expect(store.deviceHasChain('test', OWN, 'CAJA-1')).toBe(true);
    const db = t.engine.context.db;
    withoutForeignKeys(db, () =>
      db.statement("INSERT INTO chains (chainKey, length, lastRegistroId, lastLink) VALUES (?, 1, 'r', '{}')").run(verifactuDeviceChainKey('live', OWN, 'CAJA-2')),
    );
    expect(store.deviceHasChain('live', OWN, 'CAJA-2')).toBe(true);
  });

  it('noteObserved keeps the first time and moves the last', () => {
    store.noteObserved('test', OWN, 'POS-1', '2026-11-20T10:00:00.000Z');
    store.noteObserved('test', OWN, 'POS-1', '2026-11-20T11:00:00.000Z');
    expect(store.observed({ entorno: 'test', nif: OWN }, '')).toEqual([
      { entorno: 'test', nif: OWN, idMaquina: 'POS-1', primeraVez: '2026-11-20T10:00:00.000Z', ultimaVez: '2026-11-20T11:00:00.000Z' },
    ]);
  });
});

describe('Per-device chain keys (chain-keys.ts): the issuer’s key plus the device', () => {
  it('VeriFactu keys the full identifier; TicketBAI the declared device (its last 30 characters)', () => {
    expect(verifactuDeviceChainKey('test', OWN, 'CAJA-1')).toBe(`test|verifactu|${OWN}|dev:CAJA-1`);
    const largo = `${'a'.repeat(34)}${'x'.repeat(30)}`;
    expect(verifactuDeviceChainKey('live', OWN, largo)).toBe(`live|verifactu|${OWN}|dev:${largo}`);
    expect(ticketbaiDeviceChainKey('live', OWN, largo)).toBe(`live|ticketbai|${OWN}|dev:${'x'.repeat(30)}`);
    expect(deviceChainKey('verifactu', 'test', OWN, 'A')).not.toBe(deviceChainKey('ticketbai', 'test', OWN, 'A'));
  });
});
