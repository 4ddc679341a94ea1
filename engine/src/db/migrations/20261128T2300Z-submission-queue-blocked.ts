import { sql, type Kysely } from 'kysely';

/**
 * The AEAT code of a whole-request fault that needs a person (4104: the issuer's NIF not identified
 * in the census…) while it holds a queue back: the sync view and the invoice's status read say so,
 * and the queue waits a long interval instead of retrying every few minutes. Null otherwise.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE submission_queues ADD COLUMN codigoBloqueo TEXT`.execute(db);
}
