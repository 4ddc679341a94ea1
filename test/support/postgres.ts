import { randomBytes } from 'node:crypto';
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
