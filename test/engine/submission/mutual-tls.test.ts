import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../../engine/src/config';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { makeTestEngine, type TestEngine } from '../../support/engine';

const script = path.resolve(import.meta.dirname, '../../../scripts/make-test-ca.sh');
const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const PASSWORD = 'secreto-p12';
let dir: string;
let emu: Emulators;
let t: TestEngine;

beforeAll(async () => {
  // No skip without openssl: CI installs it, and a skipped mutual-TLS test would prove nothing.
  if (spawnSync('openssl', ['version']).status !== 0) throw new Error('openssl CLI not found: it is needed to make the test CA');
  dir = mkdtempSync(path.join(tmpdir(), 'engine-mtls-'));
  execFileSync('bash', [script, dir, PASSWORD], { stdio: 'pipe' });
  // The emulator as AEAT's front end: HTTPS, handshake refused without a client certificate of the CA.
  emu = await startTestEmulators({
    clock,
    waitSeconds: 0,
    tls: {
      key: readFileSync(path.join(dir, 'server.key')),
      cert: readFileSync(path.join(dir, 'server.crt')),
      ca: readFileSync(path.join(dir, 'ca.crt')),
      requestCert: true,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  POS_AEAT_URL_TEST: emu.aeatUrl,
  POS_AEAT_URL_LIVE: emu.aeatUrl,
  POS_AEAT_P12: path.join(dir, 'client.p12'),
  POS_AEAT_P12_PASSWORD: PASSWORD,
  POS_AEAT_CA: path.join(dir, 'ca.crt'),
  ...extra,
});

describe('Mutual TLS towards the AEAT, configured by POS_AEAT_P12 / POS_AEAT_P12_PASSWORD / POS_AEAT_CA', () => {
  it('drains a record through the emulator served over HTTPS requiring a client certificate', async () => {
    expect(emu.aeatUrl.startsWith('https://')).toBe(true);
    const aeat = configFromEnv(env()).submission?.aeat;
    expect(aeat?.tls?.passphrase).toBe(PASSWORD);
    t = await makeTestEngine({ clock, submission: { aeat: { ...aeat, timeoutMs: 5000 }, random: () => 0.5 } });
    const res = await t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie: 'TLS', numero: '1', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    expect(res.statusCode).toBe(200);
    await t.engine.context.submissions.drainDue();

    const estado = (await t.billing('GET', `/v1/facturas/${res.json().idFactura}/estado?nifEmisor=${t.nifEmisor}`)).json();
    expect(estado.estadoFactura).toBe('registrada');
    // AEAT saw the certificate: the presenter is the NIF in the client certificate.
    const [submission] = emu.aeat.ledger.submissions();
    expect(submission).toMatchObject({ outcome: 'processed', presentador: 'B12345674', recordCount: 1 });
    expect(emu.aeat.ledger.countRecords(t.nifEmisor)).toBe(1);
  });

  it('without POS_AEAT_P12 no client certificate is sent: the handshake fails and the record waits', async () => {
    const aeat = configFromEnv({ POS_AEAT_URL_TEST: emu.aeatUrl, POS_AEAT_URL_LIVE: emu.aeatUrl }).submission?.aeat;
    expect(aeat?.tls).toBeUndefined();
    const plain = await makeTestEngine({ clock, submission: { aeat: { ...aeat, timeoutMs: 5000 }, random: () => 0.5 } });
    try {
      const before = emu.aeat.ledger.submissions().length;
      const res = await plain.billing('POST', '/v1/verifactu/crear', {
        body: aFacturaF2({ cabecera: { serie: 'TLS', numero: '2', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
      });
      await plain.engine.context.submissions.drainDue();
      const estado = (await plain.billing('GET', `/v1/facturas/${res.json().idFactura}/estado?nifEmisor=${plain.nifEmisor}`)).json();
      expect(estado.estadoFactura ?? null).toBeNull();
      expect(emu.aeat.ledger.submissions().length).toBe(before);
      const queue = plain.engine.context.db.statement('SELECT alcanzable FROM submission_queues').get() as { alcanzable: number };
      expect(queue.alcanzable).toBe(0);
    } finally {
      await plain.close();
    }
  });

  it('a configuration that cannot work stops the start, naming the variable', () => {
    expect(() => configFromEnv(env({ POS_AEAT_P12: path.join(dir, 'missing.p12') }))).toThrow(/^POS_AEAT_P12: cannot read/);
    expect(() => configFromEnv(env({ POS_AEAT_P12_PASSWORD: 'wrong' }))).toThrow(/^POS_AEAT_P12: cannot use the PKCS#12/);
    expect(() => configFromEnv(env({ POS_AEAT_CA: path.join(dir, 'missing.crt') }))).toThrow(/^POS_AEAT_CA: cannot read/);
    expect(() => configFromEnv({ POS_AEAT_CA: path.join(dir, 'ca.crt') })).toThrow(/need POS_AEAT_P12/);
  });
});
