import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { todayInMadrid } from '../support/madrid-day';
import { FREE_PORTS_ENV } from '../support/free-ports';
import { untilExists } from '../support/running-artefacts';

const root = path.resolve(import.meta.dirname, '../..');
const TOKEN = 'token-from-the-host-0123456789abcdefghijklmnop';

interface Ready {
  type: 'ready';
  urls: { billing: string; manage: string; panel: string };
  panelUrl: string;
  keysPath: string;
  emulatorUrl?: string;
}

/** engine/src/bin/utility.ts under a plain Node fork, as main forks it in a utilityProcess. */
function forkUtility(extraEnv: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'till-utility-'));
  const child = fork(path.join(root, 'engine/src/bin/utility.ts'), [], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      POS_DATA_DIR: dataDir,
      ...FREE_PORTS_ENV,
      POS_PANEL_TOKEN: TOKEN,
      POS_UI_DIR: path.join(dataDir, 'no-ui'),
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { dataDir, child, exited };
}

async function startUtility(extraEnv: Record<string, string> = {}) {
  const { dataDir, child, exited } = forkUtility(extraEnv);
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  const panel = (p: string, init: RequestInit = {}) =>
    fetch(`${ready.urls.panel}${p}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers } });
  const stop = async () => {
    child.send({ type: 'stop' });
    return exited;
  };
  return { dataDir, ready, panel, stop };
}

describe('The engine entry main forks (engine/src/bin/utility.ts), run under a plain Node fork', () => {
  it('reports ready with its URLs, keeps the host’s panel token, seeds the till’s keys, and stops cleanly on {type:"stop"}', async () => {
    const run = await startUtility();
    expect(run.ready.type).toBe('ready');
    expect(run.ready.keysPath).toBe(path.join(run.dataDir, 'demo-keys.json'));
    expect(statSync(run.ready.keysPath).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(readFileSync(run.ready.keysPath, 'utf8')) as Record<string, string>;
    // The same keys file as the headless start: URLs, the panel URL with the host's token, the emulators.
    expect(keys).toMatchObject({ nifEmisor: 'B12345674', test: expect.stringMatching(/^sk_test_/), billingUrl: run.ready.urls.billing });
    expect(keys.panelUrl).toBe(`${run.ready.urls.panel}/?token=${TOKEN}`);
    expect(keys.emulatorUrl).toBe(run.ready.emulatorUrl);
    const relayed = await run.panel('/panel/v1/api/billing/v1/cuenta');
    expect(relayed.status).toBe(200);
    expect(((await relayed.json()) as { entorno: string }).entorno).toBe('test');
    expect(await run.stop()).toBe(0);
  });

  it('starts the emulators as the headless start does: the panel relays their fault controls and a sale from the till is registered by the AEAT emulator', async () => {
    const run = await startUtility();
    try {
      const emulatorUrl = run.ready.emulatorUrl;
      expect(emulatorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      // The sync view's fault controls reach the emulator this process started.
      const faults = await run.panel('/panel/v1/emuladores/aeat/faults');
      expect(faults.status).toBe(200);
      expect(await faults.json()).toMatchObject({ mode: 'none' });
      const down = await run.panel('/panel/v1/emuladores/aeat/faults', { method: 'PUT', body: JSON.stringify({ mode: 'down' }) });
      expect(down.status).toBe(200);
      expect(await (await fetch(`${emulatorUrl}/__control/faults`)).json()).toMatchObject({ mode: 'down' });
      await run.panel('/panel/v1/emuladores/aeat/faults', { method: 'PUT', body: JSON.stringify({ mode: 'none' }) });

      // A sale issued through the till's relay, as the till UI issues it.
      const crear = await run.panel('/panel/v1/api/billing/v1/verifactu/crear', {
        method: 'POST',
        body: JSON.stringify({
          version: '1.0',
          emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
          cabecera: { serie: 'TPV', numero: '1', fechaExpedicion: todayInMadrid(), tipoFactura: 'F2', descripcion: 'Venta' },
          detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
          totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
        }),
      });
      expect(crear.status).toBe(200);
      const { idFactura, numeroFactura } = (await crear.json()) as { idFactura: string; numeroFactura: string };
      // Polled until filed; the test's own time-out is the only bound.
      let estado: string | null = null;
      while (estado !== 'registrada') {
        await new Promise((r) => setTimeout(r, 100));
        const res = await run.panel(`/panel/v1/api/billing/v1/facturas/${idFactura}/estado?nifEmisor=B12345674`);
        estado = ((await res.json()) as { estadoFactura: string | null }).estadoFactura;
      }
      // …and the AEAT emulator this process started holds it as registered.
      const ledger = (await (await fetch(`${emulatorUrl}/__control/aeat/ledger/records?nif=B12345674`)).json()) as {
        records: { numSerie: string; registered: boolean }[];
      };
      expect(ledger.records).toEqual([expect.objectContaining({ numSerie: numeroFactura, registered: true })]);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  });

  it('the host’s stop sent while the engine starts: the start completes, no ready is sent, it stops cleanly', async () => {
    const { dataDir, child, exited } = forkUtility();
    const messages: unknown[] = [];
    child.on('message', (m) => messages.push(m));
    // The logs folder is the start's first trace on disk: the entry listens for the host by then.
    await untilExists(path.join(dataDir, 'logs'));
    child.send({ type: 'stop' });
    expect(await exited).toBe(0);
    expect(messages).toEqual([]);
    expect(readFileSync(path.join(dataDir, 'logs', 'engine.log'), 'utf8')).toMatch(
      /engine started[\s\S]*shutting down \{ reason: 'host' \}[\s\S]*engine stopped/,
    );
  });

  it('POS_EMULATORS=off starts no emulators: no emulator URL, and the fault relay says so (404)', async () => {
    const run = await startUtility({ POS_EMULATORS: 'off' });
    try {
      expect(run.ready.emulatorUrl).toBeUndefined();
      const faults = await run.panel('/panel/v1/emuladores/aeat/faults');
      expect(faults.status).toBe(404);
      expect(await faults.json()).toMatchObject({ code: 'EMULATORS_NOT_RUNNING' });
    } finally {
      expect(await run.stop()).toBe(0);
    }
  });
});
