// `npm start` with POS_DATABASE_URL: two nodes started together on one empty PostgreSQL database
// migrate it once and seed the demo data once — the second neither seeds again nor crashes — and
// each serves the seeded account. The desktop's engine process (bin/utility.ts, the same start.ts)
// joins the same database afterwards and seeds nothing either.
// Runs on the run's PostgreSQL cluster in every project (test/support/postgres-cluster.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresShown, type DemoKeysFile } from '../../../engine/src/bin/start';
import { DEMO_TICKETBAI_ISSUERS } from '../../../engine/src/demo/account';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { PG_SERVER_URL } from '../../support/postgres-cluster';
import { ROOT, startNpmStart, type RunningArtefact } from '../../support/running-artefacts';
import { FREE_PORTS_ENV } from '../../support/free-ports';

const started: RunningArtefact[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const run of started) await run.stop();
  for (const cleanup of cleanups) await cleanup();
});

/** A new database with nothing in it, not even the engine's tables (not the migrated template). */
function emptyDatabase(): string {
  const server = process.env[PG_SERVER_URL];
  if (!server) throw new Error('no PostgreSQL cluster for this run (test/support/postgres-cluster.ts)');
  const name = `empty_${randomBytes(6).toString('hex')}`;
  const admin = new PostgresDatabase(server);
  try {
    admin.statement(`CREATE DATABASE ${name}`).run();
  } finally {
    void admin.close();
  }
  return server.replace(/\/[^/]*$/, `/${name}`);
}

function query<R>(url: string, sql: string): R[] {
  const db = new PostgresDatabase(url);
  try {
    return db.statement(sql).all() as R[];
  } finally {
    void db.close();
  }
}

const keysOf = (run: { dataDir: string }) => JSON.parse(readFileSync(path.join(run.dataDir, 'demo-keys.json'), 'utf8')) as DemoKeysFile;

/** Electron's utilityProcess parent port, played over fork()'s IPC channel (as running-artefacts.ts does for the bundle). */
const PARENT_PORT_STANDIN =
  "process.parentPort={on(e,l){if(e==='message')process.on('message',(data)=>l({data}))},postMessage(m){process.send(m)}};";

describe('The banner names the database without its password', () => {
  it('user, host and database of a URL; nothing of a key=value string', () => {
    expect(postgresShown('postgres://pos:s3cret@db.example:5432/engine')).toBe('PostgreSQL pos@db.example:5432/engine');
    expect(postgresShown('host=db password=s3cret dbname=engine')).toBe('PostgreSQL');
  });
});

describe('npm start on PostgreSQL: nodes starting together on an empty database', () => {
  it('migrate and seed once; every node serves the demo account; the desktop engine process joins without seeding', async () => {
    const databaseUrl = emptyDatabase();
    const env = { POS_DATABASE_URL: databaseUrl, POS_PANEL_TOKEN: randomBytes(24).toString('base64url') };
    const nodes = await Promise.all([startNpmStart(env), startNpmStart(env)]);
    started.push(...nodes);

    // One demo account with its two keys, and the demo issuers once each.
    expect(query<{ nif: string }>(databaseUrl, 'SELECT nif FROM accounts')).toEqual([{ nif: 'B12345674' }]);
    expect(query<{ n: number }>(databaseUrl, 'SELECT COUNT(*) AS n FROM api_keys')).toEqual([{ n: 2 }]);
    const issuers = query<{ nif: string; entorno: string }>(databaseUrl, 'SELECT nif, entorno FROM issuers');
    expect(issuers.map((i) => `${i.entorno} ${i.nif}`)).toEqual(expect.arrayContaining(['test B12345674', 'live B12345674', ...DEMO_TICKETBAI_ISSUERS.map((i) => `test ${i.nif}`)]));
    expect(new Set(issuers.map((i) => `${i.entorno} ${i.nif}`)).size).toBe(issuers.length);
    // Each migration applied once.
    const migrations = query<{ name: string }>(databaseUrl, 'SELECT name FROM kysely_migration');
    expect(new Set(migrations.map((m) => m.name)).size).toBe(migrations.length);

    // The node that seeded holds the demo keys; the other prints none (keys are stored hashed) and
    // says where they are. Both answer with the seeded key.
    const keys = nodes.map(keysOf);
    const seeder = keys.findIndex((k) => k.test !== '');
    expect(seeder).toBeGreaterThanOrEqual(0);
    expect(keys[1 - seeder]!.test).toBe('');
    expect(nodes[1 - seeder]!.output.join('\n')).toContain('demo-keys.json of the node that seeded the database');
    // The banner names the database, never a password.
    const database = new URL(databaseUrl);
    expect(nodes[0]!.output).toContain(`  database        PostgreSQL ${database.username}@${database.host}${database.pathname} (POS_DATABASE_URL)`);
    for (const node of keys) {
      const res = await fetch(`${node.billingUrl}/v1/cuenta`, { headers: { 'x-api-key': keys[seeder]!.test } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ entorno: 'test', nifClientePrincipal: 'B12345674' });
    }

    // The desktop's engine process (utility.ts through start.ts) on the same database: ready, nothing seeded again.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'utility-pg-'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(PARENT_PORT_STANDIN)}`, path.join(ROOT, 'engine/src/bin/utility.ts')],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, POS_DATA_DIR: dataDir, ...FREE_PORTS_ENV },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      },
    );
    cleanups.push(() => {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ready = await new Promise<{ type: string; urls?: { billing: string } }>((resolve, reject) => {
      child.on('message', (message) => resolve(message as { type: string; urls?: { billing: string } }));
      child.once('exit', (code) => reject(new Error(`utility.ts exited ${code}: ${stderr}`)));
    });
    expect(ready.type, stderr).toBe('ready');
    const res = await fetch(`${ready.urls!.billing}/v1/cuenta`, { headers: { 'x-api-key': keys[seeder]!.live } });
    expect(res.status).toBe(200);
    expect(query<{ n: number }>(databaseUrl, 'SELECT COUNT(*) AS n FROM accounts')).toEqual([{ n: 1 }]);
    expect(query<{ n: number }>(databaseUrl, 'SELECT COUNT(*) AS n FROM api_keys')).toEqual([{ n: 2 }]);
    child.send({ type: 'stop' });
  });
});
