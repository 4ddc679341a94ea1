// Short form of the fuzzing campaign (issue 15), part of `npm test`: a bounded number of hostile
// requests over every route of the three APIs. The long form: `npm run test:fuzz -- --runs 100000`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzTarget, judge, runCampaign, type FuzzTarget } from './campaign';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

let target: FuzzTarget;
beforeAll(async () => {
  target = await fuzzTarget();
});
afterAll(async () => target.close());

describe('Every route is fuzzed, found from the Fastify apps', () => {
  it('the three APIs’ routes, the issuing ones among them', () => {
    const names = target.routes.map((r) => `${r.app} ${r.method} ${r.url}`);
    for (const expected of ['billing POST /v1/verifactu/crear', 'billing POST /v1/ticketbai/crear', 'manage POST /v1/webhooks', 'panel POST /panel/v1/sync/verificar-cadenas', 'panel POST /panel/v1/api/billing/*']) {
      expect(names).toContain(expected);
    }
  });
});

describe('The invariants’ judge', () => {
  it('fails a 5xx, a body without code, a field error without campo, Fastify codes and a 4xx that stored something', () => {
    expect(judge({ statusCode: 500, body: '{}' }, false)).toMatch(/5xx/);
    expect(judge({ statusCode: 400, body: 'oops' }, false)).toMatch(/not JSON/);
    expect(judge({ statusCode: 400, body: '{"message":"x"}' }, false)).toMatch(/without code/);
    expect(judge({ statusCode: 400, body: '{"code":"VALIDATION_ERROR","message":"x"}' }, false)).toMatch(/without campo/);
    expect(judge({ statusCode: 400, body: '{"code":"FST_ERR_BAD_URL","message":"x"}' }, false)).toMatch(/Fastify/);
    expect(judge({ statusCode: 409, body: '{"code":"X","message":"x"}' }, true)).toMatch(/changed the database/);
    expect(judge({ statusCode: 400, body: '{"code":"VALIDATION_ERROR","message":"x","campo":"numero"}' }, false)).toBeUndefined();
  });
});

describe('Hostile body, query and path on every route: 4xx with code (and campo), never 5xx, nothing stored', () => {
  it(`${RUNS} requests`, { timeout: 120_000 }, async () => {
    const stats = await runCampaign(target, RUNS);
    expect(stats.requests).toBe(RUNS);
    expect(stats.fiveXx).toBe(0);
    expect(stats.crashes).toBe(0);
  });
});
