import type { Entorno } from '../../../src-shared/api/common';
import type { RateLimits } from '../core/caller';


/** Plans are configuration: LIVE 25–250 req/s, bursts 50–500, 10 k–1 M a month; TEST is fixed. */
export const DEFAULT_PLANS: Record<string, RateLimits> = {
  basico: { rps: 25, burst: 50, monthlyQuota: 10_000 },
  profesional: { rps: 100, burst: 200, monthlyQuota: 100_000 },
  empresa: { rps: 250, burst: 500, monthlyQuota: 1_000_000 },
};

export const TEST_LIMITS: RateLimits = { rps: 10, burst: 20, monthlyQuota: 1_000 };

export interface LimitsConfig {
  plans?: Record<string, RateLimits>;
  test?: Partial<RateLimits>;
  /** A local install may raise its own limits: applied on top of every LIVE plan. */
  live?: Partial<RateLimits>;
}

export function limitsFor(entorno: Entorno, plan: string, config: LimitsConfig = {}): RateLimits {
  if (entorno === 'test') return { ...TEST_LIMITS, ...config.test };
  const plans = { ...DEFAULT_PLANS, ...config.plans };
  const base = plans[plan] ?? DEFAULT_PLANS.basico ?? TEST_LIMITS;
  return { ...base, ...config.live };
}

export function isKnownPlan(plan: string, config: LimitsConfig = {}): boolean {
  return plan in { ...DEFAULT_PLANS, ...config.plans };
}
