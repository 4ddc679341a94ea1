import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type StartedEngine } from '../../engine/src/bin/start';
import { LIVE_EN_EMULADOR_AVISO } from '../../engine/src/http/live-emulator-notice';
import { hostedExample01 } from '../fixtures/hosted-examples';
import { FREE_PORTS_ENV } from '../support/free-ports';

function envFor(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { POS_DATA_DIR: dataDir, ...FREE_PORTS_ENV, POS_EMULATOR_WAIT_S: '0', ...extra };
}

/** A raw request, so the Host header can be anything (fetch sets its own). */
function raw(url: string, options: { method: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method, headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('LIVE is never filed to an emulator unnoticed; the emulators’ controls trust no page', () => {
  let started: StartedEngine;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'live-emu-'));
    started = await startEngine({ env: envFor(dataDir) });
  });
  afterAll(async () => {
    await started?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const crear = (key: string, numero: string) =>
    fetch(`${started.urls.billing}/v1/verifactu/crear`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(hostedExample01(started.keys.nifEmisor, '20-11-2026', numero)),
    });

  it('a LIVE invoice with the emulators on is answered with the notice; a TEST one is not', async () => {
    const live = await crear(started.keys.live, 'LIVE-1');
    expect(live.status).toBe(200);
    const body = (await live.json()) as { avisos?: string[]; estado?: string };
    expect(body.avisos?.[0]).toBe(LIVE_EN_EMULADOR_AVISO);
    const test = (await (await crear(started.keys.test, 'TEST-1')).json()) as { avisos?: string[] };
    expect(test.avisos ?? []).not.toContain(LIVE_EN_EMULADOR_AVISO);
    // Through the till's own relay too.
    const relayed = await fetch(`${started.urls.panel}/panel/v1/api/billing/v1/verifactu/crear`, {
      method: 'POST',
      headers: { authorization: `Bearer ${started.engine.panelToken}`, 'x-till-entorno': 'live', 'content-type': 'application/json' },
      body: JSON.stringify(hostedExample01(started.keys.nifEmisor, '20-11-2026', 'LIVE-2')),
    });
    expect(((await relayed.json()) as { avisos?: string[] }).avisos?.[0]).toBe(LIVE_EN_EMULADOR_AVISO);
  });

  it('the banner and the panel say it loudly', async () => {
    expect(started.banner).toMatch(/LIVE GOES TO THE EMULATORS, NOT TO THE AEAT/);
    const arranque = await fetch(`${started.urls.panel}/panel/v1/arranque`, { headers: { authorization: `Bearer ${started.engine.panelToken}` } });
    expect(await arranque.json()).toMatchObject({ liveEnEmulador: true });
  });

  it('/__control/ refuses a text/plain change, a change without the control token, and a foreign Host', async () => {
    const base = started.emulators!.url;
    const port = new URL(base).port;
    const plain = await raw(`${base}/__control/aeat/faults`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: '{"mode":"down"}' });
    expect(plain.status).toBe(415);
    const noToken = await raw(`${base}/__control/aeat/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"mode":"down"}' });
    expect(noToken.status).toBe(403);
    const wrongToken = await raw(`${base}/__control/aeat/faults`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-control-token': 'guess' }, body: '{"mode":"down"}' });
    expect(wrongToken.status).toBe(403);
    const reset = await raw(`${base}/__control/aeat/reset`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '' });
    expect(reset.status).toBe(415);
    for (const host of [`evil.example:${port}`, '127.0.0.1', `127.0.0.1:${Number(port) + 1}`]) {
      expect((await raw(`${base}/__control/aeat/faults`, { method: 'GET', headers: { host } })).status, host).toBe(421);
    }
    // Nothing changed: the AEAT emulator is still up, and its ledger kept the LIVE invoice.
    const faults = await raw(`${base}/__control/aeat/faults`, { method: 'GET' });
    expect(JSON.parse(faults.body)).toMatchObject({ mode: 'none' });
  });

  it('the administrator’s panel relays fault controls with the per-launch control token', async () => {
    const auth = { authorization: `Bearer ${started.engine.panelToken}`, 'content-type': 'application/json' };
    const put = await fetch(`${started.urls.panel}/panel/v1/emuladores/aeat/faults`, { method: 'PUT', headers: auth, body: JSON.stringify({ mode: 'down' }) });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ mode: 'down' });
    await fetch(`${started.urls.panel}/panel/v1/emuladores/aeat/faults`, { method: 'PUT', headers: auth, body: JSON.stringify({ mode: 'none' }) });
  });
});

describe('Without emulators (a shop server filing with the real endpoints) there is no notice', () => {
  it('no warning in the banner, liveEnEmulador false, no notice on LIVE answers', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'live-real-'));
    // "Real" endpoints played by a closed loopback port: this test never leaves the machine.
    const started = await startEngine({ env: envFor(dataDir, { POS_EMULATORS: 'off', POS_AEAT_URL_LIVE: 'https://127.0.0.1:9/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP', POS_AEAT_URL_TEST: 'https://127.0.0.1:9/x', POS_CENSUS_URL: 'http://127.0.0.1:9/census' }) });
    try {
      expect(started.banner).not.toMatch(/EMULATORS/);
      const arranque = await fetch(`${started.urls.panel}/panel/v1/arranque`, { headers: { authorization: `Bearer ${started.engine.panelToken}` } });
      expect(await arranque.json()).toMatchObject({ liveEnEmulador: false });
      const live = await fetch(`${started.urls.billing}/v1/verifactu/crear`, {
        method: 'POST',
        headers: { 'x-api-key': started.keys.live, 'content-type': 'application/json' },
        body: JSON.stringify(hostedExample01(started.keys.nifEmisor, '20-11-2026', 'REAL-1')),
      });
      expect(live.status).toBe(200);
      expect(((await live.json()) as { avisos?: string[] }).avisos ?? []).not.toContain(LIVE_EN_EMULADOR_AVISO);
    } finally {
      await started.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
