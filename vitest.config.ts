import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import { defineConfig } from 'vitest/config';

// The till's end-to-end tests (test/e2e, Chromium against `npm start`) are part of `npm test`;
// TILL_E2E=0 leaves them out (e.g. on a machine without /usr/bin/chromium).
const skipE2e = process.env.TILL_E2E === '0';
const exclude = [...(skipE2e ? ['test/e2e/**'] : []), 'node_modules/**'];

// Files that SIGKILL an engine child mid-burst (their kill must land inside a window of a few
// hundred ms) or measure the till against a baseline of their own run: they run alone, one after
// another, once every other file has finished, so no other file's load moves their windows.
const ALONE = [
  'test/e2e/**/*.test.ts',
  'test/chaos/**/*.test.ts',
  'test/engine/submission/crash*.test.ts',
  'test/engine/webhooks/crash*.test.ts',
  'test/engine/devices-issuing/acceptance.test.ts',
  // The engine as users run it (npm start, the desktop bundle), swept route by route.
  'test/engine/foundation/routes-*.test.ts',
];

// Files that need a module registry of their own (vitest's isolate): they mock modules (electron,
// node:fs), spy on or stub globals, fake timers, set process.env or listen on process, or drive the
// till UI's module-level stores. Every other file shares one registry per worker (isolate: false),
// so the engine's module graph is loaded once per worker instead of once per file (≈ 5–10 s of
// import per file under load). Found by reading the files, so a new file that mocks is never shared.
const TOUCHES_MODULES_OR_GLOBALS =
  /vi\.(mock|doMock|spyOn|stubGlobal|stubEnv|useFakeTimers)\b|process\.env\.[A-Za-z_]+\s*=[^=]|process\.env\[[^\]]+\]\s*=[^=]|process\.(on|once)\(|globalThis\.[A-Za-z_]+\s*=[^=]/;
const OWN_MODULES = [
  'test/main/**/*.test.ts',
  'test/renderer/**/*.test.ts',
  ...readdirSync('test', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && !file.startsWith('main/') && !file.startsWith('renderer/'))
    .filter((file) => TOUCHES_MODULES_OR_GLOBALS.test(readFileSync(join('test', file), 'utf8')))
    .map((file) => join('test', file).split(sep).join('/')),
];
// The acceptance suites that run a second time on PostgreSQL (issue 27; TEST_DATABASE=postgres makes
// test/support/engine.ts give each engine a fresh database of the run's cluster): the billing API's
// capabilities, and the management API's with filing and webhooks. Which files, and why those, is
// said in README.md ("Beyond one machine").
const POSTGRES_SUITES_BILLING: string[] = [
  // Issuing, reads, errors and the chain's concurrency (VeriFactu).
  'test/engine/verifactu-api/*.test.ts',
  'test/engine/verifactu/reglas-recientes.test.ts',
  // TicketBAI: issuing per province, filing, Zuzendu, resend, policies, rules, devices, concurrency.
  'test/engine/ticketbai-api/*.test.ts',
  // High capacity: devices and phases through the API, the store, the routing cache across
  // connections, the admin command line, the demo; issuing per device.
  'test/engine/devices/admin-cli.test.ts',
  'test/engine/devices/api.test.ts',
  'test/engine/devices/demo.test.ts',
  'test/engine/devices/demo-installation.test.ts',
  'test/engine/devices/label-unique.test.ts',
  'test/engine/devices/lan-hosts.test.ts',
  'test/engine/devices/python-client-example.test.ts',
  'test/engine/devices/routing-cache.test.ts',
  'test/engine/devices/store.test.ts',
  'test/engine/devices-issuing/verifactu.test.ts',
  // «NO VERI*FACTU»: the mode, its signed event log, anomaly detection, LIVE signing, the admin CLI.
  'test/engine/no-verifactu/api.test.ts',
  'test/engine/no-verifactu/live.test.ts',
  'test/engine/no-verifactu/no-verifactu.test.ts',
  // The chain verifier (panel route and verify-chains) on a PostgreSQL snapshot.
  'test/engine/verification/*.test.ts',
];
const POSTGRES_SUITES_MANAGE: string[] = [
  // Issuer clients, census, representation, the account's limits/usage/quotas and the declaration.
  'test/engine/clients/*.test.ts',
  'test/engine/census/nif-validar.test.ts',
  'test/engine/representation/routes.test.ts',
  'test/engine/representation/openssl.test.ts',
  'test/engine/foundation/auth.test.ts',
  'test/engine/foundation/cuenta.test.ts',
  'test/engine/foundation/limits.test.ts',
  'test/engine/foundation/usage-month.test.ts',
  'test/engine/foundation/declaration-api.test.ts',
  // The HTTP edges (errors, limits on the wire), the support panel, a clean stop with a request in flight.
  'test/engine/foundation/http-edges.test.ts',
  'test/engine/foundation/http-edges-wire.test.ts',
  'test/engine/foundation/panel-support.test.ts',
  'test/engine/foundation/shutdown.test.ts',
  // Webhooks: management, delivery, the address policy, a stop during a delivery.
  'test/engine/webhooks/management.test.ts',
  'test/engine/webhooks/delivery.test.ts',
  'test/engine/webhooks/address-policy.test.ts',
  'test/engine/webhooks/shutdown.test.ts',
  // Filing with the emulators: AEAT's flow, outages, the pipeline, overlapping submissions (TicketBAI's
  // filing: test/engine/ticketbai-api/ in POSTGRES_SUITES_BILLING).
  'test/engine/submission/aeat-flow.test.ts',
  'test/engine/submission/built-with-attempt.test.ts',
  'test/engine/submission/chunked-apply.test.ts',
  'test/engine/submission/draft-ahead.test.ts',
  'test/engine/submission/duplicates.test.ts',
  'test/engine/submission/event-datos.test.ts',
  'test/engine/submission/late-incidencia.test.ts',
  'test/engine/submission/mutual-tls.test.ts',
  'test/engine/submission/order.test.ts',
  'test/engine/submission/outage.test.ts',
  'test/engine/submission/overlap.test.ts',
  'test/engine/submission/panel-faults-relay.test.ts',
  'test/engine/submission/pipeline.test.ts',
  'test/engine/submission/reachability.test.ts',
  'test/engine/submission/refusals.test.ts',
  'test/engine/submission/states.test.ts',
  'test/engine/submission/sync-panel.test.ts',
];
// Suites of either side that need a module registry of their own (OWN_MODULES: they spy on or mock
// the engine's modules): the postgres project shares its registry, so they get a project of their own.
const POSTGRES_SUITES_OWN_MODULES: string[] = [
  // «NO VERI*FACTU»: the AEAT's requirement answered with the period's records (sets POS_AEAT_URL_TEST).
  'test/engine/no-verifactu/requerimiento.test.ts',
  'test/engine/submission/wake.test.ts',
];

// vitest's default is cores − 1, one file at a time on the 2-core CI machine: at least two.
const maxWorkers = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One temporary folder per run, removed at its end (test/support/run-tmpdir.ts), and in it one
    // database migrated once that new data dirs start from (test/support/migrated-template.ts).
    globalSetup: ['test/support/run-tmpdir.ts', 'test/support/migrated-template.ts', 'test/support/postgres-cluster.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...exclude, ...ALONE, ...OWN_MODULES],
          isolate: false,
          maxWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'own-modules',
          include: OWN_MODULES,
          exclude: [...exclude, ...ALONE],
          maxWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...POSTGRES_SUITES_BILLING, ...POSTGRES_SUITES_MANAGE],
          exclude: [...exclude, ...ALONE, ...OWN_MODULES],
          env: { TEST_DATABASE: 'postgres' },
          isolate: false,
          maxWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres-own-modules',
          include: POSTGRES_SUITES_OWN_MODULES,
          exclude: [...exclude, ...ALONE],
          env: { TEST_DATABASE: 'postgres' },
          maxWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          exclude,
          // fileParallelism off and the default groupOrder: vitest runs these after every other group.
          fileParallelism: false,
        },
      },
    ],
  },
});
