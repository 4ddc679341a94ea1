// Support for the issuer-client, census and representation tests: an engine whose census is a
// census emulator on a free port (only the census service, no AEAT), other accounts, and builders.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { CensusDirectory } from '../../../engine/emulators/census-data';
import { censusControlHandler } from '../../../engine/emulators/census-control';
import { CENSUS_SEED, CENSUS_SOAP_PATH, createCensusEmulator, type CensusServiceEmulator } from '../../../engine/emulators/census/index';
import { createRouter, type EmulatorRouter } from '../../../engine/emulators/router';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import type { Account } from '../../../engine/src/account/store';
import type { CensusConfig } from '../../../engine/src/census/config';
import { createEngine, type Engine } from '../../../engine/src/index';
import { ManualClock } from '../../../engine/src/platform/clock';
import { testEngineConfig, type InjectOpts } from '../../support/engine';
import { trustedTestCa } from '../../fixtures/representation-pki';

export interface CensusEmu {
  url: string;
  soapUrl: string;
  service: CensusServiceEmulator;
  directory: CensusDirectory;
  router: EmulatorRouter;
  close(): Promise<void>;
}

/** Only the census service and its directory, on a free port. */
export async function startCensus(): Promise<CensusEmu> {
  const directory = new CensusDirectory(CENSUS_SEED);
  const router = createRouter();
  router.mount(censusControlHandler(directory));
  const service = createCensusEmulator({ router, directory });
  await router.listen(0);
  return {
    url: router.url(),
    soapUrl: `${router.url()}${CENSUS_SOAP_PATH}`,
    service,
    directory,
    router,
    async close() {
      service.close();
      await router.close();
    },
  };
}

export interface ClientsEngine {
  engine: Engine;
  clock: ManualClock;
  keys: { test: string; live: string };
  account: () => Account;
  manage(method: string, url: string, opts?: InjectOpts): Promise<LightMyRequestResponse>;
  panel(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** A second account (another shop) with its TEST and LIVE keys. */
  otherAccount(input?: { nif?: string; nombre?: string; limite?: number | null }): { account: Account; test: string; live: string };
  setLimits(test: number | null, live?: number | null): void;
  close(): Promise<void>;
}

/** Where the census is when a test does not care (a closed port: every check is `no_procesado`). */
export const NO_CENSUS = 'http://127.0.0.1:9/wlpl/BURT-JDIT/ws/VNifV2SOAP';

export async function makeClientsEngine(
  options: { now?: string; census?: Partial<CensusConfig>; emulatorUrl?: string; iaeCatalogue?: string; representacionCas?: string[] } = {},
): Promise<ClientsEngine> {
  const dataDir = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'clients-test-'));
  const clock = new ManualClock(options.now ?? '2026-11-20T10:00:00.000Z');
  const engine = await createEngine(
    testEngineConfig(dataDir, {
      clock,
      census: { url: NO_CENSUS, timeoutMs: 1000, ...options.census },
      ...(options.emulatorUrl ? { emulatorUrl: options.emulatorUrl } : {}),
      ...(options.iaeCatalogue ? { iaeCatalogue: options.iaeCatalogue } : {}),
      // Representation signatures: the test PKI's CA stands for the qualified CAs.
      representacionCas: options.representacionCas ?? [trustedTestCa().pem],
    }),
  );
  const ctx = engine.context;
  const seeded = seedDemoAccount(ctx);
  if (!seeded) throw new Error('demo account not seeded');
  const keys = { test: seeded.test, live: seeded.live };
  const accountId = ctx.accounts.findAccountByNif(seeded.nifEmisor)?.id ?? '';
  let others = 0;
  return {
    engine,
    clock,
    keys,
    account: () => ctx.accounts.getAccount(accountId) as Account,
    manage: (method, url, opts = {}) => {
      const key = opts.key === undefined ? keys.test : opts.key;
      return engine.apps.manage.inject({
        method: method as 'GET',
        url,
        headers: { ...(key ? { 'x-api-key': key } : {}), ...opts.headers },
        ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
      });
    },
    panel: (method, url, body) =>
      engine.apps.panel.inject({
        method: method as 'GET',
        url,
        headers: { authorization: 'Bearer panel-test-token' },
        ...(body !== undefined ? { payload: body as object } : {}),
      }),
    otherAccount(input = {}) {
      others += 1;
      const account = ctx.accounts.createAccount({
        nif: input.nif ?? (others === 1 ? 'B77777779' : 'B55555551'),
        nombre: input.nombre ?? `OTRA CUENTA ${others} SL`,
        plan: 'basico',
        limiteClientesTest: input.limite === undefined ? 10 : input.limite,
        limiteClientesLive: input.limite === undefined ? 10 : input.limite,
      });
      return { account, test: ctx.accounts.createKey(account.id, 'test').rawKey, live: ctx.accounts.createKey(account.id, 'live').rawKey };
    },
    setLimits(test, live = test) {
      ctx.accounts.updateAccount(accountId, { limiteClientesTest: test, limiteClientesLive: live });
    },
    async close() {
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A census emulator for a test file (started before its tests, closed after them) and, before each
 * test, the emulator reset and a fresh engine checking NIFs against it (300 ms time-out), closed
 * when the test ends. `onEach` gets both, after the engine started.
 */
export function useEngineWithCensus(onEach: (engine: ClientsEngine, census: CensusEmu) => void | Promise<void>): void {
  let census: CensusEmu | undefined;
  beforeAll(async () => {
    census = await startCensus();
  });
  afterAll(async () => census?.close());
  beforeEach(async (ctx) => {
    if (!census) throw new Error('useEngineWithCensus: the census emulator did not start');
    census.service.reset();
    const engine = await makeClientsEngine({ census: { url: census.soapUrl, timeoutMs: 300 } });
    ctx.onTestFinished(() => engine.close());
    await onEach(engine, census);
  });
}

// ---------------------------------------------------------------- builders

export const DIRECCION = { calle: 'Gran Vía', numero: '1', codigoPostal: '48001', ciudad: 'Bilbao', provincia: 'Bizkaia' };

export function anEmpresa(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    nif: 'B48123459',
    nombre: 'TALLERES BILBAO ZAHARRA SL',
    email: 'admin@talleres.example',
    tipoUsuario: 'empresa',
    hacienda: 'verifactu',
    direccion: DIRECCION,
    representante: { nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', nif: '23456789D', direccion: DIRECCION },
    ...overrides,
  };
}

export function anAutonomo(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    nif: '34567890V',
    nombre: 'FERNANDEZ GOMEZ LAURA',
    tipoUsuario: 'autonomo',
    hacienda: 'verifactu',
    direccion: { ...DIRECCION, ciudad: 'Madrid', provincia: 'Madrid', codigoPostal: '28013' },
    ...overrides,
  };
}

/** Valid NIFs that the census does not hold, for tests that need many issuers. */
export function dniNumber(n: number): string {
  const digits = String(10_000_000 + n).padStart(8, '0');
  return `${digits}${'TRWAGMYFPDXBNJZSQVHLCKE'.charAt(Number(digits) % 23)}`;
}

export function json<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  return res.json() as T;
}

export function expectError(res: LightMyRequestResponse, status: number, code: string, campo?: string): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status);
  const body = json(res);
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  if (campo !== undefined) expect(body.campo).toBe(campo);
  return body;
}

export async function crear(t: ClientsEngine, body: unknown, key?: string): Promise<LightMyRequestResponse> {
  return t.manage('POST', '/v1/clientes/crear', { body, ...(key !== undefined ? { key } : {}) });
}

export async function usados(t: ClientsEngine, key?: string): Promise<{ limitePlan?: number; clientesUsados?: number; clientesDisponibles?: number }> {
  const res = await t.manage('GET', '/v1/clientes?limite=1', key !== undefined ? { key } : {});
  expect(res.statusCode, res.body).toBe(200);
  const { limitePlan, clientesUsados, clientesDisponibles } = json<{ limitePlan?: number; clientesUsados?: number; clientesDisponibles?: number }>(res);
  return { ...(limitePlan !== undefined ? { limitePlan } : {}), ...(clientesUsados !== undefined ? { clientesUsados } : {}), ...(clientesDisponibles !== undefined ? { clientesDisponibles } : {}) };
}
