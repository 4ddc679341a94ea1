/**
 * Issue 16 part 4: VeriFactu `crear` at 250 req/s (paced) while a backlog drains to the AEAT
 * emulator (its own process, TiempoEsperaEnvio 0), with the filing workers on the filing thread
 * and, in the same run, on the main thread (BENCH_FILING_THREAD=0): the latency issuing requests
 * pay for the filing work beside them, and how many records were filed meanwhile.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startEmulatorProcess } from './drain';
import { load, startServer, type LoadResult } from './harness';

export interface WhileDraining {
  filingThread: boolean;
  backlog: number;
  at250: LoadResult;
  /** Records the emulator registered from the resume to the end of the measured load. */
  filedDuringLoad: number;
  /** Jobs still waiting at the end: > 0 means the backlog drained during the whole measurement. */
  jobsLeftAtEnd: number;
  /** Records filed per second during the measured load (its 5 s; the warm-up second excluded). */
  drainPerSecondDuringLoad: number;
  /** Records filed per second once the load ended, until the backlog was gone (or 60 s). */
  drainPerSecondAfterLoad: number;
}

function body(nif: string) {
  return (i: number) =>
    JSON.stringify({
      version: '1.0',
      emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
      cabecera: { serie: 'WD-', numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
      detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21.00', cuotaRepercutida: '2.10' }],
      totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
    });
}

async function once(filingThread: boolean, backlog: number): Promise<WhileDraining> {
  const emulators = await startEmulatorProcess(mkdtempSync(path.join(tmpdir(), 'bench-wd-emu-')));
  let engine: Awaited<ReturnType<typeof startServer>>;
  try {
    engine = await startServer('engine-backlog', [], {
      BENCH_AEAT_URL: emulators.aeatUrl,
      BENCH_FILING_THREAD: filingThread ? '1' : '0',
      BENCH_BACKLOG_RECORDS: String(backlog),
    });
  } catch (error) {
    // The emulator is a process of its own: not left running when the engine fails to start.
    await emulators.close();
    throw error;
  }
  try {
    const { info } = engine;
    const filedBefore = await emulators.countRecords();
    // The warm-up second is load too: the drain rate during the load counts the measured 5 s.
    let filedAtMeasureStart = filedBefore;
    const warmup = setTimeout(() => void emulators.countRecords().then((n) => (filedAtMeasureStart = n)), 1000);
    const resumed = await fetch(`${info.panelUrl}/panel/v1/sync/pausa`, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.panelToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ entorno: 'test', pausado: false }),
    });
    if (resumed.status !== 200) throw new Error(`resume answered ${resumed.status}`);
    const at250 = await load({ url: `${info.url}/v1/verifactu/crear`, method: 'POST', headers: { 'x-api-key': info.key ?? '' }, body: body(info.nif ?? ''), rate: 250, connections: 10 });
    clearTimeout(warmup);
    const loadEnded = performance.now();
    const filedAtLoadEnd = await emulators.countRecords();
    const filedDuringLoad = filedAtLoadEnd - filedBefore;
    const db = new BetterSqlite3(path.join(info.dataDir ?? '', 'engine.sqlite'), { readonly: true });
    const jobsLeft = () => (db.prepare('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number }).n;
    const jobsLeftAtEnd = jobsLeft();
    while (jobsLeft() > 0 && performance.now() - loadEnded < 60_000) await new Promise((resolve) => setTimeout(resolve, 100));
    const filedAfterLoad = (await emulators.countRecords()) - filedAtLoadEnd;
    const afterSeconds = (performance.now() - loadEnded) / 1000;
    db.close();
    return {
      filingThread,
      backlog,
      at250,
      filedDuringLoad,
      jobsLeftAtEnd,
      drainPerSecondDuringLoad: Math.round((filedAtLoadEnd - filedAtMeasureStart) / 5),
      drainPerSecondAfterLoad: Math.round(filedAfterLoad / afterSeconds),
    };
  } finally {
    await engine.stop();
    await emulators.close();
  }
}

/**
 * Both modes (or `modes`), alternated `rounds` times in one run (the machine's noise falls on
 * both alike).
 */
export async function benchCrearWhileDraining(
  backlog = Number(process.env.BENCH_BACKLOG_RECORDS ?? 30_000),
  rounds = 2,
  modes: readonly boolean[] = [false, true],
): Promise<WhileDraining[]> {
  const out: WhileDraining[] = [];
  for (let r = 0; r < rounds; r++) for (const filingThread of modes) out.push(await once(filingThread, backlog));
  return out;
}
