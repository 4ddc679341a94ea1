import { createHash } from 'node:crypto';
import type { Database } from './database';
import { onePerDatabase } from './per-database';

/** What a node drives alone: a submission queue (entorno|autoridad|obligado) or a webhook's deliveries. */
export type OwnedWork = 'submission-queue' | 'webhook';

/**
 * Which node drives a piece of background work. Several engine processes on one PostgreSQL each run
 * the filing workers; a queue is driven by one of them at a time, so its records leave in commit
 * order and one submission is never on the wire from two nodes. Ownership lives in the database
 * (PostgreSQL's session advisory locks): when a node dies its connection goes, the server releases
 * what it held, and the next node to look takes the work over from the stored state.
 * On SQLite one process is the only node: it owns everything.
 */
export interface WorkOwnership {
  /** Takes `key` for this node unless another node holds it; true when this node holds it now. */
  tryTake(work: OwnedWork, key: string): boolean;
  /**
   * Whether this node still holds `key`, asked of the database (false once the connection that
   * took it was lost: the server released it and another node may have taken it).
   */
  holds(work: OwnedWork, key: string): boolean;
  /** Lets another node take `key`. */
  release(work: OwnedWork, key: string): void;
}

/** SQLite: the one process is the only node. */
export const SOLE_NODE: WorkOwnership = {
  tryTake: () => true,
  holds: () => true,
  release: () => {},
};

/**
 * The first key of the two-key advisory locks, one per kind of work. Two-key locks never meet the
 * one-key write lock (WRITE_LOCK_KEY) or kysely's migration lock: PostgreSQL keeps the forms apart.
 */
const NAMESPACE: Record<OwnedWork, number> = { 'submission-queue': 0x5e_d1, webhook: 0x3e_b0 };

/** A 31-bit key for a string: a collision only makes one node drive both queues (never two drive one). */
function lockKey(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) & 0x7f_ff_ff_ff;
}

/**
 * Ownership by session-level advisory locks on the node's own connection: held across
 * transactions, released by `release` or by the server when the connection ends (a killed node,
 * a lost network, a server restart). Each call is one round trip.
 */
export class AdvisoryLockOwnership implements WorkOwnership {
  /** Keys this process took, so a lane never takes a lock twice (they stack within a session). */
  private readonly held = new Set<string>();
  private readonly sql: {
    take: ReturnType<Database['statement']>;
    holds: ReturnType<Database['statement']>;
    release: ReturnType<Database['statement']>;
  };

  constructor(db: Database) {
    this.sql = {
      take: db.statement('SELECT pg_try_advisory_lock(CAST(? AS INTEGER), CAST(? AS INTEGER)) AS taken'),
      // pg_locks shows a two-key advisory lock as classid/objid with objsubid 2, held by the backend.
      holds: db.statement(
        "SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND objsubid = 2 AND CAST(classid AS BIGINT) = CAST(? AS BIGINT) AND CAST(objid AS BIGINT) = CAST(? AS BIGINT)",
      ),
      release: db.statement('SELECT pg_advisory_unlock(CAST(? AS INTEGER), CAST(? AS INTEGER)) AS released'),
    };
  }

  tryTake(work: OwnedWork, key: string): boolean {
    const id = `${work}\u0000${key}`;
    if (this.held.has(id)) {
      if (this.holds(work, key)) return true;
      this.held.delete(id);
    }
    const row = this.sql.take.get(NAMESPACE[work], lockKey(key)) as { taken: boolean } | undefined;
    if (row?.taken !== true) return false;
    this.held.add(id);
    return true;
  }

  holds(work: OwnedWork, key: string): boolean {
    const row = this.sql.holds.get(NAMESPACE[work], lockKey(key)) as { n: number | string } | undefined;
    return Number(row?.n ?? 0) > 0;
  }

  release(work: OwnedWork, key: string): void {
    const id = `${work}\u0000${key}`;
    if (!this.held.delete(id)) return;
    // After a lost connection the lock went with it: nothing to give back.
    if (this.holds(work, key)) this.sql.release.get(NAMESPACE[work], lockKey(key));
  }
}

/** The ownership of work on `db`, one per connection (the locks belong to its session). */
export const workOwnershipOf = onePerDatabase((db): WorkOwnership => (db.dialect === 'postgres' ? new AdvisoryLockOwnership(db) : SOLE_NODE));
