import { beforeEach, describe, expect, it } from 'vitest';
import { anAutonomo, anEmpresa, crear, expectError, json, makeClientsEngine, startCensus, usados, type ClientsEngine } from './helpers';

let t: ClientsEngine;
beforeEach(async (ctx) => {
  t = await makeClientsEngine();
  ctx.onTestFinished(() => t.close());
  expect((await crear(t, anEmpresa())).statusCode).toBe(201);
});

const DAY = 24 * 3600 * 1000;
const eliminar = (nif: string, cuenta = 'B12345674', entorno = 'test') =>
  t.panel('POST', `/panel/v1/cuentas/${cuenta}/clientes/${nif}/eliminar`, { entorno });
const restaurar = (nif: string, cuenta = 'B12345674', entorno = 'test') =>
  t.panel('POST', `/panel/v1/cuentas/${cuenta}/clientes/${nif}/restaurar`, { entorno });

describe('Deletion and restoration are done in the panel (panel token), not by API', () => {
  it('the panel needs its token; the management API has no delete route', async () => {
    const res = await t.engine.apps.panel.inject({ method: 'POST', url: '/panel/v1/cuentas/B12345674/clientes/B48123459/eliminar', payload: { entorno: 'test' } });
    expect(res.statusCode).toBe(401);
    expect((await t.manage('DELETE', '/v1/clientes/B48123459')).statusCode).toBe(404);
  });

  it('deletion answers the deletion date and the end of the restoration window; a repeat keeps them', async () => {
    const res = await eliminar('B48123459');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({
      nif: 'B48123459',
      estado: 'eliminado',
      entorno: 'test',
      fechaEliminacion: '2026-11-20T10:00:00.000Z',
      restaurableHasta: '2026-12-20T10:00:00.000Z',
      clientesUsados: 1,
    });
    t.clock.advance(DAY);
    expect(json(await eliminar('B48123459'))).toMatchObject({ fechaEliminacion: '2026-11-20T10:00:00.000Z' });
  });

  it('the account can be named by id or by its NIF; unknown account or issuer → 404; entorno is required', async () => {
    const id = t.account().id;
    expect((await eliminar('B48123459', id)).statusCode).toBe(200);
    expectError(await eliminar('B48123459', 'acc_nope'), 404, 'NOT_FOUND');
    expectError(await eliminar('44444444A'), 404, 'NOT_FOUND');
    expectError(await t.panel('POST', '/panel/v1/cuentas/B12345674/clientes/B48123459/restaurar', {}), 400, 'VALIDATION_ERROR', 'entorno');
  });

  it('restoring an issuer that is not deleted → 409 CLIENT_STATUS_INVALID', async () => {
    expectError(await restaurar('B48123459'), 409, 'CLIENT_STATUS_INVALID');
  });

  it('deletion and restoration are per environment', async () => {
    expect((await crear(t, anEmpresa(), t.keys.live)).statusCode).toBe(201);
    await eliminar('B48123459', 'B12345674', 'live');
    expect((await t.manage('GET', '/v1/clientes/B48123459', { key: t.keys.test })).statusCode).toBe(200);
    expect((await t.manage('GET', '/v1/clientes/B48123459', { key: t.keys.live })).statusCode).toBe(404);
  });
});

describe('Deleted issuers are listed with incluirEliminados=true for 30 days, with fechaEliminacion', () => {
  it('list and detail', async () => {
    await eliminar('B48123459');
    const plain = json<{ clientes: { nif: string }[] }>(await t.manage('GET', '/v1/clientes'));
    expect(plain.clientes.map((c) => c.nif)).toEqual(['B12345674']);
    const withDeleted = json<{ clientes: { nif: string; estado: string; fechaEliminacion?: string }[] }>(await t.manage('GET', '/v1/clientes?incluirEliminados=true'));
    expect(withDeleted.clientes[1]).toMatchObject({ nif: 'B48123459', estado: 'eliminado', fechaEliminacion: '2026-11-20T10:00:00.000Z' });
    expect(withDeleted.clientes[0]).not.toHaveProperty('fechaEliminacion');
    expectError(await t.manage('GET', '/v1/clientes/B48123459'), 404, 'NOT_FOUND');
    const detail = json<{ cliente: { estado: string; fechaEliminacion: string } }>(await t.manage('GET', '/v1/clientes/B48123459?incluirEliminados=true'));
    expect(detail.cliente).toMatchObject({ estado: 'eliminado', fechaEliminacion: '2026-11-20T10:00:00.000Z' });

    t.clock.advance(30 * DAY + 1000);
    const later = json<{ clientes: { nif: string }[] }>(await t.manage('GET', '/v1/clientes?incluirEliminados=true'));
    expect(later.clientes.map((c) => c.nif)).toEqual(['B12345674']);
    expectError(await t.manage('GET', '/v1/clientes/B48123459?incluirEliminados=true'), 404, 'NOT_FOUND');
  });

  it('a deleted issuer cannot issue (its NIF is not an active issuer)', async () => {
    await eliminar('B48123459');
    const issuer = t.engine.context.issuers.findForAccount(t.account().id, 'test', 'B48123459');
    expect(issuer?.estado).toBe('eliminado');
  });
});

describe('A deleted NIF inside its window holds the NIF; after the window it is free again', () => {
  it('same account inside the window: 400 pointing to the panel; after it, created anew', async () => {
    await eliminar('B48123459');
    const body = expectError(await crear(t, anEmpresa()), 400, 'VALIDATION_ERROR', 'nif');
    expect(String(body.message)).toMatch(/panel/);
    t.clock.advance(31 * DAY);
    const res = await crear(t, anEmpresa());
    expect(res.statusCode, res.body).toBe(201);
    expect(json<{ cliente: { estado: string; creadoEn: string } }>(res).cliente).toMatchObject({ estado: 'activo', creadoEn: t.clock.now().toISOString() });
    expect((await usados(t)).clientesUsados).toBe(2);
  });

  it('another account: refused inside the window, free after it', async () => {
    const other = t.otherAccount();
    await eliminar('B48123459');
    expectError(await crear(t, anEmpresa(), other.test), 400, 'VALIDATION_ERROR', 'nif');
    t.clock.advance(31 * DAY);
    expect((await crear(t, anEmpresa(), other.test)).statusCode).toBe(201);
    // The first account no longer sees it, even with incluirEliminados: it is another account's issuer now.
    expectError(await t.manage('GET', '/v1/clientes/B48123459?incluirEliminados=true'), 403, 'FORBIDDEN');
  });

  it('deleting an autonomo frees its seat for a new one at the limit', async () => {
    t.setLimits(2);
    expectError(await crear(t, anAutonomo()), 409, 'CLIENT_LIMIT_REACHED');
    await eliminar('B48123459');
    expect((await crear(t, anAutonomo())).statusCode).toBe(201);
    expectError(await restaurar('B48123459'), 409, 'CLIENT_LIMIT_REACHED');
  });
});

describe('The panel lists an account’s clients', () => {
  it('with the same rows and counters as the API', async () => {
    const res = await t.panel('GET', '/panel/v1/cuentas/B12345674/clientes?entorno=test&incluirEliminados=true');
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ entorno: 'test', total: 2, limitePlan: 10, clientesUsados: 2 });
  });
});

describe('The panel relays the census emulator’s fault controls', () => {
  it('PUT and GET /panel/v1/emuladores/censo/faults', async () => {
    const census = await startCensus();
    const withEmulators = await makeClientsEngine({ emulatorUrl: census.url });
    try {
      const put = await withEmulators.panel('PUT', '/panel/v1/emuladores/censo/faults', { mode: 'down', omit: ['B12345674'] });
      expect(put.statusCode, put.body).toBe(200);
      expect(census.service.faults.state).toMatchObject({ mode: 'down', omit: ['B12345674'] });
      expect(json(await withEmulators.panel('GET', '/panel/v1/emuladores/censo/faults'))).toMatchObject({ mode: 'down' });
      expect((await t.panel('GET', '/panel/v1/emuladores/censo/faults')).statusCode).toBe(404);
    } finally {
      await withEmulators.close();
      await census.close();
    }
  });
});
