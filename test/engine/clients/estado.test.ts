import { beforeEach, describe, expect, it } from 'vitest';
import { anAutonomo, crear, dniNumber, expectError, json, makeClientsEngine, usados, type ClientsEngine } from './helpers';

let t: ClientsEngine;
beforeEach(async (ctx) => {
  t = await makeClientsEngine();
  ctx.onTestFinished(() => t.close());
});

const setEstado = (nif: string, estado: unknown, key?: string) =>
  t.manage('PATCH', `/v1/clientes/${nif}/estado`, { body: { estado }, ...(key ? { key } : {}) });
const alta = async (i: number, key?: string) => {
  const res = await crear(t, anAutonomo({ nif: dniNumber(i), nombre: `PERSONA ${i}` }), key);
  expect(res.statusCode, res.body).toBe(201);
  return dniNumber(i);
};
const eliminar = (nif: string, entorno = 'test') => t.panel('POST', `/panel/v1/cuentas/B12345674/clientes/${nif}/eliminar`, { entorno });
const restaurar = (nif: string, entorno = 'test') => t.panel('POST', `/panel/v1/cuentas/B12345674/clientes/${nif}/restaurar`, { entorno });
const estadoDe = async (nif: string) => json<{ cliente: { estado: string } }>(await t.manage('GET', `/v1/clientes/${nif}?incluirEliminados=true`)).cliente.estado;

describe('activo → PATCH /estado inactivo (not the own company) → inactivo; clientesUsados decreases by 1', () => {
  it('answers message, nif, estado and entorno', async () => {
    const nif = await alta(1);
    expect((await usados(t)).clientesUsados).toBe(2);
    const res = await setEstado(nif, 'inactivo');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ message: expect.any(String), nif, estado: 'inactivo', entorno: 'test' });
    expect(await usados(t)).toEqual({ limitePlan: 10, clientesUsados: 1, clientesDisponibles: 9 });
  });
});

describe('inactivo → PATCH /estado activo → activo if a seat is free (+1); otherwise 409 CLIENT_LIMIT_REACHED', () => {
  it('with a free seat', async () => {
    const nif = await alta(1);
    await setEstado(nif, 'inactivo');
    const res = await setEstado(nif, 'activo');
    expect(json(res)).toEqual({ message: expect.any(String), nif, estado: 'activo', entorno: 'test' });
    expect((await usados(t)).clientesUsados).toBe(2);
  });
  it('without one', async () => {
    t.setLimits(2);
    const a = await alta(1);
    await setEstado(a, 'inactivo');
    await alta(2);
    expectError(await setEstado(a, 'activo'), 409, 'CLIENT_LIMIT_REACHED');
    expect(await estadoDe(a)).toBe('inactivo');
    expect((await usados(t)).clientesUsados).toBe(2);
  });
});

describe('activo or inactivo → deletion in the panel (not the own company) → eliminado; -1 only if it was active', () => {
  it('an active issuer frees its seat', async () => {
    const nif = await alta(1);
    expect((await eliminar(nif)).statusCode).toBe(200);
    expect(await estadoDe(nif)).toBe('eliminado');
    expect((await usados(t)).clientesUsados).toBe(1);
  });
  it('an inactive issuer changes nothing in the count', async () => {
    const nif = await alta(1);
    await setEstado(nif, 'inactivo');
    expect((await usados(t)).clientesUsados).toBe(1);
    expect((await eliminar(nif)).statusCode).toBe(200);
    expect((await usados(t)).clientesUsados).toBe(1);
  });
});

describe('eliminado → restoration in the panel within 30 days → activo; +1; may give 409 CLIENT_LIMIT_REACHED', () => {
  it('within the window', async () => {
    const nif = await alta(1);
    await eliminar(nif);
    t.clock.advance(29 * 24 * 3600 * 1000);
    const res = await restaurar(nif);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ nif, estado: 'activo', clientesUsados: 2 });
    expect(await estadoDe(nif)).toBe('activo');
  });
  it('without a free seat', async () => {
    t.setLimits(2);
    const a = await alta(1);
    await eliminar(a);
    await alta(2);
    expectError(await restaurar(a), 409, 'CLIENT_LIMIT_REACHED');
    expect(await estadoDe(a)).toBe('eliminado');
  });
  it('after the window: gone (404)', async () => {
    const nif = await alta(1);
    await eliminar(nif);
    t.clock.advance(30 * 24 * 3600 * 1000 + 1000);
    expectError(await restaurar(nif), 404, 'NOT_FOUND');
  });
});

describe('eliminado → PATCH /estado → unchanged, 409 CLIENT_DELETED', () => {
  it('for either target state', async () => {
    const nif = await alta(1);
    await eliminar(nif);
    expectError(await setEstado(nif, 'activo'), 409, 'CLIENT_DELETED');
    expectError(await setEstado(nif, 'inactivo'), 409, 'CLIENT_DELETED');
    expect(await estadoDe(nif)).toBe('eliminado');
  });
});

describe('any → PATCH /estado to the state it already has → unchanged, 200 without entorno', () => {
  it('activo → activo, inactivo → inactivo, and the own company activo → activo', async () => {
    const nif = await alta(1);
    const same = await setEstado(nif, 'activo');
    expect(same.statusCode).toBe(200);
    expect(json(same)).toEqual({ message: expect.any(String), nif, estado: 'activo' });
    await setEstado(nif, 'inactivo');
    expect(json(await setEstado(nif, 'inactivo'))).not.toHaveProperty('entorno');
    const own = json(await setEstado('B12345674', 'activo'));
    expect(own).toEqual({ message: expect.any(String), nif: 'B12345674', estado: 'activo' });
    expect((await usados(t)).clientesUsados).toBe(1);
  });
  it('even when the plan is full, re-activating an active issuer is 200', async () => {
    t.setLimits(1);
    expect((await setEstado('B12345674', 'activo')).statusCode).toBe(200);
  });
});

describe('the caller’s own company → deactivation or deletion → unchanged, 409 SELF_CLIENT_PROTECTED', () => {
  it('deactivation', async () => {
    expectError(await setEstado('B12345674', 'inactivo'), 409, 'SELF_CLIENT_PROTECTED');
    expect(await estadoDe('B12345674')).toBe('activo');
  });
  it('deletion in the panel', async () => {
    expectError(await eliminar('B12345674'), 409, 'SELF_CLIENT_PROTECTED');
    expect(await estadoDe('B12345674')).toBe('activo');
  });
});

describe('409 CLIENT_STATUS_INVALID when the stored state does not admit the change; 400 and 404', () => {
  it('an unknown stored state', async () => {
    const nif = await alta(1);
    t.engine.context.db.statement(`UPDATE issuers SET estado='bloqueado' WHERE nif=?`).run(nif);
    expectError(await setEstado(nif, 'inactivo'), 409, 'CLIENT_STATUS_INVALID');
  });
  it('estado must be activo or inactivo', async () => {
    const nif = await alta(1);
    for (const bad of ['eliminado', 'ACTIVO', true, undefined]) expectError(await setEstado(nif, bad), 400, 'VALIDATION_ERROR', 'estado');
  });
  it('an unknown issuer or the other environment’s → 404; another account’s → 403 FORBIDDEN', async () => {
    const nif = await alta(1);
    expectError(await setEstado(dniNumber(99), 'inactivo'), 404, 'NOT_FOUND');
    const other = t.otherAccount();
    expectError(await setEstado(nif, 'inactivo', other.test), 403, 'FORBIDDEN');
    expectError(await setEstado(nif, 'inactivo', t.keys.live), 404, 'NOT_FOUND');
  });
});

describe('Counters stay right under concurrent creations, deactivations and reactivations', () => {
  it('concurrent reactivations with 2 free seats: exactly 2 succeed', async () => {
    t.setLimits(null);
    const nifs = [];
    for (let i = 0; i < 6; i++) nifs.push(await alta(i));
    for (const nif of nifs) await setEstado(nif, 'inactivo');
    t.setLimits(3);
    const results = await Promise.all(nifs.map((nif) => setEstado(nif, 'activo')));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(2);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(4);
    expect(await usados(t)).toEqual({ limitePlan: 3, clientesUsados: 3, clientesDisponibles: 0 });
  });

  it('a mix of creations, deactivations and reactivations: clientesUsados equals the active issuers and never exceeds the limit', async () => {
    t.setLimits(8);
    const existing = [];
    for (let i = 0; i < 6; i++) existing.push(await alta(i));
    for (const nif of existing.slice(3)) await setEstado(nif, 'inactivo');
    const ops = [
      ...existing.slice(0, 3).map((nif) => setEstado(nif, 'inactivo')),
      ...existing.slice(3).map((nif) => setEstado(nif, 'activo')),
      ...Array.from({ length: 8 }, (_, i) => crear(t, anAutonomo({ nif: dniNumber(100 + i), nombre: `NUEVA ${i}` }))),
      ...existing.slice(0, 3).map((nif) => setEstado(nif, 'activo')),
    ];
    const results = await Promise.all(ops);
    expect(results.every((r) => [200, 201, 409].includes(r.statusCode))).toBe(true);
    const all = json<{ clientes: { estado: string }[] }>(await t.manage('GET', '/v1/clientes?limite=100')).clientes;
    const active = all.filter((c) => c.estado === 'activo').length;
    const counters = await usados(t);
    expect(counters.clientesUsados).toBe(active);
    expect(active).toBeLessThanOrEqual(8);
    expect(counters.clientesDisponibles).toBe(8 - active);
  });

  it('concurrent deactivation and deletion of the same issuer take one seat off, once', async () => {
    const nif = await alta(1);
    await Promise.all([setEstado(nif, 'inactivo'), eliminar(nif), setEstado(nif, 'inactivo'), eliminar(nif)]);
    expect((await usados(t)).clientesUsados).toBe(1);
  });
});
