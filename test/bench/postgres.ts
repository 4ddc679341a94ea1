/**
 * Issue 27 part 5: the engine on PostgreSQL beside SQLite in the same run — VeriFactu `crear` on a
 * single chain and on four devices' chains, TicketBAI `crear`, and a backlog drain, on SQLite (one
 * process, as a till runs it) and on one throwaway PostgreSQL cluster with 1, 2 and 3 engine
 * processes (nodes) sharing one database, requests spread over them round-robin. Every figure
 * carries the CPU each process used while it was measured: each node, the PostgreSQL server (its
 * backends and its background processes) and, for the drain, the AEAT emulator. On this 2-core
 * machine PostgreSQL, the nodes, the load generator and the emulator share the cores.
 *
 * Goals (docs/benchmarks.md): one node on PostgreSQL ≥ 0.5 of SQLite's `crear` req/s and drain
 * rate; p99 at 50 req/s ≤ 3× SQLite's.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { PostgresDatabase } from '../../engine/src/db/postgres';
import { startCluster, type Cluster } from '../support/postgres-cluster';
import { processCpuMs, startEmulatorProcess } from './drain';
import { facturaBody, load, ratio, startServer, ticketbaiBody, type LoadResult, type ServerHandle } from './harness';

type Regime = 'verifactu' | 'ticketbai';
type Workload = { name: string; regime: Regime; mode: 'engine' | 'engine-devices' };

const WORKLOADS: Workload[] = [
  { name: 'verifactuSingleChain', regime: 'verifactu', mode: 'engine' },
  { name: 'verifactuFourDevices', regime: 'verifactu', mode: 'engine-devices' },
  { name: 'ticketbaiSingleChain', regime: 'ticketbai', mode: 'engine' },
];

/** Cores each process used over a measured stretch (CPU ms / wall ms, from /proc). */
interface CoresUsed {
  nodes: number[];
  postgresBackends?: number;
  postgresBackground?: number;
  emulator?: number;
}

interface CpuSnapshot {
  at: number;
  nodes: (number | undefined)[];
  postgres: Map<number, { backend: boolean; ms: number }>;
  emulator?: number | undefined;
}

/** The PostgreSQL server's processes: the postmaster and its children, each with its CPU ms and whether it serves a client. */
function postgresProcesses(cluster: Cluster | undefined): Map<number, { backend: boolean; ms: number }> {
  const found = new Map<number, { backend: boolean; ms: number }>();
  if (!cluster) return found;
  const postmaster = Number(readFileSync(path.join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pid !== postmaster && Number(fields[1]) !== postmaster) continue;
      // A backend's title names its user and database: "postgres: postgres bench_3 127.0.0.1(…) idle".
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\u0000', ' ');
      found.set(pid, { backend: /postgres: \S+ \S+ [\d.]+\(/.test(title), ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {
      // Exited meanwhile.
    }
  }
  return found;
}

function snapshot(nodes: readonly ServerHandle[], cluster: Cluster | undefined, emulatorCpu?: () => number | undefined): CpuSnapshot {
  return {
    at: performance.now(),
    nodes: nodes.map((n) => (n.pid === undefined ? undefined : processCpuMs(n.pid))),
    postgres: postgresProcesses(cluster),
    emulator: emulatorCpu?.(),
  };
}

function coresBetween(a: CpuSnapshot, b: CpuSnapshot, cluster: Cluster | undefined): CoresUsed {
  const wall = b.at - a.at;
  const cores = (ms: number) => Math.round((ms / wall) * 100) / 100;
  const used: CoresUsed = { nodes: b.nodes.map((ms, i) => cores((ms ?? 0) - (a.nodes[i] ?? 0))) };
  if (cluster) {
    let backends = 0;
    let background = 0;
    for (const [pid, after] of b.postgres) {
      const delta = after.ms - (a.postgres.get(pid)?.ms ?? 0);
      if (after.backend) backends += delta;
      else background += delta;
    }
    used.postgresBackends = cores(backends);
    used.postgresBackground = cores(background);
  }
  if (a.emulator !== undefined && b.emulator !== undefined) used.emulator = cores(b.emulator - a.emulator);
  return used;
}

/** The throwaway cluster and a migrated template each measurement's database is copied from. */
async function benchCluster() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-pg-'));
  // startCluster opens the folders from the temporary folder down to the cluster's to its
  // unprivileged user: the bench's own folder, never the machine's /tmp.
  const machineTmp = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  // pg_stat_statements: the statements each `crear` sends, counted by the server (statementsPerCrear;
  // top-level only: a foreign-key check inside a statement is no round trip).
  const cluster = await startCluster(path.join(dir, 'cluster'), ['shared_preload_libraries=pg_stat_statements']).finally(() => {
    if (machineTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = machineTmp;
  });
  const admin = new PostgresDatabase(cluster.url('postgres'));
  admin.statement('CREATE EXTENSION pg_stat_statements').run();
  admin.statement('CREATE DATABASE bench_template').run();
  const template = new PostgresDatabase(cluster.url('bench_template'));
  await template.migrate();
  await template.close();
  let made = 0;
  return {
    cluster,
    freshUrl: () => {
      const name = `bench_${++made}`;
      admin.statement(`CREATE DATABASE ${name} TEMPLATE bench_template`).run();
      return cluster.url(name);
    },
    /** From now on, the server's statement counts start again at zero. */
    resetStatements: () => void admin.statement('SELECT pg_stat_statements_reset()').all(),
    /** The statements run on `databaseUrl` since the reset, per invoice made there meanwhile (`invoices`: how many). */
    statementsPer: (databaseUrl: string, invoices: number) => {
      const name = new URL(databaseUrl).pathname.slice(1);
      const rows = admin
        .statement<{ query: string; calls: number; ms: number }>(
          `SELECT query, calls, total_exec_time AS ms FROM pg_stat_statements
           WHERE dbid = (SELECT oid FROM pg_database WHERE datname = ?) ORDER BY calls DESC`,
        )
        .all(name);
      const per = (n: number) => Math.round((n / Math.max(invoices, 1)) * 100) / 100;
      return {
        invoices,
        statements: per(rows.reduce((sum, r) => sum + r.calls, 0)),
        serverMs: per(rows.reduce((sum, r) => sum + r.ms, 0)),
        top: rows.slice(0, 14).map((r) => ({ perCrear: per(r.calls), serverMsPerCrear: Math.round(per(r.ms * 1000)) / 1000, query: r.query.replace(/\s+/g, ' ').slice(0, 90) })),
      };
    },
    stop: async () => {
      await admin.close();
      cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `nodes` engine processes on `databaseUrl` (none: one process on its own SQLite file); the first seeds. */
async function startNodes(mode: Workload['mode'] | 'engine-backlog', nodes: number, databaseUrl: string | undefined, env: Record<string, string> = {}) {
  const started: ServerHandle[] = [];
  try {
    started.push(await startServer(mode, [], { ...env, ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}) }));
    for (let i = 1; i < nodes; i++) started.push(await startServer('engine', [], { ...env, BENCH_DATABASE_URL: databaseUrl ?? '', BENCH_JOIN: '1' }));
  } catch (error) {
    for (const node of started) await node.stop();
    throw error;
  }
  return started;
}

interface CrearOnNodes {
  nodes: number;
  saturated: LoadResult & { cores: CoresUsed };
  at50: LoadResult & { cores: CoresUsed };
  /** PostgreSQL: what the saturated load's invoices cost the server, per invoice (pg_stat_statements). */
  statementsPerCrear?: ReturnType<BenchCluster['statementsPer']>;
}

type BenchCluster = Awaited<ReturnType<typeof benchCluster>>;

function invoiceCount(databaseUrl: string): number {
  const db = new PostgresDatabase(databaseUrl);
  try {
    return db.statement<{ n: number }>('SELECT count(*) AS n FROM invoices').get()?.n ?? 0;
  } finally {
    void db.close();
  }
}

const SECONDS = Number(process.env.BENCH_PG_SECONDS ?? 5);

async function crearOnNodes(workload: Workload, nodes: number, databaseUrl: string | undefined, pg: BenchCluster | undefined): Promise<CrearOnNodes> {
  const cluster = databaseUrl ? pg?.cluster : undefined;
  const servers = await startNodes(workload.mode, nodes, databaseUrl);
  try {
    const { info } = servers[0]!;
    const devices = info.devices ?? [];
    const body = (run: string) => (workload.regime === 'verifactu' ? facturaBody(info.nif ?? '', run, devices) : ticketbaiBody(run, devices));
    const target = {
      url: `${info.url}/v1/${workload.regime}/crear`,
      urls: servers.map((s) => `${s.info.url}/v1/${workload.regime}/crear`),
      method: 'POST' as const,
      headers: { 'x-api-key': info.key ?? '' },
      seconds: SECONDS,
      // autocannon spreads its connections over the nodes: a multiple of their number.
      connections: nodes === 3 ? 51 : 50,
    };
    const measured = async (options: Parameters<typeof load>[0]) => {
      const before = snapshot(servers, cluster);
      const result = await load(options);
      return { ...result, cores: coresBetween(before, snapshot(servers, cluster), cluster) };
    };
    const before = databaseUrl && pg ? (pg.resetStatements(), invoiceCount(databaseUrl)) : 0;
    const saturated = await measured({ ...target, body: body('s') });
    const statementsPerCrear = databaseUrl && pg ? pg.statementsPer(databaseUrl, invoiceCount(databaseUrl) - before) : undefined;
    const at50 = await measured({ ...target, body: body('r50'), rate: 50, connections: 10 });
    return { nodes, saturated, at50, ...(statementsPerCrear ? { statementsPerCrear } : {}) };
  } finally {
    for (const server of servers) await server.stop();
  }
}

interface DrainOnNodes {
  nodes: number;
  records: number;
  drainRecordsPerSecond: number;
  /** The emulator's ledger at the end: every record filed once. */
  filedInLedger: number;
  cores: CoresUsed;
}

/**
 * A backlog issued by the first node while filing is paused, then filing resumed (through the
 * panel) with every node's workers running, timed until no job is left.
 */
async function drainOnNodes(nodes: number, records: number, databaseUrl: string | undefined, cluster: Cluster | undefined): Promise<DrainOnNodes> {
  const emulatorDir = mkdtempSync(path.join(tmpdir(), 'bench-pg-emu-'));
  const emulators = await startEmulatorProcess(emulatorDir);
  let servers: ServerHandle[] = [];
  try {
    servers = await startNodes('engine-backlog', nodes, databaseUrl, { BENCH_AEAT_URL: emulators.aeatUrl, BENCH_BACKLOG_RECORDS: String(records) });
    const { info } = servers[0]!;
    const anyLeft = jobsLeftProbe(databaseUrl, info.dataDir ?? '');
    try {
      const before = snapshot(servers, cluster, emulators.cpuMs);
      const resumed = await fetch(`${info.panelUrl}/panel/v1/sync/pausa`, {
        method: 'POST',
        headers: { authorization: `Bearer ${info.panelToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ entorno: 'test', pausado: false }),
      });
      if (resumed.status !== 200) throw new Error(`resume answered ${resumed.status}`);
      while (anyLeft.left()) await new Promise((r) => setTimeout(r, 50));
      const after = snapshot(servers, cluster, emulators.cpuMs);
      return {
        nodes,
        records,
        drainRecordsPerSecond: Math.round((records * 1000) / (after.at - before.at)),
        filedInLedger: await emulators.countRecords(),
        cores: coresBetween(before, after, cluster),
      };
    } finally {
      await anyLeft.close();
    }
  } finally {
    for (const server of servers) await server.stop();
    await emulators.close();
    rmSync(emulatorDir, { recursive: true, force: true });
  }
}

/** Whether any filing job is left: one indexed row read, on the node's database. */
function jobsLeftProbe(databaseUrl: string | undefined, dataDir: string): { left(): boolean; close(): Promise<void> } {
  if (databaseUrl) {
    const db = new PostgresDatabase(databaseUrl);
    const first = db.statement('SELECT 1 AS one FROM submission_jobs LIMIT 1');
    return { left: () => first.get() !== undefined, close: () => db.close() };
  }
  const db = new BetterSqlite3(path.join(dataDir, 'engine.sqlite'), { readonly: true });
  const first = db.prepare('SELECT 1 FROM submission_jobs LIMIT 1').pluck();
  return {
    left: () => first.get() !== undefined,
    close: async () => {
      db.close();
    },
  };
}

const NODE_COUNTS = (process.env.BENCH_PG_NODES ?? '1,2,3').split(',').map(Number);
/** BENCH_PG_ONLY=verifactuSingleChain,drain…: some of the figures (a quicker look while working). */
const ONLY = process.env.BENCH_PG_ONLY?.split(',');
const wanted = (name: string) => ONLY === undefined || ONLY.includes(name);

export async function benchPostgres() {
  const pg = await benchCluster();
  try {
    const crear: Record<string, unknown> = {};
    for (const workload of WORKLOADS.filter((w) => wanted(w.name))) {
      // SQLite, then each node count on a database of its own, back to back: the machine's drift
      // falls on all of them alike.
      const sqlite = await crearOnNodes(workload, 1, undefined, undefined);
      const postgres: CrearOnNodes[] = [];
      for (const nodes of NODE_COUNTS) postgres.push(await crearOnNodes(workload, nodes, pg.freshUrl(), pg));
      const one = postgres.find((p) => p.nodes === 1);
      crear[workload.name] = {
        sqlite,
        postgres,
        ...(one
          ? {
              oneNodeToSqlite: {
                saturated: ratio(one.saturated.requestsPerSecond, sqlite.saturated.requestsPerSecond),
                p99At50: ratio(one.at50.p99Ms, Math.max(sqlite.at50.p99Ms, 1)),
              },
            }
          : {}),
      };
      process.stderr.write(`bench postgres ${workload.name}: ${JSON.stringify(crear[workload.name])}\n`);
    }
    if (!wanted('drain')) return { crear };
    const records = Number(process.env.BENCH_PG_DRAIN_RECORDS ?? 10_000);
    const sqliteDrain = await drainOnNodes(1, records, undefined, undefined);
    const postgresDrain: DrainOnNodes[] = [];
    for (const nodes of NODE_COUNTS) postgresDrain.push(await drainOnNodes(nodes, records, pg.freshUrl(), pg.cluster));
    const oneDrain = postgresDrain.find((p) => p.nodes === 1);
    return {
      crear,
      drain: {
        sqlite: sqliteDrain,
        postgres: postgresDrain,
        ...(oneDrain ? { oneNodeToSqlite: ratio(oneDrain.drainRecordsPerSecond, sqliteDrain.drainRecordsPerSecond) } : {}),
      },
      goal: 'oneNodeToSqlite.saturated >= 0.5 and drain.oneNodeToSqlite >= 0.5; oneNodeToSqlite.p99At50 <= 3',
    };
  } finally {
    await pg.stop();
  }
}
