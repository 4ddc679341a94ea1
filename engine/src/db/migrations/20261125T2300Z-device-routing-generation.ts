import { sql, type Kysely } from 'kysely';

/**
 * Issuing in phase `activa` reads, on every request, the issuer's phase, the device and the
 * series owner. Writes to those rows now bump the read-cache generation too, so the engine keeps
 * them in memory (devices/routing-cache.ts) and a device deactivated or a phase changed by any
 * connection or process (the admin command line) is seen by the next request. Observations
 * (device_observations) are not routing state: written on every request in `preparacion`, they
 * stay out.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['issuer_phases', 'devices', 'device_series']) {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_${event.toLowerCase()}_bumps_read_cache AFTER ${event} ON ${table}
           BEGIN UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1; END`,
        )
        .execute(db);
    }
  }
}
