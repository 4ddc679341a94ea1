// The demo installation of a first start is seeded all or nothing, its raw keys stored before the
// seeding commits: a start stopped half-way leaves either the whole demo or none of it.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { DemoKeys } from '../../../engine/src/demo/account';
import { DEMO_TICKETBAI_ISSUERS } from '../../../engine/src/demo/account';
import { DEMO_ISSUER_SIN_ALTA_CAPACIDAD } from '../../../engine/src/demo/devices';
import { seedDemoInstallation } from '../../../engine/src/demo/installation';
import { createEngine, type Engine } from '../../../engine/src/index';
import { migratedDataDir, testEngineConfig } from '../../support/engine';

const till = { idMaquina: 'TPV-0123456789AB', etiqueta: 'Caja principal' };
const opened: { engine: Engine; dataDir: string }[] = [];
afterEach(async () => {
  for (const { engine, dataDir } of opened.splice(0)) {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

async function emptyEngine(): Promise<Engine> {
  const dataDir = migratedDataDir('demo-installation-');
  const engine = await createEngine(testEngineConfig(dataDir));
  opened.push({ engine, dataDir });
  return engine;
}

/** What of the demo an engine holds, whatever seeded it. */
function demoOf(engine: Engine) {
  const ctx = engine.context;
  const account = ctx.accounts.listAccounts()[0];
  return {
    accounts: ctx.accounts.listAccounts().length,
    issuers: [...DEMO_TICKETBAI_ISSUERS.map((i) => ['test', i.nif] as const), ['test', DEMO_ISSUER_SIN_ALTA_CAPACIDAD.nif] as const, ['live', DEMO_ISSUER_SIN_ALTA_CAPACIDAD.nif] as const]
      .filter(([entorno, nif]) => ctx.issuers.find(entorno, nif) !== undefined).length,
    devices: account ? (['test', 'live'] as const).filter((e) => ctx.deviceStore.device(e, account.nif, till.idMaquina) !== undefined).length : 0,
    declaration: ctx.declarations.current()?.version,
  };
}

describe('The demo installation of a first start: all or nothing', () => {
  it('seeds the account, its keys, this till in TEST and LIVE, the TicketBAI issuers and the declaration; the keys kept are the ones that work', async () => {
    const engine = await emptyEngine();
    const kept: DemoKeys[] = [];
    const keys = await seedDemoInstallation(engine.context, { till, keepKeys: (k) => kept.push(k) });
    expect(keys).toBeDefined();
    expect(kept).toEqual([keys]);
    expect(demoOf(engine)).toEqual({ accounts: 1, issuers: 5, devices: 2, declaration: 1 });
    expect(engine.context.accounts.findActiveKey(keys!.test)).toBeDefined();
    expect(engine.context.accounts.findActiveKey(keys!.live)).toBeDefined();
    // A second start seeds nothing and keeps nothing.
    expect(await seedDemoInstallation(engine.context, { till, keepKeys: (k) => kept.push(k) })).toBeUndefined();
    expect(kept).toHaveLength(1);
    expect(demoOf(engine)).toEqual({ accounts: 1, issuers: 5, devices: 2, declaration: 1 });
  });

  it('the keys not kept (the disk refuses them): nothing of the demo stays, and the next start seeds it whole', async () => {
    const engine = await emptyEngine();
    await expect(
      seedDemoInstallation(engine.context, {
        till,
        keepKeys: () => {
          throw new Error('ENOSPC: no space left on device');
        },
      }),
    ).rejects.toThrow('ENOSPC');
    expect(demoOf(engine)).toEqual({ accounts: 0, issuers: 0, devices: 0, declaration: undefined });
    const kept: DemoKeys[] = [];
    const keys = await seedDemoInstallation(engine.context, { till, keepKeys: (k) => kept.push(k) });
    expect(kept).toEqual([keys]);
    expect(demoOf(engine)).toEqual({ accounts: 1, issuers: 5, devices: 2, declaration: 1 });
  });
});
