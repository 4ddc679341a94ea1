import { beforeEach, describe, expect, it, vi } from 'vitest';
import { etiquetaFrom, registerTill, type RegistrationTarget } from '../../src-main/till-registration';
import { makeDevicesEngine, OWN, type DevicesEngine } from '../engine/devices/helpers';

let t: DevicesEngine;
let target: RegistrationTarget;
const log = { info: vi.fn(), warn: vi.fn() };

beforeEach(async (ctx) => {
  t = await makeDevicesEngine();
  const urls = await t.engine.start();
  target = { manageUrl: urls.manage, billingUrl: urls.billing, apiKey: t.keys.test };
  ctx.onTestFinished(() => t.close());
});

describe('The till’s registration against a real engine (src-main/till-registration.ts)', () => {
  it('no_contratada: sin_alta_capacidad, nothing registered', async () => {
    expect(await registerTill(target, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'caja-1' }, { fetch, log })).toBe('sin_alta_capacidad');
    expect((await t.status()).dispositivos).toEqual([]);
  });

  it('two till identities against one engine: both registered (the issuer from /v1/cuenta), both listed; a repeat is ya_registrado', async () => {
    await t.setFase('activa');
    expect(await registerTill(target, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'caja-principal' }, { fetch, log })).toBe('registrado');
    expect(await registerTill({ ...target, nifEmisor: OWN }, { idMaquina: 'TPV-BBBBBBBBBBBB', etiqueta: 'caja-terraza' }, { fetch, log })).toBe('registrado');
    expect(await registerTill(target, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'caja-principal' }, { fetch, log })).toBe('ya_registrado');
    expect((await t.status()).dispositivos.map((d) => [d.idMaquina, d.etiqueta, d.activo])).toEqual([
      ['TPV-AAAAAAAAAAAA', 'caja-principal', true],
      ['TPV-BBBBBBBBBBBB', 'caja-terraza', true],
    ]);
  });

  it('issue 29: a name another active till has is not a failure: the next free «Caja N», read from the engine', async () => {
    await t.setFase('activa');
    expect(await registerTill(target, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'Caja 1' }, { fetch, log })).toBe('registrado');
    expect(await registerTill(target, { idMaquina: 'TPV-BBBBBBBBBBBB', etiqueta: 'Caja 2' }, { fetch, log })).toBe('registrado');
    // Two more desktop tills, both starting as «Caja 1».
    expect(await registerTill(target, { idMaquina: 'TPV-CCCCCCCCCCCC', etiqueta: 'Caja 1' }, { fetch, log })).toBe('registrado');
    expect(await registerTill(target, { idMaquina: 'TPV-DDDDDDDDDDDD', etiqueta: 'Caja 1' }, { fetch, log })).toBe('registrado');
    expect((await t.status()).dispositivos.map((d) => [d.idMaquina, d.etiqueta])).toEqual([
      ['TPV-AAAAAAAAAAAA', 'Caja 1'],
      ['TPV-BBBBBBBBBBBB', 'Caja 2'],
      ['TPV-CCCCCCCCCCCC', 'Caja 3'],
      ['TPV-DDDDDDDDDDDD', 'Caja 4'],
    ]);
    // Already registered under its own name: nothing renamed.
    expect(await registerTill(target, { idMaquina: 'TPV-DDDDDDDDDDDD', etiqueta: 'Caja 1' }, { fetch, log })).toBe('ya_registrado');
    expect((await t.status()).dispositivos.map((d) => d.etiqueta)).toEqual(['Caja 1', 'Caja 2', 'Caja 3', 'Caja 4']);
  });

  it('a deactivated till is reactivated on its next start', async () => {
    await t.setFase('preparacion');
    await registerTill(target, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'caja-1' }, { fetch, log });
    await t.dev('DELETE', '/TPV-AAAAAAAAAAAA');
    expect(await registerTill(target, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'caja-1' }, { fetch, log })).toBe('reactivado');
    expect((await t.status()).dispositivos[0]).toMatchObject({ activo: true });
  });

  it('an unreachable engine or a refused key is reported, never thrown', async () => {
    await t.setFase('activa');
    expect(await registerTill({ ...target, apiKey: 'sk_test_wrong' }, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'x' }, { fetch, log })).toBe('error');
    expect(await registerTill({ manageUrl: 'http://127.0.0.1:9', apiKey: 'k', nifEmisor: OWN }, { idMaquina: 'TPV-AAAAAAAAAAAA', etiqueta: 'x' }, { fetch, log })).toBe('error');
    expect(log.warn).toHaveBeenCalled();
  });

  it('the label is plain text of at most 120 characters', () => {
    expect(etiquetaFrom('caja\u0007-1')).toBe('caja-1');
    expect(etiquetaFrom('n'.repeat(200))).toHaveLength(120);
  });
});
