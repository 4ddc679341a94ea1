/**
 * A server under measurement, in its own process so the load generator does not share its core.
 * `echo`: a bare node:http JSON echo (the baseline). `engine`: the engine with a fresh data dir,
 * limits raised, a demo account. `engine-devices`: the same with both issuers (the demo VeriFactu
 * company and the Gipuzkoa TicketBAI one) in phase `activa` and four tills registered in TEST, so
 * each request can take one of four device chains. `engine-backlog`: the `engine` with
 * BENCH_BACKLOG_RECORDS invoices issued while filing is paused, filing with the AEAT emulator at
 * BENCH_AEAT_URL once the bench resumes it through the panel. Prints one JSON line with what the
 * bench needs, then serves.
 *
 * BENCH_DATABASE_URL: the engine on that PostgreSQL database instead of the data dir's SQLite file
 * (one node of several: postgres.ts). BENCH_JOIN=1: a further node on a database the first node
 * seeded — nothing seeded or issued, only its URLs printed.
 */
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seedDemoAccount } from '../../engine/src/demo/account';
import { createEngine } from '../../engine/src/index';
import type { Account } from '../../engine/src/account/store';
import type { EngineContext } from '../../engine/src/context';
import type { Caller } from '../../engine/src/core/caller';
import { runningEngineConfig, UNMETERED } from '../support/running-engine-config';
import { filingThreadFromEnv, setFilingPaused } from './drain';

const BENCH_DEVICES = ['tpv-1', 'tpv-2', 'tpv-3', 'tpv-4'];

/** Phase `activa` and the four tills, through the engine's own device service (as the panel and a till would). */
function registerBenchDevices(ctx: EngineContext, account: Account, nifs: string[]): string[] {
  for (const nif of nifs) {
    ctx.devices.setPhase(account.id, nif, 'activa');
    for (const idMaquina of BENCH_DEVICES) ctx.devices.register({ account, entorno: 'test' }, nif, { idMaquina, etiqueta: `Bench ${idMaquina}` });
  }
  return BENCH_DEVICES;
}

/** `records` simplified invoices of `nif` through the issuing path in process (no HTTP), 1,000 at a time. */
async function issueBacklog(ctx: EngineContext, account: Account, nif: string, records: number): Promise<void> {
  const caller: Caller = { keyId: 'bench', entorno: 'test', account, limits: UNMETERED };
  for (let start = 0; start < records; start += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, records - start) }, (_, k) =>
        ctx.verifactu.crear(caller, {
          version: '1.0',
          emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
          cabecera: { serie: 'BL-', numero: String(start + k), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
          detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21.00', cuotaRepercutida: '2.10' }],
          totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
        }),
      ),
    );
  }
}

const mode = process.argv[2];

if (mode === 'echo') {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length ? Buffer.concat(chunks).toString('utf8') : '{}';
      const payload = JSON.stringify({ echo: JSON.parse(body || '{}'), at: new Date().toISOString() });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      res.end(payload);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
} else if (mode === 'engine' || mode === 'engine-devices' || mode === 'engine-backlog') {
  const dataDir = process.argv[3] ?? mkdtempSync(path.join(tmpdir(), 'bench-engine-'));
  // BENCH_TRACE=<file>: the per-request timeline of `npm run bench tail`, written there at SIGTERM.
  if (process.env.BENCH_TRACE) (await import('./tail-trace')).installTrace(process.env.BENCH_TRACE, path.join(dataDir, 'engine.sqlite'));
  const engine = await createEngine(
    runningEngineConfig(dataDir, {
      // BENCH_WORKER_THREADS=0: pure work (QR, signing) on the main thread, to compare in one run.
      ...(process.env.BENCH_WORKER_THREADS !== undefined ? { workerThreads: Number(process.env.BENCH_WORKER_THREADS) } : {}),
      // BENCH_FILING_THREAD=0: the submission and webhook workers on the main thread.
      ...filingThreadFromEnv(),
      // engine-backlog: TiempoEsperaEnvio 0 at the emulator, so the backlog goes back to back.
      ...(process.env.BENCH_AEAT_URL ? { submission: { aeat: { url: { test: process.env.BENCH_AEAT_URL, live: process.env.BENCH_AEAT_URL } }, parallelQueues: 4 } } : {}),
      ...(process.env.BENCH_DATABASE_URL ? { databaseUrl: process.env.BENCH_DATABASE_URL } : {}),
    }),
  );
  if (process.env.BENCH_JOIN === '1') {
    const urls = await engine.start();
    process.on('SIGTERM', () => {
      void engine.stop().then(() => process.exit(0));
    });
    process.stdout.write(`${JSON.stringify({ url: urls.billing, manageUrl: urls.manage, panelUrl: urls.panel, dataDir })}\n`);
  } else {
    const keys = seedDemoAccount(engine.context);
    // A Gipuzkoa issuer too, so TicketBAI issuing can be measured on the same engine.
    const account = engine.context.accounts.listAccounts()[0];
    if (account) {
      engine.context.issuers.create({ accountId: account.id, entorno: 'test', nif: 'A58818501', nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
    }
    const devices = mode === 'engine-devices' && account ? registerBenchDevices(engine.context, account, [keys?.nifEmisor ?? '', 'A58818501']) : [];
    // BENCH_MODO_SIF=no_verifactu: the demo VeriFactu issuer's installation in «NO VERI*FACTU» (signed records, nothing filed).
    const demoIssuer = engine.context.issuers.find('test', keys?.nifEmisor ?? '');
    if (process.env.BENCH_MODO_SIF === 'no_verifactu' && demoIssuer) engine.context.noVerifactu.modos.cambiar(demoIssuer, 'no_verifactu');
    if (mode === 'engine-backlog') setFilingPaused(engine.context.db, true);
    const urls = await engine.start();
    if (mode === 'engine-backlog' && account) {
      // A backlog waiting while filing is paused (an outage that just ended): the bench resumes it
      // through the panel. Issued once the engine runs, as a till's are: its background checkpoints
      // keep the WAL short meanwhile. Issued before the start, the whole backlog (≈ 230 MB of WAL for
      // 30 k) waited for the first checkpoint, which then ran in the measured load: two fsyncs of
      // ≈ 0.5 s that decided its p99 (test/bench/tail-trace.ts, session 10).
      await issueBacklog(engine.context, account, keys?.nifEmisor ?? '', Number(process.env.BENCH_BACKLOG_RECORDS ?? 30_000));
    }
    // Before the ready line: the bench sends SIGTERM the moment it is done with it.
    process.on('SIGTERM', () => {
      void engine.stop().then(() => process.exit(0));
    });
    process.stdout.write(
      `${JSON.stringify({ url: urls.billing, manageUrl: urls.manage, panelUrl: urls.panel, panelToken: engine.panelToken, key: keys?.test, nif: keys?.nifEmisor, dataDir, devices })}\n`,
    );
  }
} else {
  process.stderr.write('usage: server-process.ts echo|engine|engine-devices|engine-backlog [dataDir]\n');
  process.exit(2);
}
