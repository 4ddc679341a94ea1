import { sql, type Kysely } from 'kysely';

/**
 * A submission's request bytes (≈ 2 MB for 1,000 records) move to a row of their own, written
 * when the submission is built and rewritten only when its bytes change (a rebuilt resend). In
 * the submission's row they were rewritten by every UPDATE of it (each attempt, the answer:
 * ≈ 2.4 MB of WAL per answered submission), and every read of its state walked past them.
 * Existing submissions keep their bytes: copied over before the column goes.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE submission_requests (
      idLote TEXT PRIMARY KEY REFERENCES submission_batches(id),
      peticion TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`INSERT INTO submission_requests (idLote, peticion) SELECT id, peticion FROM submission_batches ORDER BY rowid`.execute(db);
  await sql`ALTER TABLE submission_batches DROP COLUMN peticion`.execute(db);
}
