/**
 * The engine alone in a child process, for tests that kill it (SIGKILL) while it files or delivers
 * webhooks, and start it again on the same data dir; its pollers and retries are fast.
 * Argv: dataDir aeatUrl [emulatorsUrl]. With the emulators' base URL, TicketBAI files with them too
 * and the demo account gets the Gipuzkoa issuer of TBAI_ISSUERS in TEST.
 * Prints one JSON line {url, billing, manage, key, nif} when listening.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { seedDemoAccount } from '../../engine/src/demo/account';
import { createEngine } from '../../engine/src/index';
import { runningEngineConfig } from './running-engine-config';
import { tbaiEmisor } from '../fixtures/ticketbai';

const [dataDir, aeatUrl, emulatorsUrl] = process.argv.slice(2);
if (!dataDir || !aeatUrl) throw new Error('usage: engine-process.ts dataDir aeatUrl [emulatorsUrl]');
const engine = await createEngine(
  runningEngineConfig(dataDir, {
    submission: { aeat: { url: { test: aeatUrl, live: aeatUrl }, timeoutMs: 5000 }, pollMs: 20, backoffBaseMs: 50, backoffMaxMs: 500 },
    webhooks: { pollMs: 20, timeoutMs: 2000, retryDelaysMs: [50, 100, 200] },
    ...(emulatorsUrl ? { emulatorUrl: emulatorsUrl } : {}),
  }),
);
const keysFile = path.join(dataDir, 'test-keys.json');
const seeded = seedDemoAccount(engine.context);
if (seeded) writeFileSync(keysFile, JSON.stringify(seeded));
if (seeded && emulatorsUrl) {
  const accountId = engine.context.accounts.listAccounts()[0]!.id;
  engine.context.issuers.create({ accountId, entorno: 'test', ...tbaiEmisor('gipuzkoa'), hacienda: 'tbai-gipuzkoa' });
}
const keys = existsSync(keysFile) ? (JSON.parse(readFileSync(keysFile, 'utf8')) as { test: string; nifEmisor: string }) : undefined;
const urls = await engine.start();
// Before the ready line: a parent may send SIGTERM the moment it reads it.
process.on('SIGTERM', () => void engine.stop().then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ url: urls.billing, billing: urls.billing, manage: urls.manage, key: keys?.test, nif: keys?.nifEmisor })}\n`);
