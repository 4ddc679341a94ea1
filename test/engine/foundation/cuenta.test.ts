import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cuentaResponseSchema } from '../../../src-shared/api/cuenta';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine({ limits: {} });
});
afterAll(async () => t.close());

describe('GET /v1/cuenta: the environment is derived from the key', () => {
  it('TEST key → entorno test; LIVE key → entorno live', async () => {
    const test = await t.billing('GET', '/v1/cuenta', { key: t.keys.test });
    const live = await t.billing('GET', '/v1/cuenta', { key: t.keys.live });
    expect(test.json().entorno).toBe('test');
    expect(live.json().entorno).toBe('live');
  });

  it('answers the Account resource: plan, estadoCuenta, facturacionActiva, nifClientePrincipal, consultadoEn', async () => {
    const body = (await t.billing('GET', '/v1/cuenta')).json();
    expect(cuentaResponseSchema.parse(body)).toBeTruthy();
    expect(body).toMatchObject({
      plan: 'empresa',
      estadoCuenta: 'activa',
      facturacionActiva: true,
      nifClientePrincipal: 'B12345674',
      consultadoEn: t.clock.now().toISOString(),
    });
  });

  it('consumo is a snapshot per key refreshed at most every few minutes, with observadoEn', async () => {
    t.clock.advance(6 * 60_000); // past the snapshot taken by the earlier test
    const first = (await t.billing('GET', '/v1/cuenta', { key: t.keys.live })).json().consumo;
    expect(first).toMatchObject({ limite: 1_000_000, periodo: '2026-11', observadoEn: t.clock.now().toISOString() });
    expect(first.usadas + first.restantes).toBe(first.limite);
    t.clock.advance(1000);
    const second = (await t.billing('GET', '/v1/cuenta', { key: t.keys.live })).json().consumo;
    expect(second.usadas).toBe(first.usadas); // same snapshot: lag is expected
    expect(second.observadoEn).toBe(first.observadoEn);
    t.clock.advance(6 * 60_000);
    const third = (await t.billing('GET', '/v1/cuenta', { key: t.keys.live })).json().consumo;
    expect(third.usadas).toBe(first.usadas + 2);
    expect(third.observadoEn).toBe(t.clock.now().toISOString());
  });

  it('billing state comes from the account (admin sets it)', async () => {
    const ctx = t.engine.context;
    const account = ctx.accounts.listAccounts()[0]!;
    ctx.accounts.updateAccount(account.id, { estadoCuenta: 'pago_pendiente', facturacionActiva: 0 });
    const body = (await t.billing('GET', '/v1/cuenta')).json();
    expect(body).toMatchObject({ estadoCuenta: 'pago_pendiente', facturacionActiva: false });
    ctx.accounts.updateAccount(account.id, { estadoCuenta: 'activa', facturacionActiva: 1 });
  });
});
