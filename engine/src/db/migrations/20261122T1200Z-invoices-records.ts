import { sql, type Kysely } from 'kysely';

// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`.execute(db);
  await sql`
    CREATE TABLE invoices (
      id TEXT PRIMARY KEY,
      accountId TEXT NOT NULL REFERENCES accounts(id),
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      nifEmisor TEXT NOT NULL,
      sistemaFiscal TEXT NOT NULL CHECK (sistemaFiscal IN ('verifactu','ticketbai')),
      provincia TEXT,
      serie TEXT NOT NULL,
      numero TEXT NOT NULL,
      fechaExpedicion TEXT NOT NULL,
      numeroFactura TEXT NOT NULL,
      tipoFactura TEXT,
      importeTotal TEXT,
      cuotaTotal TEXT,
      estadoFactura TEXT,
      estadoEnvio TEXT NOT NULL,
      urlValidacion TEXT,
      huella TEXT,
      csvAeat TEXT,
      idTbai TEXT,
      idMaquina TEXT,
      creadoEn TEXT NOT NULL,
      ultimaModificacion TEXT NOT NULL,
      UNIQUE (entorno, nifEmisor, serie, numero, fechaExpedicion)
    ) STRICT`.execute(db);
  // Lists: newest first per issuer, keyset-paginated on (creadoEn, id).
  await sql`CREATE INDEX invoices_list ON invoices(entorno, nifEmisor, creadoEn DESC, id DESC)`.execute(db);
  await sql`
    CREATE TABLE registros (
      id TEXT PRIMARY KEY,
      invoiceId TEXT NOT NULL REFERENCES invoices(id),
      accountId TEXT NOT NULL,
      entorno TEXT NOT NULL,
      nifEmisor TEXT NOT NULL,
      sistemaFiscal TEXT NOT NULL,
      tipo TEXT NOT NULL CHECK (tipo IN ('alta','subsanacion','anulacion')),
      estado TEXT NOT NULL,
      estadoEnvio TEXT NOT NULL,
      estadoEnvioFinal TEXT,
      chainKey TEXT NOT NULL,
      chainSeq INTEGER NOT NULL,
      huella TEXT,
      huellaAnterior TEXT,
      fechaHoraHusoGenRegistro TEXT,
      codigoRespuesta TEXT,
      descripcionRespuesta TEXT,
      csvAeat TEXT,
      idLote TEXT,
      idMaquina TEXT,
      extra TEXT NOT NULL,
      creadoEn TEXT NOT NULL,
      envioCompletadoEn TEXT,
      ultimaModificacion TEXT NOT NULL,
      UNIQUE (chainKey, chainSeq)
    ) STRICT`.execute(db);
  await sql`CREATE INDEX registros_invoice ON registros(invoiceId, creadoEn)`.execute(db);
  // Documents live beside their rows: the rows are updated several times on their way to a final
  // state, and rewriting kilobytes of XML or JSON with each update would multiply disk writes.
  await sql`
    CREATE TABLE registro_documentos (
      registroId TEXT PRIMARY KEY REFERENCES registros(id),
      xml TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE invoice_documentos (
      invoiceId TEXT PRIMARY KEY REFERENCES invoices(id),
      respuesta TEXT,
      datos TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX registros_list ON registros(entorno, nifEmisor, creadoEn DESC, id DESC)`.execute(db);
  await sql`
    CREATE TABLE chains (
      chainKey TEXT PRIMARY KEY,
      length INTEGER NOT NULL,
      lastRegistroId TEXT NOT NULL REFERENCES registros(id),
      lastLink TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE invoice_refs (
      invoiceId TEXT NOT NULL REFERENCES invoices(id),
      entorno TEXT NOT NULL,
      nifEmisor TEXT NOT NULL,
      numeroFactura TEXT NOT NULL,
      fechaExpedicion TEXT NOT NULL,
      tipo TEXT NOT NULL CHECK (tipo IN ('rectificada','sustituida'))
    ) STRICT`.execute(db);
  await sql`CREATE INDEX invoice_refs_target ON invoice_refs(entorno, nifEmisor, numeroFactura, fechaExpedicion)`.execute(db);
  await sql`
    CREATE TABLE submission_jobs (
      id TEXT PRIMARY KEY,
      registroId TEXT NOT NULL UNIQUE REFERENCES registros(id),
      entorno TEXT NOT NULL,
      queueKey TEXT NOT NULL,
      estado TEXT NOT NULL,
      intentos INTEGER NOT NULL,
      siguienteIntentoEn TEXT NOT NULL,
      ultimoError TEXT,
      creadoEn TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX submission_jobs_queue ON submission_jobs(queueKey, estado)`.execute(db);
}
