// The filing thread (engine/src/filing/filing-thread.ts): an engine on a real file with the system
// clock runs its submission and webhook workers on a thread of their own, with their own
// connection. Everything the in-process workers do must still happen exactly once from there.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import { tbaiEmulatorBases } from '../../../engine/src/config';
import { createEngine, type Engine } from '../../../engine/src/index';
import type { Logger } from '../../../engine/src/platform/logger';
import { aTicketTbai, TBAI_ISSUER_LIST, TBAI_ISSUERS, tbaiEmisor, type TbaiProvincia } from '../../fixtures/ticketbai';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { NO_LIMITS } from '../../support/engine';
import { signatureValid, startReceiver, type Receiver } from '../../support/webhook-receiver';
import { aTicketDemo } from '../../fixtures/verifactu';

const SECRETO = 'secreto-del-hilo-de-envio';
const PROVINCIAS: TbaiProvincia[] = ['gipuzkoa', 'araba', 'bizkaia'];
const VERIFACTU = 20;
const TICKETBAI_EACH = 4;

let emu: Emulators;
let rx: Receiver;
beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
  rx = await startReceiver();
});
afterAll(async () => {
  await emu.close();
  await rx.close();
});

/** Every line the engine (and, relayed, its filing thread) logs. */
function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

function factura(nif: string, numero: string) {
  return aTicketDemo(nif, 'FT', numero);
}

async function until(what: string, done: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('An engine on a file with the system clock files from the filing thread', () => {
  it('files both regimes exactly once, delivers every event, and stops cleanly', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'filing-thread-'));
    const logger = recordingLogger();
    const engine: Engine = await createEngine({
      dataDir,
      logger,
      limits: NO_LIMITS,
      billingPort: 0,
      managePort: 0,
      panelPort: 0,
      emulatorUrl: emu.url,
      submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl }, timeoutMs: 5000 }, pollMs: 50, backoffBaseMs: 50, backoffMaxMs: 500 },
      webhooks: { pollMs: 50, timeoutMs: 2000, retryDelaysMs: [50, 100, 200] },
      ticketbai: { endpoints: { base: tbaiEmulatorBases(emu.url) } },
    });
    const ctx = engine.context;
    expect(ctx.config.filingThread).toBe(true);
    // The workers are not on this thread: the context has none to drive.
    expect(ctx.submissions).toBeUndefined();
    expect(ctx.webhookDeliveries).toBeUndefined();

    const keys = seedDemoAccount(ctx)!;
    const account = ctx.accounts.listAccounts()[0]!;
    for (const issuer of TBAI_ISSUER_LIST) ctx.issuers.create({ accountId: account.id, entorno: 'test', ...issuer });
    await engine.start();
    const headers = { 'x-api-key': keys.test };

    // A webhook for every issuer, created while the thread runs ("webhooks changed").
    const created = await engine.apps.manage.inject({ method: 'POST', url: '/v1/webhooks', headers, payload: { nombre: 'hilo', url: `${rx.url}/hook`, secreto: SECRETO } });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const idWebhook = (created.json() as { webhook: { idWebhook: string } }).webhook.idWebhook;
    const linked = await engine.apps.manage.inject({
      method: 'POST',
      url: `/v1/webhooks/${idWebhook}/clientes`,
      headers,
      payload: { clientes: [keys.nifEmisor, ...Object.values(TBAI_ISSUERS)] },
    });
    expect(linked.statusCode, linked.body).toBeLessThan(300);

    const issued = await Promise.all([
      ...Array.from({ length: VERIFACTU }, (_, i) =>
        engine.apps.billing.inject({ method: 'POST', url: '/v1/verifactu/crear', headers, payload: factura(keys.nifEmisor, String(i + 1)) }),
      ),
      ...PROVINCIAS.flatMap((prov) =>
        Array.from({ length: TICKETBAI_EACH }, (_, i) =>
          engine.apps.billing.inject({ method: 'POST', url: '/v1/ticketbai/crear', headers, payload: aTicketTbai(prov, tbaiEmisor(prov), 'FT', String(i + 1)) }),
        ),
      ),
    ]);
    for (const res of issued) expect(res.statusCode, res.body).toBe(200);
    const total = VERIFACTU + PROVINCIAS.length * TICKETBAI_EACH;

    // Nobody calls tick(): the thread was told of the commits and files on its own.
    const reader = new BetterSqlite3(path.join(dataDir, 'engine.sqlite'), { readonly: true });
    const count = (sql: string) => (reader.prepare(sql).get() as { n: number }).n;
    await until('every record filed', () => count("SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal = 'registrada'") === total);
    await until('every event delivered', () => count("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE estado = 'entregada'") === total);
    expect(count('SELECT COUNT(*) AS n FROM submission_jobs')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM events')).toBe(total);
    reader.close();

    // Exactly once at each authority, chains intact there.
    expect(emu.aeat.ledger.records(keys.nifEmisor)).toHaveLength(VERIFACTU);
    expect(emu.aeat.ledger.chainIntact(keys.nifEmisor)).toBe(true);
    expect(emu.aeat.ledger.duplicatesReceived()).toEqual([]);
    for (const prov of PROVINCIAS) {
      expect(emu.tbai.ledger.countInvoices(prov, TBAI_ISSUERS[prov]), prov).toBe(TICKETBAI_EACH);
      expect(emu.tbai.ledger.chainIntact(prov, TBAI_ISSUERS[prov]), prov).toBe(true);
      expect(emu.tbai.ledger.duplicatesReceived(prov), prov).toEqual([]);
    }

    // One signed delivery per event at the receiver.
    const received = rx.byPath('/hook');
    expect(new Set(received.map((r) => r.json.idEntrega)).size).toBe(total);
    for (const r of received) expect(signatureValid(r.raw, r.headers['x-service-signature'], SECRETO)).toBe(true);
    expect(received.filter((r) => r.json.evento === 'factura.registrada')).toHaveLength(received.length);

    // The panel's routes work against the thread: resume wakes it by message.
    const panel = (method: 'GET' | 'POST', url: string, payload?: object) =>
      engine.apps.panel.inject({ method, url, headers: { authorization: `Bearer ${engine.panelToken}` }, ...(payload ? { payload } : {}) });
    expect((await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: true })).statusCode).toBe(200);
    const paused = await engine.apps.billing.inject({ method: 'POST', url: '/v1/verifactu/crear', headers, payload: factura(keys.nifEmisor, 'paused') });
    expect(paused.statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(emu.aeat.ledger.records(keys.nifEmisor)).toHaveLength(VERIFACTU);
    expect((await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: false })).statusCode).toBe(200);
    await until('the resumed queue filed', () => emu.aeat.ledger.records(keys.nifEmisor).length === VERIFACTU + 1);
    const sync = await panel('GET', '/panel/v1/sync');
    expect(sync.statusCode).toBe(200);

    await engine.stop();
    // Both connections closed: the last one to close removed the WAL.
    expect(existsSync(path.join(dataDir, 'engine.sqlite-wal'))).toBe(false);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  }, 120_000);
});
