import { sql, type Kysely } from 'kysely';

/**
 * One counter that every write to the rows authentication and issuer admission read (accounts,
 * API keys, issuers) bumps, by trigger, whichever connection or process writes: the engine's
 * in-memory read caches compare it before trusting what they hold, so an admin CLI revocation
 * from another process is seen by the very next request.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE read_cache_generation (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL) STRICT`.execute(db);
  await sql`INSERT INTO read_cache_generation (id, generation) VALUES (1, 0)`.execute(db);
  for (const table of ['accounts', 'api_keys', 'issuers']) {
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
