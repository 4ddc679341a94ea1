import { sql, type Kysely } from 'kysely';

/** Madrid midnight of 10 September 2026: the own company took no plan seat before it. */
const OWN_COMPANY_SEAT_CUTOFF = '2026-09-09T22:00:00.000Z';

// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE issuer_details (
      issuerId TEXT PRIMARY KEY REFERENCES issuers(id),
      email TEXT,
      tipoUsuario TEXT CHECK (tipoUsuario IN ('autonomo','empresa')),
      direccion TEXT,
      representante TEXT,
      epigrafeIAE TEXT,
      portalHabilitado INTEGER NOT NULL DEFAULT 0 CHECK (portalHabilitado IN (0,1)),
      validacionCensal TEXT,
      eliminadoEn TEXT,
      exentoPlaza INTEGER NOT NULL DEFAULT 0 CHECK (exentoPlaza IN (0,1))
    ) STRICT`.execute(db);
  // Issuers that exist already get their row; an own company created before the cutoff in an
  // account older than it keeps its historical exemption from the seat count.
  await sql`
    INSERT INTO issuer_details (issuerId, exentoPlaza)
    SELECT i.id,
           CASE WHEN i.nif = a.nif AND a.creadoEn < ${OWN_COMPANY_SEAT_CUTOFF} AND i.creadoEn < ${OWN_COMPANY_SEAT_CUTOFF}
                THEN 1 ELSE 0 END
    FROM issuers i JOIN accounts a ON a.id = i.accountId`.execute(db);
  await sql`
    CREATE TABLE census_verdicts (
      nif TEXT NOT NULL,
      nombreClave TEXT NOT NULL,
      estado TEXT NOT NULL,
      resultadoAeat TEXT NOT NULL,
      nombreRespuesta TEXT NOT NULL,
      validadoEn TEXT NOT NULL,
      PRIMARY KEY (nif, nombreClave)
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE representation_documents (
      id TEXT PRIMARY KEY,
      issuerId TEXT NOT NULL REFERENCES issuers(id),
      estado TEXT NOT NULL CHECK (estado IN ('en_curso','firmado','cancelado','sustituido')),
      pdf BLOB NOT NULL,
      sha256 TEXT NOT NULL,
      generadoEn TEXT NOT NULL,
      pdfFirmado BLOB,
      firmadoEn TEXT,
      metodoFirma TEXT,
      firmante TEXT,
      finalizadoEn TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX representation_documents_issuer ON representation_documents(issuerId, estado)`.execute(db);
  // At most one signature in progress per issuer.
  await sql`CREATE UNIQUE INDEX representation_one_in_progress ON representation_documents(issuerId) WHERE estado = 'en_curso'`.execute(
    db,
  );
}
