import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AeatEmulator } from '../../../engine/emulators/aeat/index';
import { createAeatEmulator } from '../../../engine/emulators/aeat/index';
import { ChainBuilder, SOAP_PATH, buildEnvelope } from './builders';
import { DEMO, T0, parseRespuesta } from './helpers';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
if (!hasOpenssl) {
  console.warn('[tls.test] openssl CLI not found: skipping the mutual-TLS test');
}

const script = path.resolve(fileURLToPath(import.meta.url), '../../../../scripts/make-test-ca.sh');

function post(port: number, body: string, tls: https.RequestOptions): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: SOAP_PATH, method: 'POST', headers: { 'content-type': 'text/xml' }, ...tls },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(!hasOpenssl)('AEAT emulator over mutual TLS', () => {
  let dir: string;
  let emu: AeatEmulator;
  let port: number;
  let ca: Buffer;

  /** An emulator serving the test CA's server certificate and asking clients for theirs. */
  const mutualTlsEmulator = (tls: { rejectUnauthorized?: boolean } = {}): AeatEmulator =>
    createAeatEmulator({
      clock: () => new Date(T0),
      xsdPoolSize: 1,
      tls: {
        key: readFileSync(path.join(dir, 'server.key')),
        cert: readFileSync(path.join(dir, 'server.crt')),
        ca,
        requestCert: true,
        ...tls,
      },
    });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'aeat-tls-'));
    execFileSync('bash', [script, dir, 'secreto'], { stdio: 'pipe' });
    ca = readFileSync(path.join(dir, 'ca.crt'));
    emu = mutualTlsEmulator();
    port = await emu.listen(0);
    await emu.ready();
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a client without a certificate and serves one with the PKCS#12', async () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const body = buildEnvelope({ obligado: DEMO, records: [chain.alta()] });

    await expect(post(port, body, { ca, agent: false })).rejects.toThrow(/certificate required|ECONNRESET|socket hang up/i);
    expect(emu.ledger.countRecords()).toBe(0);

    const r = await post(port, body, {
      ca,
      agent: false,
      pfx: readFileSync(path.join(dir, 'client.p12')),
      passphrase: 'secreto',
    });
    expect(r.status).toBe(200);
    const resp = parseRespuesta(r.text);
    expect(resp.estadoEnvio).toBe('Correcto');
    // The presenter is read from the certificate (serialNumber VATES-B12345674).
    expect(resp.nifPresentador).toBe(DEMO.nif);
    expect(emu.url()).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('4112: the certificate holder must be the obligado or its representative', async () => {
    const other = { nif: 'A23456783', nombre: 'DISTRIBUCIONES EJEMPLO SA' };
    const chain = new ChainBuilder(other.nif, new Date(T0 - 3600_000));
    const tls = { ca, agent: false, pfx: readFileSync(path.join(dir, 'client.p12')), passphrase: 'secreto' };
    const before = emu.ledger.countRecords();
    const refused = await post(port, buildEnvelope({ obligado: other, records: [chain.alta()] }), tls);
    expect(refused.status).toBe(500);
    expect(refused.text).toContain('<faultstring>Codigo[4112].El titular del certificado debe ser Obligado Emisión, Colaborador Social, Apoderado o Sucesor.</faultstring>');
    expect(emu.ledger.countRecords()).toBe(before);
    // Named as the obligado's representative, the same holder may present.
    const ok = await post(port, buildEnvelope({ obligado: other, representante: DEMO, records: [chain.alta()] }), tls);
    expect(ok.status).toBe(200);
    expect(parseRespuesta(ok.text)).toMatchObject({ estadoEnvio: 'Correcto', nifPresentador: DEMO.nif });
  });

  it('a front end that lets the handshake through answers a request without a certificate 401 with an HTML page', async () => {
    const open = mutualTlsEmulator({ rejectUnauthorized: false });
    try {
      const openPort = await open.listen(0);
      const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
      const r = await post(openPort, buildEnvelope({ obligado: DEMO, records: [chain.alta()] }), { ca, agent: false });
      expect(r.status).toBe(401);
      expect(r.text).toMatch(/^<!DOCTYPE html>.*Error 401/s);
      expect(open.ledger.countRecords()).toBe(0);
    } finally {
      await open.close();
    }
  });

  it('refuses a certificate from another CA', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'aeat-tls-other-'));
    try {
      execFileSync('bash', [script, other, 'x'], { stdio: 'pipe' });
      await expect(
        post(port, '<x/>', {
          ca,
          agent: false,
          key: readFileSync(path.join(other, 'client.key')),
          cert: readFileSync(path.join(other, 'client.crt')),
        }),
      ).rejects.toThrow(/unknown ca|certificate|ECONNRESET|socket hang up/i);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
