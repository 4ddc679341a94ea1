// The engine as `npm start` runs it (a process of its own, the package.json script run by npm):
// every route of the three APIs and one round of the filing and webhook workers, so a route that
// fails only outside vitest's module loader (issue 28: a CommonJS default import) answers 5xx here;
// and a signal to the npm process alone (as a service manager sends it) stops the engine.
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { DemoKeysFile } from '../../../engine/src/bin/start';
import { DEMO_TICKETBAI_ISSUERS } from '../../../engine/src/demo/account';
import { expectCleanSweep, sweepRoutes } from '../../support/route-sweep';
import { launchNpmStart, startNpmStart, untilExists, type RunningArtefact } from '../../support/running-artefacts';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const started: RunningArtefact[] = [];
afterAll(async () => {
  for (const run of started) await run.stop();
});

async function npmStart(): Promise<RunningArtefact> {
  const run = await startNpmStart();
  started.push(run);
  return run;
}

/** The four ports the start listens on: billing, management, panel, emulators. */
function portsOf(run: RunningArtefact): number[] {
  const keys = JSON.parse(readFileSync(path.join(run.dataDir, 'demo-keys.json'), 'utf8')) as DemoKeysFile;
  return [keys.billingUrl, keys.manageUrl, keys.panelUrl, keys.emulatorUrl ?? ''].map((u) => Number(new URL(u).port));
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Signals npm's own pid only (not its group), then waits up to 10 s for every port to close. */
async function stopsOn(signal: 'SIGTERM' | 'SIGINT', run: RunningArtefact): Promise<void> {
  const ports = portsOf(run);
  expect(ports.every((p) => p > 0)).toBe(true);
  for (const port of ports) expect(await accepts(port), `port ${port} before`).toBe(true);
  const at = Date.now();
  process.kill(run.child.pid!, signal);
  let open = ports;
  while (open.length > 0 && Date.now() - at < 10_000) {
    await new Promise((r) => setTimeout(r, 100));
    open = (await Promise.all(ports.map(async (p) => ((await accepts(p)) ? p : 0)))).filter((p) => p !== 0);
  }
  expect(open, `${signal}: ports still open after 10 s`).toEqual([]);
  // npm exits once its child, the engine, has: cleanly, the shutdown log lines written.
  const code = await run.exited;
  const log = readFileSync(path.join(run.dataDir, 'logs', 'engine.log'), 'utf8');
  const seen = `npm exited ${code}; engine.log:\n${log}\noutput:\n${run.output.join('\n')}`;
  expect(log, seen).toContain(`shutting down { signal: '${signal}' }`);
  expect(log, seen).toContain('engine stopped');
  expect(code, seen).toBe(0);
}

describe('npm start: every route answers a well-formed request without 5xx', () => {
  it('all documented routes have a sample, none answers 5xx, the workers file and deliver; SIGTERM to npm stops it all', async () => {
    const run = await npmStart();
    expectCleanSweep(await sweepRoutes(run.dataDir), run.output);
    // Stopped as a service manager stops it: SIGTERM to npm alone.
    await stopsOn('SIGTERM', run);
  }, 120_000);

  it('SIGINT to npm alone stops the engine and its emulators within 10 s', async () => {
    await stopsOn('SIGINT', await npmStart());
  }, 120_000);

  it('Ctrl-C during the first start ends it at once, wherever it lands; the next start has the whole demo, its keys shown and working', async () => {
    // The till's identity file is written just before the demo is seeded: SIGINT to npm from there
    // on, through the seeding, the declaration's PDF and the engine's start, each on a fresh data dir.
    for (const afterMs of [0, 40, 120, 400]) {
      const interrupted = launchNpmStart();
      started.push(interrupted);
      await untilExists(path.join(interrupted.dataDir, 'till-identity.json'));
      await new Promise((r) => setTimeout(r, afterMs));
      process.kill(interrupted.child.pid!, 'SIGINT');
      await interrupted.exited;

      const run = await startNpmStart({ POS_DATA_DIR: interrupted.dataDir });
      started.push(run);
      const seen = `interrupted ${afterMs} ms after the identity; then:\n${run.output.join('\n')}`;
      const keys = JSON.parse(readFileSync(path.join(run.dataDir, 'demo-keys.json'), 'utf8')) as DemoKeysFile;
      expect(keys.test, seen).toMatch(/^sk_test_/);
      expect(run.output, seen).toContain(`  TEST key        ${keys.test}`);
      const manage = (p: string) => fetch(`${keys.manageUrl}${p}`, { headers: { 'x-api-key': keys.test } });
      expect((await fetch(`${keys.billingUrl}/v1/cuenta`, { headers: { 'x-api-key': keys.test } })).status, seen).toBe(200);
      expect((await manage('/v1/cumplimiento/declaracion-responsable')).status, seen).toBe(200);
      const dispositivos = (await (await manage(`/v1/clientes/${keys.nifEmisor}/dispositivos`)).json()) as { dispositivos: { idMaquina: string }[] };
      expect(dispositivos.dispositivos.map((d) => d.idMaquina), seen).toEqual([keys.idMaquina]);
      for (const { nif } of DEMO_TICKETBAI_ISSUERS) expect((await manage(`/v1/clientes/${nif}`)).status, `${nif} ${seen}`).toBe(200);
      await run.stop();
    }
  }, 180_000);
});
