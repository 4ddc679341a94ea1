import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PostgresDatabase } from '../../engine/src/db/postgres';
import { PG_SERVER_URL, PG_TEMPLATE } from './postgres-cluster';

/**
 * A new, migrated database on the run's PostgreSQL cluster (postgres-cluster.ts), for one test or
 * one group of engine nodes: its URL, for POS_DATABASE_URL / EngineConfig.databaseUrl.
 */
export function freshPostgresUrl(): string {
  const server = process.env[PG_SERVER_URL];
  const template = process.env[PG_TEMPLATE];
  if (!server || !template) throw new Error('no PostgreSQL cluster for this run (test/support/postgres-cluster.ts)');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new PostgresDatabase(server);
  try {
    admin.statement(`CREATE DATABASE ${name} TEMPLATE ${template}`).run();
  } finally {
    void admin.close();
  }
  return server.replace(/\/[^/]*$/, `/${name}`);
}

/** The file in a test's data dir naming the PostgreSQL database its engines use (postgresUrlOf). */
export const DATABASE_URL_FILE = 'postgres-url';

/**
 * The database of the engines on `dataDir`: created at the first call, the same one afterwards, so
 * an engine restarted on its data dir finds its rows, and another process (the admin command line,
 * test/support/admin-cli.ts) finds the URL in the data dir as it would find the SQLite file.
 */
export function postgresUrlOf(dataDir: string): string {
  const file = path.join(dataDir, DATABASE_URL_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const url = freshPostgresUrl();
  writeFileSync(file, url, { mode: 0o600 });
  return url;
}
