import type { Database, RawStatement } from '../db/database';
import type { RateLimits } from '../core/caller';

/** What one request's admission found: admitted, or refused for the month's quota or the per-second rate. */
export interface SharedVerdict {
  veredicto: 'ok' | 'cuota' | 'ritmo';
  /** The key's requests this month across every node, this one included when admitted. */
  usadas: number;
  /** The key's bucket after this request, across every node. */
  tokens: number;
}

/**
 * The per-second bucket and the month's count of each key, shared by every node on one PostgreSQL
 * (issue 27: limits counted for the key across all nodes). One row per key and month, taken and
 * updated by a single statement per request: the row lock orders the nodes' requests, and the
 * bucket refills from the last request's instant whichever node served it.
 *
 * The table is UNLOGGED: a transaction that writes only it writes no WAL, so its commit does not
 * wait for a flush (a logged counter would cost each request an fsync on the server). A server
 * crash empties it; the next request starts the month from `quota_usage`, which each node keeps
 * durable every second (UsageMeter.flush) — at most that last second of counts is forgotten, in
 * the caller's favour, as the SQLite engine's in-memory counters do. It is created here, not by
 * the migrations: the migrations are one DDL source for both databases and SQLite has no such
 * table; nothing but this class reads it and losing it loses nothing durable.
 */
export class SharedAdmission {
  private ready = false;
  private readonly admitSql: RawStatement<{ veredicto: SharedVerdict['veredicto']; usadas: number | string; tokens: number | string }>;

  constructor(private readonly db: Database) {
    // $1 key, $2 month, $3 burst, $4 rps, $5 quota, $6 now (ms). The new row starts the month from
    // the durable count; an existing one refills the bucket by the time since its last request.
    const refill = 'LEAST(CAST($3 AS DOUBLE PRECISION), a.tokens + GREATEST(0, CAST($6 AS BIGINT) - a.atMs) * CAST($4 AS DOUBLE PRECISION) / 1000.0)';
    const admitted = `(a.usadas < CAST($5 AS BIGINT) AND ${refill} >= 1)`;
    this.admitSql = db.statement(`
      WITH base AS (SELECT COALESCE((SELECT usadas FROM quota_usage WHERE keyId = $1 AND periodo = $2), 0) AS usadas)
      INSERT INTO key_admission AS a (keyId, periodo, usadas, tokens, atMs, veredicto)
      SELECT $1, $2,
        base.usadas + CASE WHEN base.usadas < CAST($5 AS BIGINT) THEN 1 ELSE 0 END,
        CAST($3 AS DOUBLE PRECISION) - CASE WHEN base.usadas < CAST($5 AS BIGINT) THEN 1 ELSE 0 END,
        CAST($6 AS BIGINT),
        CASE WHEN base.usadas < CAST($5 AS BIGINT) THEN 'ok' ELSE 'cuota' END
      FROM base
      ON CONFLICT (keyId, periodo) DO UPDATE SET
        veredicto = CASE WHEN a.usadas >= CAST($5 AS BIGINT) THEN 'cuota' WHEN ${refill} < 1 THEN 'ritmo' ELSE 'ok' END,
        tokens = ${refill} - CASE WHEN ${admitted} THEN 1 ELSE 0 END,
        usadas = a.usadas + CASE WHEN ${admitted} THEN 1 ELSE 0 END,
        atMs = GREATEST(a.atMs, CAST($6 AS BIGINT))
      RETURNING veredicto, usadas, tokens`);
  }

  /** Counts one request of `keyId` in month `periodo` at `nowMs` if the limits let it in. */
  admit(keyId: string, periodo: string, limits: RateLimits, nowMs: number): SharedVerdict {
    this.ensureTable();
    const row = this.admitSql.get(keyId, periodo, limits.burst, limits.rps, limits.monthlyQuota, nowMs);
    if (!row) throw new Error('key_admission returned no row');
    return { veredicto: row.veredicto, usadas: Number(row.usadas), tokens: Number(row.tokens) };
  }

  private ensureTable(): void {
    if (this.ready) return;
    try {
      this.db.statement(
        `CREATE UNLOGGED TABLE IF NOT EXISTS key_admission (
           keyId TEXT COLLATE "C" NOT NULL, periodo TEXT COLLATE "C" NOT NULL, usadas BIGINT NOT NULL, tokens DOUBLE PRECISION NOT NULL,
           atMs BIGINT NOT NULL, veredicto TEXT COLLATE "C" NOT NULL, PRIMARY KEY (keyId, periodo))`,
      ).run();
    } catch (error) {
      // Nodes starting together race on IF NOT EXISTS (a unique violation in the catalogue): the
      // table is there all the same when another node made it.
      try {
        this.db.statement('SELECT 1 FROM key_admission LIMIT 0').all();
      } catch {
        throw error;
      }
    }
    this.ready = true;
  }
}
