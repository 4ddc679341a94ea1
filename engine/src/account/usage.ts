import type { Database } from '../db/database';
import type { Clock } from '../platform/clock';
import { madridPeriod, startOfNextMadridMonth } from '../platform/madrid-calendar';
import { quotaExceeded, rateLimited } from '../core/errors';
import type { RateLimits } from '../core/caller';
import { QuotaUsageStore } from './usage-store';
import { SharedAdmission } from './admission.pg';

interface Counter {
  periodo: string;
  usadas: number;
  snapshotUsadas: number | null;
  snapshotEn: string | null;
  dirty: boolean;
}

interface Bucket {
  tokens: number;
  at: number;
}

export interface Consumo {
  usadas: number;
  restantes: number;
  limite: number;
  periodo: string;
  observadoEn: string;
}

/**
 * Per-key admission: a token bucket per second and a monthly quota, shared by every API of the
 * process. Counters live in memory and are flushed to SQLite every second (and at shutdown), so a
 * restart keeps the month's count; a hard crash can forget at most the last second of counts,
 * which errs in the caller's favour. Writing a row per request would cost an fsync each.
 * On PostgreSQL several nodes serve the same keys: the bucket and the month's count are the
 * database's (SharedAdmission, one statement per request), and each node's flush keeps the count
 * it last saw durable (never lowering what another node wrote).
 */
export class UsageMeter {
  private readonly counters = new Map<string, Counter>();
  private readonly buckets = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly snapshotMaxAgeMs = 5 * 60_000,
  ) {
    this.store = new QuotaUsageStore(db);
    this.shared = db.dialect === 'postgres' ? new SharedAdmission(db) : undefined;
  }

  private readonly store: QuotaUsageStore;
  private readonly shared: SharedAdmission | undefined;

  startFlushing(intervalMs = 1000): void {
    this.timer = setInterval(() => {
      try {
        this.flush();
      } catch {
        // The database is out of reach for now (a PostgreSQL restart, a busy lock): the counts
        // stay to be written by the next flush; a timer's throw would end the process.
      }
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
  }

  /** Admits one request for the key or throws 429 (quota first: retrying cannot cure it). */
  admit(keyId: string, limits: RateLimits): void {
    const now = this.clock.now();
    const counter = this.counter(keyId, now);
    if (this.shared) {
      this.admitShared(this.shared, keyId, limits, now, counter);
      return;
    }
    if (counter.usadas >= limits.monthlyQuota) throw this.quotaExceeded(now);
    const bucket = this.buckets.get(keyId) ?? { tokens: limits.burst, at: now.getTime() };
    const elapsed = Math.max(0, now.getTime() - bucket.at) / 1000;
    bucket.tokens = Math.min(limits.burst, bucket.tokens + elapsed * limits.rps);
    bucket.at = now.getTime();
    this.buckets.set(keyId, bucket);
    if (bucket.tokens < 1) {
      throw rateLimited(Math.max(1, Math.ceil((1 - bucket.tokens) / limits.rps)));
    }
    bucket.tokens -= 1;
    counter.usadas += 1;
    counter.dirty = true;
  }

  /** admit() on every node's shared bucket and count; `counter` takes the count the database answered. */
  private admitShared(shared: SharedAdmission, keyId: string, limits: RateLimits, now: Date, counter: Counter): void {
    const verdict = shared.admit(keyId, counter.periodo, limits, now.getTime());
    if (verdict.usadas > counter.usadas) {
      counter.usadas = verdict.usadas;
      counter.dirty = true;
    }
    if (verdict.veredicto === 'cuota') throw this.quotaExceeded(now);
    if (verdict.veredicto === 'ritmo') throw rateLimited(Math.max(1, Math.ceil((1 - verdict.tokens) / limits.rps)));
  }

  private quotaExceeded(now: Date): Error {
    const seconds = Math.ceil((startOfNextMadridMonth(now).getTime() - now.getTime()) / 1000);
    return quotaExceeded(Math.max(1, seconds));
  }

  /** The `consumo` of /v1/cuenta: a snapshot at most `snapshotMaxAgeMs` old. */
  consumo(keyId: string, limits: RateLimits): Consumo | undefined {
    const now = this.clock.now();
    const counter = this.counter(keyId, now);
    const age = counter.snapshotEn ? now.getTime() - Date.parse(counter.snapshotEn) : Infinity;
    if (counter.snapshotUsadas === null || age > this.snapshotMaxAgeMs) {
      counter.snapshotUsadas = counter.usadas;
      counter.snapshotEn = now.toISOString();
      counter.dirty = true;
    }
    if (counter.snapshotEn === null) return undefined;
    return {
      usadas: counter.snapshotUsadas,
      restantes: Math.max(0, limits.monthlyQuota - counter.snapshotUsadas),
      limite: limits.monthlyQuota,
      periodo: counter.periodo,
      observadoEn: counter.snapshotEn,
    };
  }

  flush(): void {
    const dirty = [...this.counters.entries()].filter(([, c]) => c.dirty);
    if (dirty.length === 0 || !this.db.isOpen) return;
    this.db.transaction(() => {
      for (const [keyId, c] of dirty) {
        this.store.save({ keyId, periodo: c.periodo, usadas: c.usadas, snapshotUsadas: c.snapshotUsadas, snapshotEn: c.snapshotEn });
      }
    });
    // Clean only once committed: a transaction that failed leaves them for the next flush.
    for (const [, c] of dirty) c.dirty = false;
  }

  /** The Madrid month of the last instant asked about, valid from that instant to the month's end. */
  private month = { from: Number.NaN, until: Number.NaN, periodo: '' };

  /** madridPeriod, computed again only when `now` leaves the interval it was computed for. */
  private periodOf(now: Date): string {
    const ms = now.getTime();
    if (!(ms >= this.month.from && ms < this.month.until)) {
      this.month = { from: ms, until: startOfNextMadridMonth(now).getTime(), periodo: madridPeriod(now) };
    }
    return this.month.periodo;
  }

  private counter(keyId: string, now: Date): Counter {
    const periodo = this.periodOf(now);
    const cached = this.counters.get(keyId);
    if (cached && cached.periodo === periodo) return cached;
    const row = this.store.find(keyId, periodo);
    const counter: Counter = {
      periodo,
      usadas: row?.usadas ?? 0,
      snapshotUsadas: row?.snapshotUsadas ?? null,
      snapshotEn: row?.snapshotEn ?? null,
      dirty: false,
    };
    this.counters.set(keyId, counter);
    return counter;
  }
}
