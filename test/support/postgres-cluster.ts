/**
 * vitest globalSetup, after run-tmpdir.ts: one throwaway PostgreSQL cluster for the run — initdb
 * and pg_ctl on a free loopback port in the run's temporary folder, as an unprivileged user when
 * the tests run as root (PostgreSQL refuses root) — with one template database migrated by the
 * engine itself, which each test's database is created from (`freshPostgresUrl` in postgres.ts).
 * Stopped and removed when the run ends. Debian's `postgresql` package provides the binaries
 * (`.ci/run` installs it); they are looked for on PATH and in /usr/lib/postgresql/<version>/bin.
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PostgresDatabase } from '../../engine/src/db/postgres';

/** The environment variables through which tests (and the engines they spawn) find the cluster. */
export const PG_SERVER_URL = 'VITEST_PG_SERVER_URL';
export const PG_TEMPLATE = 'VITEST_PG_TEMPLATE';
const TEMPLATE = 'engine_template';
const NOBODY = 65534;

export function postgresBinary(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    for (const version of readdirSync(debian).sort().reverse()) {
      const candidate = path.join(debian, version, 'bin', name);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new Error(`PostgreSQL's ${name} was not found (Debian: apt-get install postgresql)`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Cluster {
  url(database: string): string;
  port: number;
  dataDir: string;
  /** `pg_ctl restart -m immediate`: the server dies without a checkpoint and comes back (crash recovery). */
  restartImmediate(): void;
  stop(): void;
}

/**
 * Starts a cluster in `dir` (created), owned by an unprivileged user when this process is root;
 * `settings`: more server settings (`name=value`), e.g. the bench's pg_stat_statements.
 */
export async function startCluster(dir: string, settings: readonly string[] = []): Promise<Cluster> {
  const asRoot = process.getuid?.() === 0;
  mkdirSync(dir, { recursive: true });
  const run: ExecFileSyncOptions = { stdio: 'pipe', ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) };
  if (asRoot) {
    // The user needs to reach its folder through the run's folders (traverse only).
    for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
      if (d.startsWith(tmpdir()) || d === tmpdir()) chmodSync(d, 0o711);
    }
    chownSync(dir, NOBODY, NOBODY);
  }
  const dataDir = path.join(dir, 'data');
  execFileSync(postgresBinary('initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync'], run);
  const port = await freePort();
  // Loopback only, no Unix socket outside the folder; fsync stays on (durability is what is tested).
  const options = [`-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=200 -c shared_buffers=64MB`, ...settings.map((s) => `-c ${s}`)].join(' ');
  const ctl = (...args: string[]) => execFileSync(postgresBinary('pg_ctl'), ['-D', dataDir, '-o', options, '-l', path.join(dir, 'log'), '-w', ...args], run);
  ctl('start');
  return {
    port,
    dataDir,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    restartImmediate: () => ctl('restart', '-m', 'immediate'),
    stop: () => {
      try {
        ctl('stop', '-m', 'immediate');
      } catch {
        // already stopped
      }
    },
  };
}

export default async function setup(): Promise<() => void> {
  // The root config and each project (test.projects) run the global setups: the first one wins.
  if (process.env[PG_SERVER_URL] !== undefined) return () => {};
  const cluster = await startCluster(path.join(tmpdir(), 'postgres'));
  const admin = new PostgresDatabase(cluster.url('postgres'));
  admin.statement(`CREATE DATABASE ${TEMPLATE}`).run();
  await admin.close();
  const template = new PostgresDatabase(cluster.url(TEMPLATE));
  await template.migrate();
  await template.close();
  process.env[PG_SERVER_URL] = cluster.url('postgres');
  process.env[PG_TEMPLATE] = TEMPLATE;
  return () => {
    delete process.env[PG_SERVER_URL];
    delete process.env[PG_TEMPLATE];
    cluster.stop();
  };
}
