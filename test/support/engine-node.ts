/**
 * One engine node in a child process on a shared PostgreSQL (issue 27), for the tests that run
 * several nodes on one database and SIGKILL some of them. Like engine-process.ts (fast pollers and
 * retries), with the database given. Argv: dataDir databaseUrl keysFile aeatUrl emulatorsUrl.
 * The first node to start on an empty database seeds the demo account with more issuers in TEST —
 * NODE_ISSUERS: a second VeriFactu one (for device chains beside the account's own centralized
 * one) and the Gipuzkoa and Araba TicketBAI ones of TBAI_ISSUERS — and writes the keys to
 * `keysFile`; the others read them from there.
 * Prints one JSON line {url, billing, manage, key, nif} when listening.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { seedDemoAccount } from '../../engine/src/demo/account';
import { createEngine } from '../../engine/src/index';
import { runningEngineConfig } from './running-engine-config';
import { NODE_ISSUERS } from './engine-nodes';

const [dataDir, databaseUrl, keysFile, aeatUrl, emulatorsUrl] = process.argv.slice(2);
if (!dataDir || !databaseUrl || !keysFile || !aeatUrl || !emulatorsUrl) throw new Error('usage: engine-node.ts dataDir databaseUrl keysFile aeatUrl emulatorsUrl');
const engine = await createEngine(
  runningEngineConfig(dataDir, {
    databaseUrl,
    submission: { aeat: { url: { test: aeatUrl, live: aeatUrl }, timeoutMs: 5000 }, pollMs: 20, backoffBaseMs: 50, backoffMaxMs: 500 },
    webhooks: { pollMs: 20, timeoutMs: 2000, retryDelaysMs: [50, 100, 200, 400, 800] },
    emulatorUrl: emulatorsUrl,
  }),
);
const seeded = seedDemoAccount(engine.context);
if (seeded) {
  const accountId = engine.context.accounts.listAccounts()[0]!.id;
  for (const issuer of NODE_ISSUERS) engine.context.issuers.create({ accountId, entorno: 'test', ...issuer });
  writeFileSync(keysFile, JSON.stringify(seeded));
}
const keys = existsSync(keysFile) ? (JSON.parse(readFileSync(keysFile, 'utf8')) as { test: string; nifEmisor: string }) : undefined;
const urls = await engine.start();
// Before the ready line: a parent may send SIGTERM the moment it reads it.
process.on('SIGTERM', () => void engine.stop().then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ url: urls.billing, billing: urls.billing, manage: urls.manage, key: keys?.test, nif: keys?.nifEmisor })}\n`);
