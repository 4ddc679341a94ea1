import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import { configFromEnv } from '../../../engine/src/config';
import { allowedHostNames } from '../../../engine/src/http/keyed-api';
import { createEngine, type Engine } from '../../../engine/src/index';
import { testEngineConfig } from '../../support/engine';

describe('POS_ALLOWED_HOSTS: the LAN names of a shared engine, each only with the API’s own port', () => {
  let engine: Engine;
  let dataDir: string;
  let key: string;
  let ports: { billing: string; manage: string; panel: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'lan-hosts-'));
    engine = await createEngine(testEngineConfig(dataDir, { host: '127.0.0.1', allowedHosts: ['Caja-Principal.local', '192.168.1.10'] }));
    key = seedDemoAccount(engine.context)?.test ?? '';
    const urls = await engine.start();
    const portOf = (url: string) => new URL(url).port;
    ports = { billing: portOf(urls.billing), manage: portOf(urls.manage), panel: portOf(urls.panel) };
  });
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (app: 'billing' | 'manage' | 'panel', url: string, host: string) =>
    engine.apps[app].inject({ method: 'GET', url, headers: { host, 'x-api-key': key, authorization: 'Bearer panel-test-token' } });

  it('a configured name or address with the API’s own port is accepted (case-insensitive)', async () => {
    expect((await get('billing', '/v1/cuenta', `caja-principal.local:${ports.billing}`)).statusCode).toBe(200);
    expect((await get('billing', '/v1/cuenta', `CAJA-PRINCIPAL.LOCAL:${ports.billing}`)).statusCode).toBe(200);
    expect((await get('manage', '/v1/clientes', `192.168.1.10:${ports.manage}`)).statusCode).toBe(200);
    expect((await get('panel', '/panel/v1/arranque', `192.168.1.10:${ports.panel}`)).statusCode).toBe(200);
  });

  it('the same name on another port, or without a port, is refused with 421 HOST_NOT_ALLOWED', async () => {
    for (const host of [`caja-principal.local:${ports.manage}`, 'caja-principal.local', 'caja-principal.local:80', `192.168.1.10:${ports.panel}`, `192.168.1.11:${ports.billing}`, `evil.example:${ports.billing}`]) {
      const res = await get('billing', '/v1/cuenta', host);
      expect(res.statusCode, host).toBe(421);
      expect(res.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    }
  });

  it('loopback names keep working', async () => {
    expect((await get('billing', '/v1/cuenta', `127.0.0.1:${ports.billing}`)).statusCode).toBe(200);
    expect((await get('manage', '/v1/clientes', 'localhost:8781')).statusCode).toBe(200);
  });
});

describe('POS_HOST may be a LAN address: it is accepted with the port, a wildcard listen address is not a name', () => {
  it('builds the allowed Host values', () => {
    expect(allowedHostNames({ host: '192.168.1.10', allowedHosts: ['caja1.local'] }, 'http://192.168.1.10:8780')).toEqual([
      '127.0.0.1',
      'localhost',
      '[::1]',
      '192.168.1.10:8780',
      'caja1.local:8780',
    ]);
    expect(allowedHostNames({ host: '0.0.0.0', allowedHosts: ['caja1.local'] }, 'http://0.0.0.0:8781')).toEqual(['127.0.0.1', 'localhost', '[::1]', 'caja1.local:8781']);
    expect(allowedHostNames({ host: 'fe80::1', allowedHosts: [] }, 'http://fe80::1:8782')).toEqual(['127.0.0.1', 'localhost', '[::1]', '[fe80::1]:8782']);
    expect(allowedHostNames({ host: '127.0.0.1', allowedHosts: [] }, 'http://127.0.0.1:8780')).toEqual(['127.0.0.1', 'localhost', '[::1]']);
  });

  it('POS_ALLOWED_HOSTS is a comma-separated list', () => {
    expect(configFromEnv({ POS_HOST: '192.168.1.10', POS_ALLOWED_HOSTS: 'caja1.local, 192.168.1.10,' })).toMatchObject({
      host: '192.168.1.10',
      allowedHosts: ['caja1.local', '192.168.1.10'],
    });
  });
});
