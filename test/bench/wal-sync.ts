/**
 * The WAL's durability wait alone (db/wal-sync.ts), at a fixed commit rate: a write of a group
 * commit's size to a file, then WalSync.flush(), `rate` times a second, timed from the write to the
 * flush's answer. One fsync at a time (the previous rounds) and two at once (this one) alternate
 * in one run, so the disk's mood is shared. Part of `npm run bench tail`.
 */
import { mkdtempSync, openSync, closeSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WalSync } from '../../engine/src/db/wal-sync';

/** ≈ the WAL frames of one small group commit (docs/benchmarks.md: ≈ 100 pages at saturation, fewer at 250 req/s). */
const COMMIT_BYTES = 16 * 4096;
/** The WAL is reused from its start after each checkpoint: writes land on blocks already allocated. */
const WAL_COMMITS = 256;

function percentile(sorted: number[], p: number): number {
  return Math.round((sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0) * 100) / 100;
}

async function commitsAtRate(file: string, maxInFlight: number, rate: number, commits: number): Promise<{ p50Ms: number; p99Ms: number; maxMs: number }> {
  const fd = openSync(file, 'r+');
  const sync = new WalSync(file, maxInFlight);
  const frames = Buffer.alloc(COMMIT_BYTES, 7);
  const waits: number[] = [];
  let sent = 0;
  await new Promise<void>((done) => {
    const started = performance.now();
    const timer = setInterval(() => {
      while (sent < commits && started + (sent * 1000) / rate <= performance.now()) {
        writeSync(fd, frames, 0, frames.length, (sent % WAL_COMMITS) * COMMIT_BYTES);
        const written = performance.now();
        sent++;
        void sync.flush().then(() => {
          waits.push(performance.now() - written);
          if (waits.length === commits) done();
        });
      }
      if (sent >= commits) clearInterval(timer);
    }, 1);
  });
  await sync.close();
  closeSync(fd);
  waits.sort((a, b) => a - b);
  return { p50Ms: percentile(waits, 50), p99Ms: percentile(waits, 99), maxMs: percentile(waits, 100) };
}

export async function benchWalSync(rate = 250, commits = 1000, rounds = 3): Promise<unknown> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-wal-')), 'wal');
  const fd = openSync(file, 'w');
  const zero = Buffer.alloc(COMMIT_BYTES);
  for (let i = 0; i < WAL_COMMITS; i++) writeSync(fd, zero, 0, zero.length, i * COMMIT_BYTES);
  closeSync(fd);
  const runs: { maxInFlight: number; p50Ms: number; p99Ms: number; maxMs: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const maxInFlight of [1, 2]) runs.push({ maxInFlight, ...(await commitsAtRate(file, maxInFlight, rate, commits)) });
  }
  return { rate, commitBytes: COMMIT_BYTES, runs };
}
