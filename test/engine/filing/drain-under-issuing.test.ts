// Issuing goes first at the write lock and at the CPU (engine/src/db/write-priority.ts), but with
// a floor: a till that issues all day still files. Here requests never stop coming while the
// filing thread works, and records reach the authority meanwhile, each exactly once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import { createEngine } from '../../../engine/src/index';
import { silentLogger } from '../../../engine/src/platform/logger';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { NO_LIMITS } from '../../support/engine';
import { aTicketDemo } from '../../fixtures/verifactu';

let emu: Emulators;
beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
});
afterAll(async () => emu.close());

const factura = (nif: string, numero: number) => aTicketDemo(nif, 'DI', String(numero));

describe('The drain under issuing that never pauses', () => {
  it('files records while every till keeps issuing, and each exactly once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'drain-under-issuing-'));
    const engine = await createEngine({
      dataDir,
      logger: silentLogger,
      limits: NO_LIMITS,
      billingPort: 0,
      managePort: 0,
      panelPort: 0,
      submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl }, timeoutMs: 5000 }, pollMs: 50, backoffBaseMs: 50, backoffMaxMs: 500 },
    });
    const keys = seedDemoAccount(engine.context)!;
    await engine.start();
    const reader = new BetterSqlite3(path.join(dataDir, 'engine.sqlite'), { readonly: true });
    const registered = () => (reader.prepare("SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal = 'registrada'").get() as { n: number }).n;
    const headers = { 'x-api-key': keys.test };
    let issued = 0;
    try {
      // Ten tills, each sending its next sale as soon as its last one is answered, until records
      // reached the authority: issuing never pauses meanwhile.
      const deadline = Date.now() + 45_000;
      let filedWhileIssuing = 0;
      const till = async () => {
        while (filedWhileIssuing === 0) {
          if (Date.now() > deadline) throw new Error(`nothing filed while ${issued} invoices were issued`);
          const res = await engine.apps.billing.inject({ method: 'POST', url: '/v1/verifactu/crear', headers, payload: factura(keys.nifEmisor, ++issued) });
          expect(res.statusCode, res.body).toBe(200);
          filedWhileIssuing = registered();
        }
      };
      await Promise.all(Array.from({ length: 10 }, till));
      expect(filedWhileIssuing).toBeGreaterThan(0);

      // Once the tills stop, the rest is filed, none twice.
      const drained = Date.now() + 45_000;
      while (registered() < issued && Date.now() < drained) await new Promise((r) => setTimeout(r, 50));
      expect(registered()).toBe(issued);
      expect(emu.aeat.ledger.records(keys.nifEmisor)).toHaveLength(issued);
    } finally {
      reader.close();
      await engine.stop();
    }
  });
});
