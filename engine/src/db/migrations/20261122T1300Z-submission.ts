import { sql, type Kysely } from 'kysely';

// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE submission_queues (
      queueKey TEXT PRIMARY KEY,
      entorno TEXT NOT NULL,
      autoridad TEXT NOT NULL,
      obligado TEXT NOT NULL,
      siguienteEnvioEn TEXT,
      reintentoEn TEXT,
      fallosSeguidos INTEGER NOT NULL,
      ultimoError TEXT,
      ultimoErrorEn TEXT,
      alcanzable INTEGER
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE submission_batches (
      id TEXT PRIMARY KEY,
      queueKey TEXT NOT NULL,
      entorno TEXT NOT NULL,
      autoridad TEXT NOT NULL,
      obligado TEXT NOT NULL,
      numRegistros INTEGER NOT NULL,
      incidencia INTEGER NOT NULL,
      peticion TEXT NOT NULL,
      estado TEXT NOT NULL,
      intentos INTEGER NOT NULL,
      respuesta TEXT,
      csv TEXT,
      estadoEnvio TEXT,
      creadoEn TEXT NOT NULL,
      enviadoEn TEXT,
      respondidoEn TEXT,
      ultimoError TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX submission_batches_queue ON submission_batches(queueKey, estado, creadoEn)`.execute(db);
  await sql`ALTER TABLE submission_jobs ADD COLUMN idLote TEXT`.execute(db);
  await sql`CREATE INDEX submission_jobs_lote ON submission_jobs(idLote)`.execute(db);
  await sql`CREATE INDEX registros_lote ON registros(idLote) WHERE idLote IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE events (
      id TEXT PRIMARY KEY,
      evento TEXT NOT NULL,
      accountId TEXT NOT NULL,
      entorno TEXT NOT NULL,
      nifEmisor TEXT NOT NULL,
      invoiceId TEXT NOT NULL REFERENCES invoices(id),
      registroId TEXT NOT NULL REFERENCES registros(id),
      datos TEXT NOT NULL,
      creadoEn TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX events_invoice ON events(invoiceId)`.execute(db);
  // The sync view counts records still in flight; a partial index keeps that cheap at any size.
  await sql`CREATE INDEX registros_in_flight ON registros(entorno, estadoEnvio) WHERE estadoEnvioFinal IS NULL`.execute(db);
  await sql`
    CREATE TABLE submission_control (
      entorno TEXT PRIMARY KEY,
      pausado INTEGER NOT NULL
    ) STRICT`.execute(db);
}
