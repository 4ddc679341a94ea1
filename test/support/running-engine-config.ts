import type { RateLimits } from '../../engine/src/core/caller';
import type { EngineConfig } from '../../engine/src/config';
import { silentLogger } from '../../engine/src/platform/logger';

/** Rate and quota no bench load or crash-test burst ever reaches. */
export const UNMETERED: RateLimits = { rps: 1e9, burst: 1e9, monthlyQuota: 1e12 };

/**
 * An engine as `npm start` runs it (real clock, real ids, its own workers), for the benches and the
 * tests that start it in a process of its own: no logs, unmetered in TEST and LIVE, free ports.
 * `extra` adds to it or overrides it.
 */
export function runningEngineConfig(dataDir: string, extra: Partial<EngineConfig> = {}): EngineConfig {
  return {
    dataDir,
    logger: silentLogger,
    limits: { test: UNMETERED, live: UNMETERED },
    billingPort: 0,
    managePort: 0,
    panelPort: 0,
    ...extra,
  };
}
