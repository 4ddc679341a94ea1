/**
 * The AEAT emulator's own CPU per 1,000 records filed: distinct chained 1,000-record submissions,
 * built by the engine's record and envelope builders (the bytes the drain sends), posted one after
 * another (as the drain does for one obligado) to the emulator in its own process, as `npm run
 * emulators` starts it. CPU is read from /proc: the whole process and its main thread apart.
 *
 * Run: npx tsx test/bench/aeat-emulator.ts
 * A/B in one run: BENCH_EMULATOR_BASE=<folder holding another engine/emulators tree inside this
 * checkout> alternates that tree and this one, round by round (e.g. `git archive <rev>
 * engine/emulators | tar -x -C .ab/base`). BENCH_EMULATOR_ROUNDS (3), BENCH_EMULATOR_BATCHES (10),
 * BENCH_EMULATOR_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the emulator).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { buildRegistroAlta, type RegistroAnterior } from '../../engine/src/regimes/verifactu/record/registro';
import { buildRegFactuSoapEnvelope } from '../../engine/src/regimes/verifactu/authority/soap';
import { aFacturaF2, aSistemaInformatico } from '../fixtures/verifactu';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OBLIGADO = { nif: 'B12345674', nombreRazon: 'COMERCIAL DEMO SL' };

/** `count` submissions of 1,000 records, one chain across them, generated an hour ago (never in the future). */
export function buildSubmissions(count: number, now = new Date()): string[] {
  const sistema = aSistemaInformatico();
  const madridDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Madrid', day: '2-digit', month: '2-digit', year: 'numeric' })
    .format(now)
    .replace(/\//g, '-');
  const start = now.getTime() - 3600_000;
  let anterior: RegistroAnterior | null = null;
  const out: string[] = [];
  for (let s = 0; s < count; s++) {
    const registros: string[] = [];
    for (let k = 0; k < 1000; k++) {
      const i = s * 1000 + k;
      const factura = aFacturaF2({ emisor: { nif: OBLIGADO.nif, nombre: OBLIGADO.nombreRazon }, cabecera: { serie: 'B', numero: String(i), fechaExpedicion: madridDay } });
      const r = buildRegistroAlta({ factura, anterior, generadoEn: new Date(start + i), sistema });
      anterior = { idEmisorFactura: OBLIGADO.nif, numSerieFactura: r.numSerieFactura, fechaExpedicionFactura: madridDay, huella: r.huella };
      registros.push(r.xml);
    }
    out.push(buildRegFactuSoapEnvelope({ obligado: OBLIGADO, registros }));
  }
  return out;
}

/** utime + stime in ms from a /proc stat line (clock ticks of 10 ms). */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function cpu(pid: number): { processMs: number; mainThreadMs: number } {
  const processMs = statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const mainThreadMs = statCpuMs(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
  return { processMs, mainThreadMs };
}

/** CPU of every thread but the main one, by thread name (the XSD workers, libuv's pool, V8's helpers). */
function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = process.env.BENCH_EMULATOR_BY_TID ? tid : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out[name] = (out[name] ?? 0) + statCpuMs(stat);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

async function startEmulator(emulatorsDir: string, extraArgs: string[]) {
  const child = spawn(process.execPath, [...extraArgs, '--import', 'tsx', path.join(emulatorsDir, 'bin/serve.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      POS_EMULATOR_PORT: '0',
      POS_EMULATOR_WAIT_S: '0',
      POS_EMULATOR_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'bench-aeat-emu-')),
      POS_REFERENCE_DIR: path.join(ROOT, 'assets/reference'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulators exited ${code}`)));
  });
  const url = first.slice(first.indexOf('http'));
  return {
    url,
    pid: child.pid!,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function post(url: string, xml: string): Promise<void> {
  const r = await fetch(url, { method: 'POST', body: xml, headers: { 'content-type': 'text/xml; charset=utf-8' } });
  const text = await r.text();
  if (r.status !== 200 || !text.includes('<tikR:EstadoEnvio>Correcto</tikR:EstadoEnvio>')) {
    throw new Error(`emulator answered ${r.status}: ${text.slice(0, 400)}`);
  }
}

export interface EmulatorRun {
  emulatorCpuMsPer1000: number;
  mainThreadCpuMsPer1000: number;
  otherThreadsCpuMsPer1000: Record<string, number>;
  wallMsPer1000: number;
  /** Median of the measured requests' XSD validation, handed to the worker to its verdict (the ledger's validate_ms). */
  xsdMsMedian: number | null;
}

/** validate_ms of the last `count` submissions the emulator logged. */
async function xsdMs(url: string, count: number): Promise<number[]> {
  const r = await fetch(new URL('/__control/aeat/ledger/submissions', url));
  const { submissions } = (await r.json()) as { submissions: Array<{ validateMs: number | null }> };
  return submissions.slice(-count).flatMap((x) => (x.validateMs === null ? [] : [x.validateMs]));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Warm-up submissions first (JIT, SQLite cache), then `measured` ones timed. */
export async function benchEmulator(emulatorsDir: string, submissions: readonly string[], warmup: number, extraArgs: string[] = []): Promise<EmulatorRun> {
  const emu = await startEmulator(emulatorsDir, extraArgs);
  try {
    if (process.env.BENCH_EMULATOR_NO_XSD) {
      await fetch(new URL('/__control/aeat/config', emu.url), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"validateXsd":false}' });
    }
    for (const xml of submissions.slice(0, warmup)) await post(emu.url, xml);
    const c0 = cpu(emu.pid);
    const t0 = threadCpu(emu.pid);
    const w0 = performance.now();
    const measured = submissions.slice(warmup);
    for (const xml of measured) await post(emu.url, xml);
    const wall = performance.now() - w0;
    const c1 = cpu(emu.pid);
    const t1 = threadCpu(emu.pid);
    const validations = await xsdMs(emu.url, measured.length);
    const per = (ms: number) => Math.round(ms / measured.length);
    const others: Record<string, number> = {};
    for (const [name, ms] of Object.entries(t1)) {
      const d = per(ms - (t0[name] ?? 0));
      if (d > 0) others[name] = d;
    }
    return {
      emulatorCpuMsPer1000: per(c1.processMs - c0.processMs),
      mainThreadCpuMsPer1000: per(c1.mainThreadMs - c0.mainThreadMs),
      otherThreadsCpuMsPer1000: others,
      wallMsPer1000: per(wall),
      xsdMsMedian: validations.length > 0 ? Math.round(median(validations) * 10) / 10 : null,
    };
  } finally {
    await emu.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rounds = Number(process.env.BENCH_EMULATOR_ROUNDS ?? 3);
  const batches = Number(process.env.BENCH_EMULATOR_BATCHES ?? 10);
  const warmup = 2;
  const submissions = buildSubmissions(warmup + batches);
  const base = process.env.BENCH_EMULATOR_BASE;
  const variants: Array<[string, string]> = [
    ...(base ? ([['base', path.resolve(base, 'engine/emulators')]] as Array<[string, string]>) : []),
    ['current', path.join(ROOT, 'engine/emulators')],
  ];
  const nodeArgs = (process.env.BENCH_EMULATOR_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const results: Record<string, EmulatorRun[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, dir] of variants) {
      const run = await benchEmulator(dir, submissions, warmup, nodeArgs);
      (results[name] ??= []).push(run);
      console.error(`${name} round ${r + 1}: ${JSON.stringify(run)}`);
    }
  }
  console.log(
    JSON.stringify(
      Object.fromEntries(
        Object.entries(results).map(([name, runs]) => [
          name,
          {
            emulatorCpuMsPer1000: runs.map((x) => x.emulatorCpuMsPer1000),
            medianEmulatorCpuMsPer1000: median(runs.map((x) => x.emulatorCpuMsPer1000)),
            medianMainThreadCpuMsPer1000: median(runs.map((x) => x.mainThreadCpuMsPer1000)),
            medianXsdMs: median(runs.flatMap((x) => (x.xsdMsMedian === null ? [] : [x.xsdMsMedian]))),
          },
        ]),
      ),
    ),
  );
}
