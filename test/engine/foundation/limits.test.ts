import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, type LimitsConfig } from '../../../engine/src/account/plans';
import { makeTestEngine, type TestEngine } from '../../support/engine';

const DEFAULTS = {}; // the spec's TEST limits: 10 req/s, burst 20, 1,000 a month
let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('Requests per second, TEST: 10, burst 20', () => {
  it('the 21st request within one second → 429 RATE_LIMITED with Retry-After', async () => {
    t = await makeTestEngine({ limits: DEFAULTS });
    for (let i = 0; i < 20; i++) expect((await t.billing('GET', '/v1/cuenta')).statusCode).toBe(200);
    const res = await t.billing('GET', '/v1/cuenta');
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ code: 'RATE_LIMITED' });
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(2);
    t.clock.advance(1000);
    expect((await t.billing('GET', '/v1/cuenta')).statusCode).toBe(200);
  });

  it('the billing and management APIs share the bucket', async () => {
    t = await makeTestEngine({ limits: DEFAULTS });
    for (let i = 0; i < 10; i++) await t.billing('GET', '/v1/cuenta');
    for (let i = 0; i < 10; i++) await t.manage('GET', '/v1/cumplimiento/declaracion-responsable');
    expect((await t.manage('GET', '/v1/cumplimiento/declaracion-responsable')).json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await t.billing('GET', '/v1/cuenta')).json()).toMatchObject({ code: 'RATE_LIMITED' });
  });
});

describe('Monthly quota, TEST: 1,000 requests', () => {
  async function spend(n: number, api: 'billing' | 'manage' = 'billing') {
    for (let i = 0; i < n; i++) {
      t!.clock.advance(200); // stay under the per-second limit
      const res = api === 'billing' ? await t!.billing('GET', '/v1/cuenta') : await t!.manage('GET', '/v1/cumplimiento/declaracion-responsable');
      expect(res.statusCode).not.toBe(429);
    }
  }

  it('the 1,001st in a month → 429 QUOTA_EXCEEDED, Retry-After to the 1st of next month; both APIs count', async () => {
    t = await makeTestEngine({ limits: DEFAULTS, now: '2026-11-20T10:00:00Z' });
    await spend(500, 'billing');
    await spend(500, 'manage');
    t.clock.advance(200);
    const res = await t.billing('GET', '/v1/cuenta');
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    // 1 December 2026 00:00 in Madrid is 23:00Z on 30 November.
    const expected = (Date.parse('2026-11-30T23:00:00Z') - t.clock.now().getTime()) / 1000;
    expect(Number(res.headers['retry-after'])).toBe(Math.ceil(expected));
    t.clock.set('2026-11-30T23:00:01Z');
    expect((await t.billing('GET', '/v1/cuenta')).statusCode).toBe(200);
  });

  it('the quota survives a restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'engine-quota-'));
    t = await makeTestEngine({ limits: DEFAULTS, dataDir });
    const key = t.keys.test;
    await spend(1000);
    await t.close();
    t = await makeTestEngine({ limits: DEFAULTS, dataDir, ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}), seed: false });
    const res = await t.billing('GET', '/v1/cuenta', { key });
    expect(res.json()).toMatchObject({ code: 'QUOTA_EXCEEDED' });
  });

  it('a rotated key inherits the month’s consumption and the old key stops working', async () => {
    t = await makeTestEngine({ limits: DEFAULTS });
    await spend(30);
    t.engine.context.usage.flush();
    const ctx = t.engine.context;
    const old = ctx.accounts.findActiveKey(t.keys.test)!;
    const fresh = ctx.accounts.rotateKey(old.key.id);
    t.clock.advance(6 * 60_000);
    const res = await t.billing('GET', '/v1/cuenta', { key: fresh.rawKey });
    expect(res.statusCode).toBe(200);
    expect(res.json().consumo.usadas).toBe(31);
    expect((await t.billing('GET', '/v1/cuenta', { key: t.keys.test })).statusCode).toBe(403);
  });
});

describe('The till’s own UI (panel relay) is not metered; a forged relay header is', () => {
  it('relayed reads pass the per-second limit and leave the quota untouched', async () => {
    const { writeFileSync } = await import('node:fs');
    t = await makeTestEngine({ limits: DEFAULTS });
    writeFileSync(path.join(t.dataDir, 'demo-keys.json'), JSON.stringify({ test: t.keys.test, live: t.keys.live }));
    for (let i = 0; i < 40; i++) {
      const res = await t.engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/api/billing/v1/cuenta', headers: { authorization: 'Bearer panel-test-token' } });
      expect(res.statusCode, res.body).toBe(200);
    }
    // A POS client that copies the header does not get the exemption.
    for (let i = 0; i < 20; i++) await t.billing('GET', '/v1/cuenta', { headers: { 'x-panel-relay': 'guess' } });
    expect((await t.billing('GET', '/v1/cuenta', { headers: { 'x-panel-relay': 'guess' } })).json()).toMatchObject({ code: 'RATE_LIMITED' });
  });
});

describe('LIVE: per-plan rate and burst from the plan configuration; a local limits.live raises them', () => {
  /** Requests on the LIVE key, all at the same instant, until the first 429: how many were admitted. */
  async function admittedInOneInstant(max: number): Promise<number> {
    for (let i = 0; i < max; i++) {
      const res = await t!.billing('GET', '/v1/cuenta', { key: t!.keys.live });
      if (res.statusCode === 429) {
        expect(res.json()).toMatchObject({ code: 'RATE_LIMITED' });
        return i;
      }
      expect(res.statusCode, res.body).toBe(200);
    }
    return max;
  }

  async function liveEngine(plan: string, limits: LimitsConfig): Promise<void> {
    t = await makeTestEngine({ limits });
    const ctx = t.engine.context;
    ctx.accounts.updateAccount(ctx.accounts.findActiveKey(t.keys.live)!.account.id, { plan });
  }

  for (const plan of ['basico', 'profesional'] as const) {
    it(`plan ${plan}: the burst is the plan’s, then the plan’s rate per second`, async () => {
      const limits = DEFAULT_PLANS[plan]!;
      await liveEngine(plan, DEFAULTS);
      expect(await admittedInOneInstant(limits.burst + 5)).toBe(limits.burst);
      t!.clock.advance(1000);
      expect(await admittedInOneInstant(limits.burst + 5)).toBe(limits.rps);
    });
  }

  it('a plan redefined in configuration is what applies', async () => {
    await liveEngine('basico', { plans: { basico: { rps: 3, burst: 7, monthlyQuota: 10_000 } } });
    expect(await admittedInOneInstant(20)).toBe(7);
    t!.clock.advance(1000);
    expect(await admittedInOneInstant(20)).toBe(3);
  });

  it('limits.live raises every LIVE plan and leaves TEST alone', async () => {
    await liveEngine('basico', { live: { rps: 40, burst: 80 } });
    expect(await admittedInOneInstant(100)).toBe(80);
    t!.clock.advance(1000);
    expect(await admittedInOneInstant(100)).toBe(40);
    for (let i = 0; i < 20; i++) expect((await t!.billing('GET', '/v1/cuenta')).statusCode).toBe(200);
    expect((await t!.billing('GET', '/v1/cuenta')).json()).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('limits.live monthlyQuota: the next request after it → 429 QUOTA_EXCEEDED', async () => {
    await liveEngine('basico', { live: { monthlyQuota: 30 } });
    for (let i = 0; i < 30; i++) {
      t!.clock.advance(100);
      expect((await t!.billing('GET', '/v1/cuenta', { key: t!.keys.live })).statusCode).toBe(200);
    }
    t!.clock.advance(100);
    expect((await t!.billing('GET', '/v1/cuenta', { key: t!.keys.live })).json()).toMatchObject({ code: 'QUOTA_EXCEEDED' });
  });
});
