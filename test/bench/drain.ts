/**
 * Drain rate of a backlog through the AEAT emulator (TiempoEsperaEnvio 0), beside raw
 * better-sqlite3 update throughput measured in the same run. The backlog is issued through the
 * real issuing path in process (no HTTP) while filing is paused (as the panel pauses it), then
 * filing resumes: on the filing thread, or with BENCH_FILING_THREAD=0 on the main thread.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import BetterSqlite3 from 'better-sqlite3';
import { seedDemoAccount } from '../../engine/src/demo/account';
import { FILING_THREAD_NICENESS } from '../../engine/src/filing/thread-priority';
import { createEngine } from '../../engine/src/index';
import type { Caller } from '../../engine/src/core/caller';
import { runningEngineConfig, UNMETERED } from '../support/running-engine-config';
import { sqliteOf } from '../support/sqlite-of';
import type { Database } from '../../engine/src/db/database';

/** Raw SQLite: UPDATE one row by primary key, 1000 per transaction, synchronous=FULL. */
function rawUpdateRate(rows: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'raw-'));
  const db = new BetterSqlite3(path.join(dir, 'raw.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, estado TEXT NOT NULL, n INTEGER NOT NULL) STRICT');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?, 0)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(`r${i}`, 'pendiente');
  })();
  const update = db.prepare('UPDATE t SET estado = ?, n = n + 1 WHERE id = ?');
  const t0 = performance.now();
  for (let start = 0; start < rows; start += 1000) {
    db.transaction(() => {
      for (let i = start; i < Math.min(rows, start + 1000); i++) update.run('aceptada', `r${i}`);
    })();
  }
  const ms = performance.now() - t0;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return Math.round((rows * 1000) / ms);
}

/** utime + stime of a process (all its threads) in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** CPU ms of each thread of this process (utime + stime, /proc/self/task), keyed by `tid name`; empty elsewhere. */
function threadCpuMs(): Map<string, number> {
  const threads = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid === String(process.pid) ? `${tid} main` : `${tid} ${name}`, (Number(fields[11]) + Number(fields[12])) * 10);
    }
  } catch {
    // Not Linux: the per-thread split is left out.
  }
  return threads;
}

/**
 * How the emulator's process is started: `nice` (every thread of it, the XSD workers too) by as
 * many steps as the engine's filing thread, where `nice` exists. The authority is another machine:
 * here its CPU is the bench's artefact, and at nice 0 it outweighed the filing thread (nice 10)
 * about ten to one whenever both wanted one core, which a till filing to AEAT never sees. At equal
 * weight, 30 k drains, alternating in one run: 1.56 → 1.66 cores used, median 3,835 → 4,244 /s
 * (docs/benchmarks.md, eighth round).
 */
export function emulatorCommand(serveScript: string, platform = process.platform): { command: string; args: string[] } {
  const node = [process.execPath, '--import', 'tsx', serveScript];
  if (platform === 'win32') return { command: node[0]!, args: node.slice(1) };
  return { command: 'nice', args: ['-n', String(FILING_THREAD_NICENESS), ...node] };
}

/** The authority is another machine: the emulator runs in its own process, as `npm run emulators`. */
export async function startEmulatorProcess(dataDir: string) {
  const root = path.resolve(import.meta.dirname, '../..');
  const { command, args } = emulatorCommand(path.join(root, 'engine/emulators/bin/serve.ts'));
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, POS_EMULATOR_PORT: '0', POS_EMULATOR_WAIT_S: '0', POS_EMULATOR_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulators exited ${code}`)));
  });
  const aeatUrl = first.slice(first.indexOf('http'));
  const pid = child.pid;
  const url = new URL(aeatUrl).origin;
  return {
    aeatUrl,
    pid,
    addTaxpayer: (t: { nif: string; nombre: string; estado: 'alta' }) =>
      fetch(`${url}/__control/census`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(t) }),
    /** CPU milliseconds the emulator process has used (every thread), from /proc; undefined elsewhere. */
    cpuMs: () => (pid === undefined ? undefined : processCpuMs(pid)),
    countRecords: async () => ((await (await fetch(`${url}/__control/ledger/summary`)).json()) as { records: number }).records,
    close: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/**
 * BENCH_DRAIN_CPU_PROF=<file>: a CPU profile of the main thread during the drain only (issuing the
 * backlog left out), for `BENCH_FILING_THREAD=0`, where the workers run on that thread.
 */
async function profileDrain(file: string | undefined) {
  if (!file) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** BENCH_FILING_THREAD=0: the filing workers on the main thread, to compare in one run. */
export function filingThreadFromEnv(env: NodeJS.ProcessEnv = process.env): { filingThread?: boolean } {
  const raw = env.BENCH_FILING_THREAD;
  return raw === undefined ? {} : { filingThread: raw !== '0' };
}

/** Pauses or resumes filing in TEST, as the panel's sync view does (the worker skips paused queues). */
export function setFilingPaused(db: Database, pausado: boolean): void {
  db.statement('INSERT INTO submission_control (entorno, pausado) VALUES (?, ?) ON CONFLICT (entorno) DO UPDATE SET pausado = excluded.pausado').run(
    'test',
    pausado ? 1 : 0,
  );
}

/**
 * How long the filing workers hold SQLite's write lock: every outermost Database.transaction of
 * the drain (building a submission, marking a send, applying an answer) timed from BEGIN IMMEDIATE
 * to COMMIT. Measured with the workers on the main thread, where they can be wrapped; on the
 * filing thread the same code runs the same transactions. Issuing's group commits do not go
 * through Database.transaction, and no issuing runs during the drain.
 */
function timeWriteTransactions(db: Database) {
  const durations: number[] = [];
  const original = db.transaction.bind(db);
  db.transaction = <T>(fn: () => T): T => {
    if (sqliteOf(db).inTransaction) return original(fn);
    const t0 = performance.now();
    try {
      return original(fn);
    } finally {
      durations.push(performance.now() - t0);
    }
  };
  return {
    summary: () => {
      const sorted = [...durations].sort((a, b) => a - b);
      const at = (p: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0) * 10) / 10;
      return { count: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1), over10Ms: sorted.filter((d) => d > 10).length };
    },
  };
}

export async function benchDrain(records = Number(process.env.BENCH_DRAIN_RECORDS ?? 100_000), issuers = 1, options: { filingThread?: boolean } = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-drain-'));
  const emulators = await startEmulatorProcess(path.join(dataDir, 'emu'));
  let engine: Awaited<ReturnType<typeof createEngine>> | undefined;
  let measured;
  try {
    const aeatUrl = emulators.aeatUrl;
    engine = await createEngine(
      runningEngineConfig(dataDir, {
        submission: { aeat: { url: { test: aeatUrl, live: aeatUrl } }, parallelQueues: 4 },
        ...filingThreadFromEnv(),
        ...options,
      }),
    );
    const ctx = engine.context;
    setFilingPaused(ctx.db, true);
    await engine.start();
    seedDemoAccount(ctx);
    const account = ctx.accounts.listAccounts()[0]!;
    const nifs = ['B12345674', 'A58818501', 'B87654323', 'B00000034'].slice(0, issuers);
    for (const nif of nifs.slice(1)) {
      ctx.issuers.create({ accountId: account.id, entorno: 'test', nif, nombre: `EMISOR ${nif}`, hacienda: 'verifactu' });
      await emulators.addTaxpayer({ nif, nombre: `EMISOR ${nif}`, estado: 'alta' });
    }
    const caller: Caller = { keyId: 'bench', entorno: 'test', account, limits: UNMETERED };
    const t0 = performance.now();
    for (let start = 0; start < records; start += 1000) {
      await Promise.all(
        Array.from({ length: Math.min(1000, records - start) }, (_, k) => {
          const i = start + k;
          const nif = nifs[i % nifs.length]!;
          return ctx.verifactu.crear(caller, {
            version: '1.0',
            emisor: { nif, nombre: 'EMISOR' },
            cabecera: { serie: 'B', numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
            detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21.00', cuotaRepercutida: '2.10' }],
            totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
          });
        }),
      );
    }
    const issueMs = performance.now() - t0;
    // CPU per 1,000 records on each side tells which one bounds the drain, whatever the neighbours do.
    const engineCpu0 = process.cpuUsage();
    const threadCpu0 = threadCpuMs();
    const emulatorCpu0 = emulators.cpuMs();
    const holds = options.filingThread === false ? timeWriteTransactions(ctx.db) : undefined;
    const stopProfile = await profileDrain(process.env.BENCH_DRAIN_CPU_PROF);
    const elu0 = performance.eventLoopUtilization();
    const t1 = performance.now();
    // Whether any job is left, not how many: a COUNT(*) reads the whole queue, and on the main
    // connection, whose page cache every filing-thread commit invalidates, that was ≈ 7 CPU-ms per
    // 1,000 records charged to the engine (CPU profile of the main thread during the drain).
    const anyLeft = sqliteOf(ctx.db).prepare('SELECT 1 FROM submission_jobs LIMIT 1').pluck();
    setFilingPaused(ctx.db, false);
    ctx.filing.wakeSubmissions();
    while (anyLeft.get() !== undefined) await new Promise((r) => setTimeout(r, 50));
    const drainMs = performance.now() - t1;
    const engineCpu = process.cpuUsage(engineCpu0);
    const threadCpu = [...threadCpuMs()].map(([thread, ms]) => [thread, ms - (threadCpu0.get(thread) ?? 0)] as const).filter(([, ms]) => ms > 0);
    await stopProfile();
    const mainThreadBusy = performance.eventLoopUtilization(elu0).utilization;
    const emulatorCpu1 = emulators.cpuMs();
    const perThousand = (ms: number) => Math.round((ms * 1000) / records);
    const filed = await emulators.countRecords();
    measured = {
      records,
      issuers,
      filingThread: ctx.config.filingThread,
      filedInLedger: filed,
      issuedInProcessPerSecond: Math.round((records * 1000) / issueMs),
      drainRecordsPerSecond: Math.round((records * 1000) / drainMs),
      /** CPU ms per 1,000 records filed: the engine process (main thread and helpers) and the AEAT emulator process. */
      engineCpuMsPer1000: perThousand((engineCpu.user + engineCpu.system) / 1000),
      /** Share of the drain the engine's event loop was busy (the bench's 50 ms polls included): what issuing requests would have waited behind. */
      mainThreadEventLoopUtilization: Math.round(mainThreadBusy * 1000) / 1000,
      /** CPU ms per 1,000 records of each engine thread that used any (main, filing thread, libuv pool, V8 helpers). */
      engineThreadCpuMsPer1000: Object.fromEntries(threadCpu.sort((a, b) => b[1] - a[1]).map(([thread, ms]) => [thread, perThousand(ms)])),
      ...(holds ? { writeTransactions: holds.summary() } : {}),
      ...(emulatorCpu0 !== undefined && emulatorCpu1 !== undefined ? { emulatorCpuMsPer1000: perThousand(emulatorCpu1 - emulatorCpu0) } : {}),
    };
  } finally {
    // Neither process is left running when a drain fails.
    await engine?.stop();
    await emulators.close();
    // A 100 k backlog leaves ≈ 1 GB of databases behind.
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { ...measured, rawSqliteUpdatesPerSecond: rawUpdateRate(records) };
}
