import { sql, type Kysely } from 'kysely';

/**
 * A job is queued without a submission (idLote NULL) and gets one only when the drain takes it,
 * yet the full index on idLote took an entry for every queued job inside the issuing transaction.
 * Partial, like registros_lote: issuing writes one B-tree less per invoice; every read by idLote
 * (`idLote = ?` implies NOT NULL) still uses it.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX submission_jobs_lote`.execute(db);
  await sql`CREATE INDEX submission_jobs_lote ON submission_jobs(idLote) WHERE idLote IS NOT NULL`.execute(db);
}
