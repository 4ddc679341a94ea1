import { onePerDatabase } from '../db/per-database';
import { TransactionReadCache } from '../db/read-cache';

/**
 * The device rows issuing reads on every request (the issuer's phase, the device, the series
 * owner), kept in memory and trusted only while the read-cache generation is the one they were
 * read at (db/read-cache.ts TransactionReadCache says why that holds inside the issuing
 * transaction too). DeviceStore tells it (noteWrite) before every write to issuer_phases, devices
 * or device_series; triggers of migration 20261125T2300Z bump the generation on every committed
 * write to them, so a device deactivated or a phase changed elsewhere is read again by the next
 * transaction; a table that cannot be read is read, and fails (503 SHARDING_UNAVAILABLE), never
 * answered from memory.
 * One cache per Database: every DeviceStore on a connection shares it (and its writes' notes).
 */
export class RoutingRowCache extends TransactionReadCache {
  static readonly of = onePerDatabase((db) => new RoutingRowCache(db));
}
