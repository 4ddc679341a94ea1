import { sql, type Kysely } from 'kysely';

// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      nif TEXT NOT NULL UNIQUE,
      nombre TEXT NOT NULL,
      plan TEXT NOT NULL,
      estadoCuenta TEXT NOT NULL,
      facturacionActiva INTEGER NOT NULL,
      limiteClientesTest INTEGER,
      limiteClientesLive INTEGER,
      creadoEn TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      accountId TEXT NOT NULL REFERENCES accounts(id),
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      keyHash TEXT NOT NULL UNIQUE,
      prefix TEXT NOT NULL,
      creadoEn TEXT NOT NULL,
      revocadoEn TEXT,
      rotatedFromId TEXT REFERENCES api_keys(id)
    ) STRICT`.execute(db);
  await sql`CREATE INDEX api_keys_account ON api_keys(accountId)`.execute(db);
  await sql`
    CREATE TABLE quota_usage (
      keyId TEXT NOT NULL REFERENCES api_keys(id),
      periodo TEXT NOT NULL,
      usadas INTEGER NOT NULL,
      snapshotUsadas INTEGER,
      snapshotEn TEXT,
      PRIMARY KEY (keyId, periodo)
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE issuers (
      id TEXT PRIMARY KEY,
      accountId TEXT NOT NULL REFERENCES accounts(id),
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      nif TEXT NOT NULL,
      nombre TEXT NOT NULL,
      hacienda TEXT NOT NULL,
      estado TEXT NOT NULL,
      estadoRepresentacion TEXT NOT NULL,
      modoCadena TEXT NOT NULL,
      faseAltaCapacidad TEXT NOT NULL,
      creadoEn TEXT NOT NULL,
      ultimaModificacion TEXT NOT NULL,
      UNIQUE (entorno, nif)
    ) STRICT`.execute(db);
  await sql`CREATE INDEX issuers_account ON issuers(accountId, entorno)`.execute(db);
  await sql`
    CREATE TABLE declarations (
      id TEXT PRIMARY KEY,
      key TEXT NOT NULL,
      version INTEGER NOT NULL,
      publicadoEn TEXT NOT NULL,
      html TEXT NOT NULL,
      pdf BLOB NOT NULL,
      UNIQUE (key, version)
    ) STRICT`.execute(db);
}
