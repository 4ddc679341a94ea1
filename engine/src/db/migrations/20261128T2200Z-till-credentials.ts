import { sql, type Kysely } from 'kysely';

/**
 * A credential per till of a shared (shop-server) engine: its own panel token and its own TEST and
 * LIVE keys, bound to its `idMaquina`, stored as hashes, revocable alone. Writes bump the read-cache
 * counter like API keys do, so a revocation is seen by the very next request.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE till_credentials (
      id TEXT PRIMARY KEY,
      accountId TEXT NOT NULL REFERENCES accounts(id),
      nifEmisor TEXT NOT NULL,
      idMaquina TEXT NOT NULL,
      etiqueta TEXT NOT NULL,
      tokenHash TEXT NOT NULL UNIQUE,
      keyTestId TEXT NOT NULL REFERENCES api_keys(id),
      keyLiveId TEXT NOT NULL REFERENCES api_keys(id),
      creadoEn TEXT NOT NULL,
      revocadoEn TEXT
    ) STRICT`.execute(db);
  await sql`CREATE UNIQUE INDEX till_credentials_one_active ON till_credentials (accountId, idMaquina) WHERE revocadoEn IS NULL`.execute(db);
  for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
    await sql
      .raw(
        `CREATE TRIGGER till_credentials_${event.toLowerCase()}_bumps_read_cache AFTER ${event} ON till_credentials
         BEGIN UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1; END`,
      )
      .execute(db);
  }
}
