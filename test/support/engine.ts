import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { seedDemoAccount } from '../../engine/src/demo/account';
import type { LimitsConfig } from '../../engine/src/account/plans';
import type { EngineConfig } from '../../engine/src/config';
import type { EngineContext } from '../../engine/src/context';
import { createEngine, type Engine } from '../../engine/src/index';
import { ManualClock } from '../../engine/src/platform/clock';
import { sequentialIds } from '../../engine/src/platform/ids';
import { silentLogger } from '../../engine/src/platform/logger';
import { MIGRATED_TEMPLATE } from './migrated-template';
import { postgresUrlOf } from './postgres';
import { invalidAeatReplies, invalidAeatRepliesIn } from './xsd';

/** The suites run on PostgreSQL (TEST_DATABASE=postgres: vitest.config.ts's `postgres` project). */
export function onPostgres(): boolean {
  return process.env.TEST_DATABASE === 'postgres';
}

/** The context of an engine whose filing workers run in process, so a test drives them by hand. */
export type InProcessContext = EngineContext & Required<Pick<EngineContext, 'submissions' | 'webhookDeliveries'>>;
export type InProcessEngine = Engine & { readonly context: InProcessContext };

/** `engine`, whose workers run in process (an injected clock: never on the filing thread); throws otherwise. */
export function inProcess(engine: Engine): InProcessEngine {
  const { submissions, webhookDeliveries } = engine.context;
  if (submissions === undefined || webhookDeliveries === undefined) throw new Error('this engine files on its filing thread: its workers are not here to drive');
  return engine as InProcessEngine;
}

export interface TestEngine {
  engine: InProcessEngine;
  clock: ManualClock;
  dataDir: string;
  /** The PostgreSQL database (TEST_DATABASE=postgres), for a restart on the same data. */
  databaseUrl?: string;
  keys: { test: string; live: string };
  nifEmisor: string;
  billing(method: string, url: string, opts?: InjectOpts): Promise<LightMyRequestResponse>;
  manage(method: string, url: string, opts?: InjectOpts): Promise<LightMyRequestResponse>;
  /** The panel API with the administrator's token (the till UI's and the service team's routes). */
  panel(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface InjectOpts {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestEngineOptions {
  now?: string;
  limits?: LimitsConfig;
  dataDir?: string;
  /** On PostgreSQL: the database of an engine before (TestEngine.databaseUrl), to restart on its data. */
  databaseUrl?: string;
  seed?: boolean;
  clock?: ManualClock;
  /** Filing settings; the worker is driven by hand (`submissions.tick()`) unless submitAutomatically. */
  submission?: EngineConfig['submission'];
  submitAutomatically?: boolean;
  /** Webhook delivery settings; the worker is driven by hand (`webhookDeliveries.tick()`) unless the engine is started. */
  webhooks?: EngineConfig['webhooks'];
  /** How webhook host names resolve (a fixed table in tests; default node:dns). */
  webhookResolver?: EngineConfig['webhookResolver'];
  /** Base URL of emulators the engine names (its port is guarded against webhooks). */
  emulatorUrl?: string;
  /**
   * close() checks every AEAT reply the engine stored against RespuestaSuministro.xsd and throws
   * when one does not validate. Only a test that feeds hand-made replies turns this off.
   */
  validateAeatReplies?: boolean;
}

/** Generous limits so tests that are not about limits never meet them. */
export const NO_LIMITS: LimitsConfig = {
  test: { rps: 1e6, burst: 1e6, monthlyQuota: 1e9 },
  live: { rps: 1e6, burst: 1e6, monthlyQuota: 1e9 },
};

/**
 * The engine configuration every in-process test starts from: a fixed clock and sequential ids, no
 * logs, no limits, a known panel token, free ports, the worker driven by hand. `extra` overrides.
 */
export function testEngineConfig(dataDir: string, extra: Partial<EngineConfig> = {}): EngineConfig {
  return {
    dataDir,
    // The PostgreSQL project of vitest.config.ts runs the acceptance suites on a database of the
    // run's cluster, one per data dir (an engine restarted on it finds its rows).
    ...(onPostgres() ? { databaseUrl: postgresUrlOf(dataDir) } : {}),
    clock: new ManualClock('2026-11-20T10:00:00.000Z'),
    ids: sequentialIds(),
    logger: silentLogger,
    limits: NO_LIMITS,
    panelToken: 'panel-test-token',
    billingPort: 0,
    managePort: 0,
    panelPort: 0,
    submitAutomatically: false,
    ...extra,
  };
}

/**
 * A new empty data dir under the run's TMPDIR holding a copy of the run's migrated database
 * (migrated-template.ts), so the engine that opens it skips the migrations' fsyncs. Outside vitest
 * (no template) the dir is just empty and the engine migrates it as on a first start.
 */
export function migratedDataDir(prefix = 'engine-test-'): string {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  const template = process.env[MIGRATED_TEMPLATE];
  if (template !== undefined) copyFileSync(template, path.join(dataDir, 'engine.sqlite'));
  return dataDir;
}

export async function makeTestEngine(options: TestEngineOptions = {}): Promise<TestEngine> {
  const dataDir = options.dataDir ?? migratedDataDir();
  const clock = options.clock ?? new ManualClock(options.now ?? '2026-11-20T10:00:00.000Z');
  const config = testEngineConfig(dataDir, {
    clock,
    ...(options.limits ? { limits: options.limits } : {}),
    submitAutomatically: options.submitAutomatically ?? false,
    ...(options.submission ? { submission: options.submission } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.webhookResolver ? { webhookResolver: options.webhookResolver } : {}),
    ...(options.emulatorUrl ? { emulatorUrl: options.emulatorUrl } : {}),
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
  });
  const engine = inProcess(await createEngine(config));
  const seeded = options.seed === false ? undefined : seedDemoAccount(engine.context);
  const keys = { test: seeded?.test ?? '', live: seeded?.live ?? '' };
  const inject = (app: 'billing' | 'manage') => (method: string, url: string, opts: InjectOpts = {}) => {
    const key = opts.key === undefined ? keys.test : opts.key;
    return engine.apps[app].inject({
      method: method as 'GET',
      url,
      headers: { ...(key ? { 'x-api-key': key } : {}), ...opts.headers },
      ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
    });
  };
  return {
    engine,
    clock,
    dataDir,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    keys,
    nifEmisor: seeded?.nifEmisor ?? '',
    billing: inject('billing'),
    manage: inject('manage'),
    panel: (method, url, body) =>
      engine.apps.panel.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${config.panelToken}` },
        ...(body !== undefined ? { payload: body as object } : {}),
      }),
    async close({ keepData = false } = {}) {
      // Every reply the engine parsed in any test must be a valid RespuestaSuministro (issue 4):
      // SQLite's are read from the file once the engine stopped, PostgreSQL's before it closes its connection.
      const check = options.validateAeatReplies !== false;
      const onServer = check && onPostgres() && engine.context.db.isOpen ? await invalidAeatReplies(engine.context.db) : [];
      await engine.stop();
      const problems = check && !onPostgres() ? await invalidAeatRepliesIn(dataDir) : onServer;
      if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (problems.length > 0) throw new Error(`AEAT replies not valid against RespuestaSuministro.xsd:\n${problems.join('\n')}`);
    },
  };
}
