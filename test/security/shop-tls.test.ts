import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedDemoAccount } from '../../engine/src/demo/account';
import { createEngine, urlHostOf, type Engine } from '../../engine/src/index';
import { PinnedCertificateError, pinnedFetch } from '../../src-main/pinned-tls';
import { loadSharedEngineConfig } from '../../src-main/shared-engine';
import { hostedExample01 } from '../fixtures/hosted-examples';
import { migratedDataDir, testEngineConfig } from '../support/engine';

// The shop's network is played by loopback addresses (only loopback traffic is allowed here): the
// engine listens on 127.0.0.2 with TLS on as it is beyond loopback (POS_TLS=on), and a till reaches
// it as 127.0.0.3 through a TCP proxy that records every byte both ways — the tap on the Wi-Fi.
const ENGINE_HOST = '127.0.0.2';
const TILL_SIDE = '127.0.0.3';

interface Tap {
  server: net.Server;
  bytes: Buffer[];
  sockets: Set<net.Socket>;
}

async function tap(listenPort: number, targetPort: number): Promise<Tap> {
  const bytes: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, ENGINE_HOST);
    sockets.add(client).add(upstream);
    client.on('data', (d: Buffer) => {
      bytes.push(d);
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      bytes.push(d);
      client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(listenPort, TILL_SIDE, resolve));
  return { server, bytes, sockets };
}

let engine: Engine;
let dataDir: string;
let taps: { billing: Tap; panel: Tap };
let till: { token: string; claves: { test: string; live: string }; engineJson: Record<string, string> };
let accountKey: string;

beforeAll(async () => {
  dataDir = migratedDataDir('shop-tls-');
  engine = await createEngine(testEngineConfig(dataDir, { host: ENGINE_HOST, allowedHosts: [TILL_SIDE], serverTls: { mode: 'on' } }));
  const seeded = seedDemoAccount(engine.context);
  accountKey = seeded?.test ?? '';
  writeFileSync(path.join(dataDir, 'demo-keys.json'), JSON.stringify({ test: seeded?.test, live: seeded?.live, nifEmisor: seeded?.nifEmisor }));
  const urls = await engine.start();
  const port = (url: string) => Number(new URL(url).port);
  taps = { billing: await tap(port(urls.billing), port(urls.billing)), panel: await tap(port(urls.panel), port(urls.panel)) };
  const res = await engine.apps.panel.inject({ method: 'POST', url: '/panel/v1/cajas', headers: { authorization: 'Bearer panel-test-token' }, payload: { etiqueta: 'Caja 2', idMaquina: 'TPV-CAJA2' } });
  expect(res.statusCode, res.body).toBe(201);
  till = res.json() as typeof till;
});
afterAll(async () => {
  for (const t of Object.values(taps ?? {})) {
    for (const socket of t.sockets) socket.destroy();
    await new Promise((r) => t.server.close(r));
  }
  await engine?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const viaTap = (url: string) => url.replace(ENGINE_HOST, TILL_SIDE);

describe('TLS on the engine’s ports beyond loopback, the certificate pinned by each till', () => {
  it('the URLs are https, and the till’s engine.json carries them and the certificate’s SHA-256 fingerprint', () => {
    expect(engine.urls.billing).toMatch(/^https:\/\/127\.0\.0\.2:\d+$/);
    expect(engine.urls.panel).toMatch(/^https:\/\//);
    expect(till.engineJson).toMatchObject({ url: engine.urls.billing, manageUrl: engine.urls.manage, panelUrl: engine.urls.panel, tillToken: till.token, idMaquina: 'TPV-CAJA2' });
    expect(till.engineJson.fingerprint256).toBe(engine.context.serverTls?.fingerprint256);
    expect(till.engineJson.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // The engine's own CA and the server key, made once in the data dir; the keys 0600.
    expect(statSync(path.join(dataDir, 'tls', 'server-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'tls', 'ca-key.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dataDir, 'tls', 'server.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');
    // What the engine hands over is exactly what a till's app accepts as its engine.json.
    const userData = mkdtempSync(path.join(tmpdir(), 'till-userdata-'));
    writeFileSync(path.join(userData, 'engine.json'), JSON.stringify(till.engineJson), { mode: 0o600 });
    const warn = vi.fn();
    expect(loadSharedEngineConfig(userData, warn)).toEqual(till.engineJson);
    expect(warn).not.toHaveBeenCalled();
    rmSync(userData, { recursive: true, force: true });
  });

  it('a capture of a till’s traffic with the server holds no token, key or invoice data in clear', async () => {
    const fetchPinned = pinnedFetch(till.engineJson.fingerprint256!);
    const panelUrl = viaTap(engine.urls.panel);
    const billingUrl = viaTap(engine.urls.billing);
    const auth = { authorization: `Bearer ${till.token}` };
    const arranque = await fetchPinned(`${panelUrl}/panel/v1/arranque`, { headers: auth });
    expect(arranque.status).toBe(200);
    expect(await arranque.json()).toMatchObject({ rol: 'caja', idDispositivo: 'TPV-CAJA2' });
    const invoice = (numero: string) => ({
      ...hostedExample01('B12345674', '20-11-2026', numero),
      destinatario: { nif: 'B00000000', nombre: 'CLIENTA SECRETA SL' },
      idMaquina: 'TPV-CAJA2',
    });
    const relayed = await fetchPinned(`${panelUrl}/panel/v1/api/billing/v1/verifactu/crear`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(invoice('TLS-1')) });
    expect(relayed.status, await relayed.clone().text()).toBe(200);
    const direct = await fetchPinned(`${billingUrl}/v1/verifactu/crear`, { method: 'POST', headers: { 'x-api-key': till.claves.test, 'content-type': 'application/json' }, body: JSON.stringify(invoice('TLS-2')) });
    expect(direct.status).toBe(200);
    const { huella } = (await direct.json()) as { huella?: string };

    const captured = Buffer.concat([...taps.panel.bytes, ...taps.billing.bytes]);
    expect(captured.length).toBeGreaterThan(2000);
    // TLS records (handshake 0x16, application data 0x17), not HTTP.
    expect(captured[0]).toBe(0x16);
    const text = captured.toString('latin1');
    for (const secret of [till.token, till.claves.test, 'Bearer', 'x-api-key', 'CLIENTA SECRETA', 'B00000000', 'B12345674', 'TPV-CAJA2', 'verifactu/crear', 'HTTP/1.1', ...(huella ? [huella] : [])]) {
      expect(text.includes(secret), `captured in clear: ${secret}`).toBe(false);
    }
  });

  it('a till with a wrong pinned fingerprint refuses to connect, and sends nothing', async () => {
    const before = taps.panel.bytes.length;
    const wrong = pinnedFetch(Array.from({ length: 32 }, () => 'AB').join(':'));
    await expect(wrong(`${viaTap(engine.urls.panel)}/panel/v1/arranque`, { headers: { authorization: `Bearer ${till.token}` } })).rejects.toThrow(PinnedCertificateError);
    // Only the handshake crossed: far less than a request with its token.
    const sent = Buffer.concat(taps.panel.bytes.slice(before)).toString('latin1');
    expect(sent).not.toContain(till.token);
    // And plain http is refused by the till itself.
    await expect(pinnedFetch(till.engineJson.fingerprint256!)(viaTap(engine.urls.panel).replace('https:', 'http:'))).rejects.toThrow(/not https/);
  });

  it('the engine answers no plain HTTP on its ports beyond loopback', async () => {
    const plain = await fetch(engine.urls.billing.replace('https:', 'http:') + '/v1/cuenta', { headers: { 'x-api-key': accountKey } }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(plain).not.toBe(200);
  });
});

describe('Beyond loopback the panel lists its routes to token holders only', () => {
  it('GET /openapi.json of the panel: 401 without a token, 200 with a till’s; the billing API’s stays public', async () => {
    const anon = await engine.apps.panel.inject({ method: 'GET', url: '/openapi.json', headers: { host: new URL(engine.urls.panel).host } });
    expect(anon.statusCode).toBe(401);
    const withTill = await engine.apps.panel.inject({ method: 'GET', url: '/openapi.json', headers: { host: new URL(engine.urls.panel).host, authorization: `Bearer ${till.token}` } });
    expect(withTill.statusCode).toBe(200);
    expect((await engine.apps.billing.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
  });
});

describe('Files with secrets are the engine user’s only', () => {
  it('the database (and its WAL) and the generated keys are 0600, the data dir’s TLS folder 0700', () => {
    expect(statSync(path.join(dataDir, 'engine.sqlite')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'engine.sqlite-wal')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'tls')).mode & 0o777).toBe(0o700);
  });
});

describe('A wildcard listen address prints usable URLs', () => {
  it('0.0.0.0 becomes the first LAN name, or loopback without one; a real address stays', () => {
    expect(urlHostOf({ host: '0.0.0.0', allowedHosts: ['caja-principal.local', '192.168.1.10'] })).toBe('caja-principal.local');
    expect(urlHostOf({ host: '0.0.0.0', allowedHosts: [] })).toBe('127.0.0.1');
    expect(urlHostOf({ host: '192.168.1.10', allowedHosts: [] })).toBe('192.168.1.10');
    expect(urlHostOf({ host: '::', allowedHosts: ['fe80::1'] })).toBe('[fe80::1]');
  });
});
