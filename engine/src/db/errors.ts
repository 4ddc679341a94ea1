/**
 * What a database error means for the request that met it, on either database: the HTTP layer
 * answers these 503 with Retry-After (http/server.ts), and the transaction they ended was rolled
 * back, so nothing of the request was stored.
 *
 * - `full`: the disk (or SQLite's size limit) is full — SQLITE_FULL; PostgreSQL's 53100 disk_full.
 * - `busy`: the write lock was not had in time, or the server ended the transaction to break a
 *   conflict — SQLITE_BUSY*; PostgreSQL's 55P03 lock_not_available (lock_timeout), 40P01
 *   deadlock_detected, 40001 serialization_failure.
 * - `unavailable`: the connection to PostgreSQL was lost or the server is shutting down or starting
 *   (class 08, 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300
 *   too_many_connections). The connection is opened again at the next request. A COMMIT whose
 *   answer was lost may have committed: the caller's retry of the same request replays it
 *   (issuing's idempotency), never a second invoice.
 *
 * Told by the error's name and code, so this module loads neither database's driver.
 */
export type StorageFailure = 'full' | 'busy' | 'unavailable';

const POSTGRES_BUSY = new Set(['55P03', '40P01', '40001']);
const POSTGRES_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);

export function storageFailureOf(error: { name?: string; code?: unknown }): StorageFailure | undefined {
  const code = typeof error.code === 'string' ? error.code : undefined;
  if (code === undefined) return undefined;
  if (error.name === 'SqliteError') {
    if (code === 'SQLITE_FULL') return 'full';
    if (code.startsWith('SQLITE_BUSY')) return 'busy';
    return undefined;
  }
  if (error.name === 'PostgresError') {
    if (code === '53100') return 'full';
    if (POSTGRES_BUSY.has(code)) return 'busy';
    if (code.startsWith('08') || POSTGRES_UNAVAILABLE.has(code)) return 'unavailable';
  }
  return undefined;
}

/** An error the database raised (SQLite's or PostgreSQL's): answered DATABASE_ERROR when it is none of the above. */
export function isDatabaseError(error: { name?: string }): boolean {
  return error.name === 'SqliteError' || error.name === 'PostgresError';
}
