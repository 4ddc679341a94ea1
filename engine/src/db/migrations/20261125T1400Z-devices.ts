import { sql, type Kysely } from 'kysely';

// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The high-capacity phase belongs to the issuer's account and is one value for TEST and LIVE.
  // `modoCadena` is what issuing reads; it follows the phase (per device only in `activa`).
  await sql`
    CREATE TABLE issuer_phases (
      accountId TEXT NOT NULL REFERENCES accounts(id),
      nif TEXT NOT NULL,
      faseAltaCapacidad TEXT NOT NULL CHECK (faseAltaCapacidad IN ('no_contratada','preparacion','activa')),
      modoCadena TEXT NOT NULL CHECK (modoCadena IN ('unica','por_dispositivo')),
      observandoDesde TEXT,
      activacionSolicitadaEn TEXT,
      ultimaModificacion TEXT NOT NULL,
      PRIMARY KEY (accountId, nif),
      CHECK ((faseAltaCapacidad = 'activa') = (modoCadena = 'por_dispositivo'))
    ) STRICT`.execute(db);
  // The per-environment columns become one row per (account, NIF): the furthest phase either
  // environment had wins (no data has anything but no_contratada/unica when this lands).
  await sql`
    INSERT INTO issuer_phases (accountId, nif, faseAltaCapacidad, modoCadena, observandoDesde, activacionSolicitadaEn, ultimaModificacion)
    SELECT accountId, nif,
           CASE max(CASE faseAltaCapacidad WHEN 'activa' THEN 2 WHEN 'preparacion' THEN 1 ELSE 0 END)
             WHEN 2 THEN 'activa' WHEN 1 THEN 'preparacion' ELSE 'no_contratada' END,
           CASE max(CASE faseAltaCapacidad WHEN 'activa' THEN 2 ELSE 0 END) WHEN 2 THEN 'por_dispositivo' ELSE 'unica' END,
           CASE max(CASE faseAltaCapacidad WHEN 'activa' THEN 2 WHEN 'preparacion' THEN 1 ELSE 0 END)
             WHEN 1 THEN max(ultimaModificacion) END,
           NULL,
           max(ultimaModificacion)
    FROM issuers
    WHERE faseAltaCapacidad != 'no_contratada'
    GROUP BY accountId, nif`.execute(db);
  await sql`ALTER TABLE issuers DROP COLUMN modoCadena`.execute(db);
  await sql`ALTER TABLE issuers DROP COLUMN faseAltaCapacidad`.execute(db);

  // Device registries are per environment; an identifier is never renamed or reused.
  await sql`
    CREATE TABLE devices (
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      nif TEXT NOT NULL,
      idMaquina TEXT NOT NULL,
      etiqueta TEXT NOT NULL DEFAULT '',
      creadoEn TEXT NOT NULL,
      activo INTEGER NOT NULL CHECK (activo IN (0,1)),
      dadoDeBajaEn TEXT,
      reactivadoEn TEXT,
      numeroInstalacion TEXT,
      PRIMARY KEY (entorno, nif, idMaquina)
    ) STRICT`.execute(db);
  await sql`CREATE UNIQUE INDEX devices_numero_instalacion ON devices(numeroInstalacion) WHERE numeroInstalacion IS NOT NULL`.execute(db);

  // A series belongs to one writer for ever: a device or __SHARD0__ (the centralized submission).
  await sql`
    CREATE TABLE device_series (
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      nif TEXT NOT NULL,
      serie TEXT NOT NULL,
      idMaquinaPropietaria TEXT NOT NULL,
      reclamadaEn TEXT NOT NULL,
      reservada INTEGER NOT NULL CHECK (reservada IN (0,1)),
      PRIMARY KEY (entorno, nif, serie),
      CHECK (reservada = 0 OR idMaquinaPropietaria = '__SHARD0__')
    ) STRICT`.execute(db);

  // idMaquina values seen on issuing traffic while the issuer is in preparation.
  await sql`
    CREATE TABLE device_observations (
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      nif TEXT NOT NULL,
      idMaquina TEXT NOT NULL,
      primeraVez TEXT NOT NULL,
      ultimaVez TEXT NOT NULL,
      PRIMARY KEY (entorno, nif, idMaquina)
    ) STRICT`.execute(db);
}
