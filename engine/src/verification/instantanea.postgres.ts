// The verifier's read side on PostgreSQL: its own connection and one REPEATABLE READ READ ONLY
// transaction around every query, so it reads one consistent snapshot while every node keeps
// issuing and filing; records stream chain by chain through a cursor. It runs on the calling
// thread: the libpq binding loads on the main thread only (db/postgres.ts).
import type { VerificacionCadenas } from '../../../src-shared/api/verificacion';
import { PostgresDatabase } from '../db/postgres';
import { leerCadenasPostgres, type FiltroVerificacion } from './instantanea-store';

/** Verifies every chain of the database at `url` (optionally one issuer / environment). */
export function verificarCadenasPostgres(url: string, filtro: FiltroVerificacion, ahora: Date): VerificacionCadenas {
  const db = new PostgresDatabase(url);
  try {
    return leerCadenasPostgres(db, filtro, ahora);
  } finally {
    void db.close();
  }
}
