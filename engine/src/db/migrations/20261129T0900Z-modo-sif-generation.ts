import { sql, type Kysely } from 'kysely';

/**
 * Issuing reads the «NO VERI*FACTU» mode of the issuer's installation on every VeriFactu request,
 * before and inside its transaction. Writes to `sif_modos` now bump the read-cache generation too,
 * so the engine keeps the mode in memory (no-verifactu/store.ts) and a switch made by any
 * connection, process or node (the panel, the admin command line, another node on PostgreSQL) is
 * seen by the next request and the next issuing transaction.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
    await sql
      .raw(
        `CREATE TRIGGER sif_modos_${event.toLowerCase()}_bumps_read_cache AFTER ${event} ON sif_modos
         BEGIN UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1; END`,
      )
      .execute(db);
  }
}
