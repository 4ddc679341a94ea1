/**
 * Per-stage CPU budget of VeriFactu `crear` at saturation: the bench's own engine process
 * (server-process.ts) runs under `node --cpu-prof`, and every sample is charged to the stage of
 * the innermost frame that names one (parse/validate, rules, record + hash + XML, QR, store,
 * commit, serialize…). Figures are µs of engine CPU per answered request.
 * Run: npx tsx test/bench/profile.ts   (or `npm run bench profile`). BENCH_PROFILE_DEVICES=4: the
 * engine in run.ts's `engine-devices` mode, each request on one of the four tills' chains
 * round-robin, each till on a series of its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { load } from './harness';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** µs on the monotonic clock, the one process.hrtime reads in any process of the machine. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** First match, innermost frame first. Order matters where a stage calls into another's code. */
const STAGES: { stage: string; match: (f: CallFrame) => boolean }[] = [
  { stage: 'commit (COMMIT + fsync)', match: (f) => f.url.includes('better-sqlite3/lib/methods/transaction') },
  { stage: 'QR (matrix + PNG + deflate)', match: (f) => /\/qr\/|node_modules\/qr\/|node:zlib/.test(f.url) },
  { stage: 'rules (AEAT local validation)', match: (f) => f.url.includes('verifactu/reglas') },
  { stage: 'record + hash + XML', match: (f) => /verifactu\/(registro|huella|importes|fecha-hora|xml-escape)|issuing\/fingerprint/.test(f.url) },
  { stage: 'store (SQL statements)', match: (f) => /invoices\/store|better-sqlite3|db\/database/.test(f.url) },
  { stage: 'device routing (phase, device, series)', match: (f) => /engine\/src\/devices\//.test(f.url) },
  { stage: 'parse + validate (JSON, zod)', match: (f) => /node_modules\/zod|src-shared\/|type-provider-zod|content-type-parser|secure-json-parse/.test(f.url) },
  { stage: 'key, account, issuer admission', match: (f) => /http\/auth|account\/|issuing\/issuer-gate|clients\/store|db\/read-cache/.test(f.url) },
  { stage: 'issuing service (rest)', match: (f) => /verifactu\/service|issuing\/group-commit/.test(f.url) },
  { stage: 'serialize (JSON answer)', match: (f) => /fast-json-stringify|fastify\/lib\/reply|serializ/.test(f.url) },
  { stage: 'background workers', match: (f) => /submission\/|webhooks\/|platform\/poll-loop|checkpointer/.test(f.url) },
  { stage: 'HTTP + Fastify routing', match: (f) => /node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify)|node:(_http|http|net|stream|internal\/stream|internal\/http)/.test(f.url) },
];

/** Only samples inside [fromMicros, toMicros]: the measured load, not start-up or warm-up. */
function budget(profile: CpuProfile, requests: number, fromMicros: number, toMicros: number): Record<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const cached = stageOf.get(id);
    if (cached !== undefined) return cached;
    const node = byId.get(id);
    let stage: string;
    const name = node?.callFrame.functionName ?? '';
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') stage = name;
    else {
      const hit = node ? STAGES.find((s) => s.match(node.callFrame)) : undefined;
      const up = parent.get(id);
      stage = hit?.stage ?? (up === undefined ? 'other (event loop, timers, native)' : classify(up));
    }
    stageOf.set(id, stage);
    return stage;
  };
  const totals = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < fromMicros || at > toMicros) return;
    const stage = classify(id);
    totals.set(stage, (totals.get(stage) ?? 0) + delta);
  });
  const out: Record<string, number> = {};
  let busy = 0;
  for (const [stage, micros] of [...totals.entries()].sort((a, b) => b[1] - a[1])) {
    if (stage === '(idle)') continue;
    out[stage] = Math.round((micros / requests) * 10) / 10;
    busy += micros;
  }
  out['= busy CPU per request'] = Math.round((busy / requests) * 10) / 10;
  return out;
}

/** A distinct simplified invoice per request (the same body as run.ts's crear), round-robin over `devices` when there are any. */
function facturaBody(nif: string, run: string, devices: readonly string[]) {
  return (i: number) => {
    const idMaquina = devices.length > 0 ? devices[i % devices.length] : undefined;
    return JSON.stringify({
      version: '1.0',
      emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
      cabecera: { serie: idMaquina === undefined ? `P${run}-` : `P${run}-${idMaquina}-`, numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
      detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21.00', cuotaRepercutida: '2.10' }],
      totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
      ...(idMaquina !== undefined ? { idMaquina } : {}),
    });
  };
}

/**
 * CPU time (user + system, µs) the kernel charged to a process's main thread and to all its threads
 * (/proc/<pid>/task/<tid>/stat, fields 14 and 15, in clock ticks of 10 ms). A sampling profiler
 * charges a thread's time off the CPU to the frame it was in; these count only time on it.
 * Undefined where /proc is not there.
 */
function threadCpu(pid: number): { mainThread: number; allThreads: number } | undefined {
  const ticksOf = (stat: string): number => {
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  try {
    let all = 0;
    let main = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const ticks = ticksOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      all += ticks;
      if (tid === String(pid)) main = ticks;
    }
    const MICROS_PER_TICK = 10_000;
    return { mainThread: main * MICROS_PER_TICK, allThreads: all * MICROS_PER_TICK };
  } catch {
    return undefined;
  }
}

/** BENCH_PROFILE_DEVICES=4 profiles the four-device case; unset or 0, the issuer's single chain. */
function modeFromEnv(): 'engine' | 'engine-devices' {
  const devices = process.env.BENCH_PROFILE_DEVICES;
  if (devices === undefined || devices === '' || devices === '0') return 'engine';
  if (devices === '4') return 'engine-devices';
  throw new Error('BENCH_PROFILE_DEVICES: 0 or 4 (the bench registers four tills)');
}

export async function profileCrear(
  seconds = 5,
  mode = modeFromEnv(),
): Promise<{
  mode: string;
  requestsPerSecond: number;
  requests: number;
  profile: string;
  /** The measured load on the profile's clock (µs), to read the profile's frames over the same span. */
  window: { fromMicros: number; toMicros: number };
  microsPerRequest: Record<string, number>;
  /** CPU the kernel charged over the measured load, µs per request (Linux only): steadier than the sampled figures. */
  kernelCpuPerRequest?: { mainThread: number; allThreads: number };
}> {
  const profDir = mkdtempSync(path.join(tmpdir(), 'bench-prof-'));
  const child = spawn(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--import', 'tsx', path.join(import.meta.dirname, 'server-process.ts'), mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`engine exited with ${code}`)));
  });
  const info = JSON.parse(first) as { url: string; key: string; nif: string; devices?: string[] };
  const devices = info.devices ?? [];
  const options = {
    url: `${info.url}/v1/verifactu/crear`,
    method: 'POST' as const,
    headers: { 'x-api-key': info.key },
    warmupSeconds: 0,
  };
  await load({ ...options, body: facturaBody(info.nif, 'w', devices), seconds: 1 });
  const cpuBefore = child.pid === undefined ? undefined : threadCpu(child.pid);
  const from = Number(process.hrtime.bigint() / 1000n);
  const result = await load({ ...options, body: facturaBody(info.nif, 'm', devices), seconds });
  const to = Number(process.hrtime.bigint() / 1000n);
  const cpuAfter = child.pid === undefined ? undefined : threadCpu(child.pid);
  const requests = result.requestsPerSecond * seconds;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  // One profile per thread (module loader, checkpointer): thread 0 is the main thread.
  const file = readdirSync(profDir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
  if (!file) throw new Error('no CPU profile written');
  const profile = JSON.parse(readFileSync(path.join(profDir, file), 'utf8')) as CpuProfile;
  return {
    mode,
    requestsPerSecond: result.requestsPerSecond,
    requests,
    profile: path.join(profDir, file),
    window: { fromMicros: from, toMicros: to },
    microsPerRequest: budget(profile, requests, from, to),
    ...(cpuBefore && cpuAfter
      ? {
          kernelCpuPerRequest: {
            mainThread: Math.round((cpuAfter.mainThread - cpuBefore.mainThread) / requests),
            allThreads: Math.round((cpuAfter.allThreads - cpuBefore.allThreads) / requests),
          },
        }
      : {}),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await profileCrear(), null, 2));
}
