/**
 * `npm run bench tail`: where VeriFactu `crear`'s slowest requests at 250 req/s spend their time.
 * The bench's engine runs with BENCH_TRACE (tail-trace.ts), the paced generator tags each request
 * with its sequence number, and the two timelines (one monotonic clock) are joined per request.
 * For all requests and for the slowest 1 %: the median of each stage, the slowest requests one
 * by one, and what else happened meanwhile (GC, event-loop stalls, the group commit's batches and
 * fsyncs). The trace costs the engine some CPU: the latencies here are for attribution, the
 * figures to quote are `npm run bench crear`'s.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { facturaBody, load, startServer } from './harness';
import type { ClientMoments } from './paced-load';
import { SEQ_HEADER, type ServerTrace } from './tail-trace';

/** Each stage between two moments; a moment a request lacks (e.g. a replay's QR) leaves it out. */
const STAGES: { stage: string; from: string; to: string }[] = [
  { stage: 'generator late (due → sent)', from: 'due', to: 'sent' },
  { stage: 'to the engine (sent → arrival)', from: 'sent', to: 'arrival' },
  { stage: 'HTTP, parse, validate, key (arrival → crear)', from: 'arrival', to: 'crear' },
  { stage: 'wait for the batch (crear → work)', from: 'crear', to: 'workStart' },
  { stage: 'own transaction work', from: 'workStart', to: 'workEnd' },
  { stage: 'rest of batch + COMMIT (work → tx end)', from: 'workEnd', to: 'txEnd' },
  { stage: 'fsync wait (tx end → durable)', from: 'txEnd', to: 'durable' },
  { stage: 'settle (durable → committed)', from: 'durable', to: 'committed' },
  { stage: 'QR wait + answer (committed → answered)', from: 'committed', to: 'answered' },
  { stage: 'serialize + write (answered → finish)', from: 'answered', to: 'finish' },
  { stage: 'back to the generator (finish → end)', from: 'finish', to: 'end' },
  // Beside the stages above, from before the transaction: it delays the answer only past `committed`.
  { stage: '(beside) QR round trip on the pool', from: 'qrStart', to: 'qrDone' },
  { stage: '(beside) QR jobs ahead at the pool', from: 'zero', to: 'qrAhead' },
];

type Timeline = Record<string, number | undefined>;

const round = (ms: number) => Math.round(ms * 100) / 100;
function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0);
}

function stagesOf(t: Timeline): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { stage, from, to } of STAGES) {
    const a = t[from];
    const b = t[to];
    if (a !== undefined && b !== undefined) out[stage] = round(b - a);
  }
  return out;
}

function medians(rows: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { stage } of STAGES) out[stage] = percentile(rows.flatMap((r) => (r[stage] === undefined ? [] : [r[stage]!])), 50);
  return out;
}

const overlaps = (start: number, end: number, from: number, to: number) => start < to && end > from;

export async function benchTail(options: { rate?: number; devices?: boolean; env?: Record<string, string> } = {}): Promise<unknown> {
  const rate = options.rate ?? 250;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-tail-')), 'trace.json');
  const engine = await startServer(options.devices ? 'engine-devices' : 'engine', [], { ...options.env, BENCH_TRACE: file });
  const client: ClientMoments[] = [];
  const clientDelay = monitorEventLoopDelay({ resolution: 1 });
  let result;
  try {
    const devices = engine.info.devices ?? [];
    clientDelay.enable();
    result = await load({
      url: `${engine.info.url}/v1/verifactu/crear`,
      method: 'POST',
      headers: { 'x-api-key': engine.info.key ?? '' },
      body: facturaBody(engine.info.nif ?? '', 't', devices),
      rate,
      connections: 10,
      trace: { header: SEQ_HEADER, requests: client },
    });
    clientDelay.disable();
  } finally {
    await engine.stop();
  }
  const server = JSON.parse(readFileSync(file, 'utf8')) as ServerTrace;
  const joined = client.map((c) => {
    const s = server.requests[String(c.seq)] ?? {};
    const batch = s.batch === undefined ? undefined : server.batches[s.batch];
    const t: Timeline = { ...c, ...s, txEnd: batch?.txEnd, durable: batch?.durable, zero: 0 };
    return { seq: c.seq, latency: round(c.end - c.due), t, stages: stagesOf(t), batchSize: batch?.size };
  });
  joined.sort((a, b) => b.latency - a.latency);
  const slowCount = Math.max(1, Math.ceil(joined.length / 100));
  const slow = joined.slice(0, slowCount);
  const from = Math.min(...client.map((c) => c.due));
  const to = Math.max(...client.map((c) => c.end));
  const inWindow = <T extends { start: number }>(rows: T[]) => rows.filter((r) => r.start >= from && r.start <= to);
  const gc = inWindow(server.gc);
  const stalls = inWindow(server.stalls);
  const fsyncs = inWindow(server.fsyncs);
  const checkpoints = inWindow(server.checkpoints);
  const filingWaits = inWindow(server.filingWaits);
  const duringCheckpoint = (f: { start: number; end: number }) => checkpoints.some((c) => overlaps(f.start, f.end, c.start, c.end ?? c.start));
  const fsyncStats = (rows: { start: number; end: number }[]) => ({
    count: rows.length,
    p50: percentile(rows.map((f) => f.end - f.start), 50),
    p99: percentile(rows.map((f) => f.end - f.start), 99),
  });
  const batches = server.batches.filter((b) => b.txStart >= from && b.txStart <= to);
  const context = (t: Timeline) => {
    const a = t.due ?? 0;
    const b = t.end ?? 0;
    return {
      gcMs: round(gc.filter((g) => overlaps(g.start, g.start + g.ms, a, b)).reduce((sum, g) => sum + g.ms, 0)),
      stallsOver10Ms: stalls.filter((s) => s.ms >= 10 && overlaps(s.start, s.start + s.ms, a, b)).map((s) => round(s.ms)),
      fsyncsOver10Ms: fsyncs.filter((f) => f.end - f.start >= 10 && overlaps(f.start, f.end, a, b)).map((f) => round(f.end - f.start)),
      checkpointsMs: checkpoints.filter((c) => overlaps(c.start, c.end ?? c.start, a, b)).map((c) => round((c.end ?? c.start) - c.start)),
    };
  };
  return {
    rate,
    devices: options.devices === true,
    answered: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    medianStagesAll: medians(joined.map((j) => j.stages)),
    medianStagesSlowest1pct: medians(slow.map((j) => j.stages)),
    slowest: slow.slice(0, 8).map((j) => ({ seq: j.seq, latency: j.latency, batchSize: j.batchSize, stages: j.stages, meanwhile: context(j.t) })),
    engine: {
      waitsForTheFilingThread: {
        count: filingWaits.length,
        p50Ms: percentile(filingWaits.map((w) => (w.end ?? to) - w.start), 50),
        maxMs: percentile(filingWaits.map((w) => (w.end ?? to) - w.start), 100),
      },
      eventLoopDelayMs: server.eventLoopDelayMs,
      gc: { count: gc.length, totalMs: round(gc.reduce((s, g) => s + g.ms, 0)), p99Ms: percentile(gc.map((g) => g.ms), 99), maxMs: percentile(gc.map((g) => g.ms), 100) },
      stalls: { count: stalls.length, p50Ms: percentile(stalls.map((s) => s.ms), 50), maxMs: percentile(stalls.map((s) => s.ms), 100) },
      batches: {
        count: batches.length,
        size: { p50: percentile(batches.map((b) => b.size), 50), p99: percentile(batches.map((b) => b.size), 99), max: percentile(batches.map((b) => b.size), 100) },
        transactionMs: { p50: percentile(batches.map((b) => b.txEnd - b.txStart), 50), p99: percentile(batches.map((b) => b.txEnd - b.txStart), 99) },
        fsyncWaitMs: {
          p50: percentile(batches.flatMap((b) => (b.durable ? [b.durable - b.txEnd] : [])), 50),
          p99: percentile(batches.flatMap((b) => (b.durable ? [b.durable - b.txEnd] : [])), 99),
        },
      },
      checkpoints: {
        count: checkpoints.length,
        frames: { p50: percentile(checkpoints.map((c) => c.frames), 50), max: percentile(checkpoints.map((c) => c.frames), 100) },
        ms: { p50: percentile(checkpoints.map((c) => (c.end ?? c.start) - c.start), 50), max: percentile(checkpoints.map((c) => (c.end ?? c.start) - c.start), 100) },
      },
      // An fsync that overlaps a checkpoint's copy and database fsync shares the disk with it.
      fsyncMsDuringCheckpoint: fsyncStats(fsyncs.filter((f) => duringCheckpoint(f))),
      fsyncMsOtherwise: fsyncStats(fsyncs.filter((f) => !duringCheckpoint(f))),
      fsyncMs: { count: fsyncs.length, p50: percentile(fsyncs.map((f) => f.end - f.start), 50), p99: percentile(fsyncs.map((f) => f.end - f.start), 99), max: percentile(fsyncs.map((f) => f.end - f.start), 100) },
    },
    generator: { eventLoopDelayMs: { p50: round(clientDelay.percentile(50) / 1e6), p99: round(clientDelay.percentile(99) / 1e6), max: round(clientDelay.max / 1e6) } },
  };
}
