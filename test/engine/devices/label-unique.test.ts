// Our extension: staff tell tills apart by name, so an issuer's active devices never share an
// `etiqueta` (409 DEVICE_LABEL_TAKEN naming `etiqueta`, nothing stored).
import { beforeEach, describe, expect, it } from 'vitest';
import { expectError } from '../clients/helpers';
import { makeDevicesEngine, type DevicesEngine } from './helpers';

let t: DevicesEngine;
beforeEach(async (ctx) => {
  t = await makeDevicesEngine();
  ctx.onTestFinished(() => t.close());
});

const register = (idMaquina: string, etiqueta?: string, entorno: 'test' | 'live' = 'test') =>
  t.dev('POST', '', { key: t.key(entorno), body: { idMaquina, ...(etiqueta !== undefined ? { etiqueta } : {}) } });

describe('POST …/dispositivos: a name already used by another active till of the issuer', () => {
  it('409 DEVICE_LABEL_TAKEN naming etiqueta (any case, spaces around); nothing stored', async () => {
    await t.setFase('activa');
    expect((await register('WEB-AAAAAAAAAA', 'Caja 1')).statusCode).toBe(201);
    for (const same of ['Caja 1', ' caja 1 ', 'CAJA 1']) expectError(await register('WEB-BBBBBBBBBB', same), 409, 'DEVICE_LABEL_TAKEN', 'etiqueta');
    expect((await t.status()).dispositivos.map((d) => d.idMaquina)).toEqual(['WEB-AAAAAAAAAA']);
    expect((await register('WEB-BBBBBBBBBB', 'Caja 2')).statusCode).toBe(201);
  });

  it('the name is free again once its till is deactivated; unnamed tills never clash; per environment', async () => {
    await t.setFase('activa');
    await register('WEB-AAAAAAAAAA', 'Caja 1');
    expect((await register('WEB-CCCCCCCCCC')).statusCode).toBe(201);
    expect((await register('WEB-DDDDDDDDDD')).statusCode).toBe(201);
    expect((await register('WEB-AAAAAAAAAA', 'Caja 1', 'live')).statusCode).toBe(201);
    await t.dev('DELETE', '/WEB-AAAAAAAAAA', { key: t.key('test') });
    expect((await register('WEB-BBBBBBBBBB', 'Caja 1')).statusCode).toBe(201);
    // Reactivating the first till under the name now taken is refused the same way.
    expectError(await register('WEB-AAAAAAAAAA'), 409, 'DEVICE_LABEL_TAKEN', 'etiqueta');
    expect((await t.status()).dispositivos.find((d) => d.idMaquina === 'WEB-AAAAAAAAAA')?.activo).toBe(false);
  });
});
