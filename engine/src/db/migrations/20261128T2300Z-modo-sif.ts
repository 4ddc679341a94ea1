import { sql, type Kysely } from 'kysely';

/**
 * The «NO VERI*FACTU» mode (issue 32). `sif_modos`: the mode of an issuer's installation per
 * environment (no row: `verifactu`, the default). `sif_modo_cambios`: every change, kept for
 * the calendar-year rule and for support. `sif_eventos`: the signed, hash-chained event log
 * (RegistroEvento, EventosSIF.xsd), one chain per installation (environment + issuer), and its
 * head in `sif_eventos_cabeza` so a deleted last event is found too.
 */
// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sif_modos (
      entorno TEXT NOT NULL,
      nif TEXT NOT NULL,
      modoSif TEXT NOT NULL CHECK (modoSif IN ('verifactu', 'no_verifactu')),
      desde TEXT NOT NULL,
      PRIMARY KEY (entorno, nif)
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE sif_modo_cambios (
      id TEXT PRIMARY KEY,
      entorno TEXT NOT NULL,
      nif TEXT NOT NULL,
      modoSif TEXT NOT NULL CHECK (modoSif IN ('verifactu', 'no_verifactu')),
      creadoEn TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX sif_modo_cambios_issuer ON sif_modo_cambios (entorno, nif, creadoEn)`.execute(db);
  await sql`
    CREATE TABLE sif_eventos (
      id TEXT PRIMARY KEY,
      entorno TEXT NOT NULL,
      nif TEXT NOT NULL,
      seq INTEGER NOT NULL,
      tipoEvento TEXT NOT NULL,
      fechaHoraHusoGenEvento TEXT NOT NULL,
      huella TEXT NOT NULL,
      huellaAnterior TEXT,
      xml TEXT NOT NULL,
      creadoEn TEXT NOT NULL,
      UNIQUE (entorno, nif, seq)
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE sif_eventos_cabeza (
      entorno TEXT NOT NULL,
      nif TEXT NOT NULL,
      seq INTEGER NOT NULL,
      idEvento TEXT NOT NULL,
      tipoEvento TEXT NOT NULL,
      fechaHoraHusoGenEvento TEXT NOT NULL,
      huella TEXT NOT NULL,
      PRIMARY KEY (entorno, nif)
    ) STRICT`.execute(db);
}
