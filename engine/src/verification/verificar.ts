import type { VerificacionCadenas } from '../../../src-shared/api/verificacion';
import type { Database } from '../db/database';
import type { FiltroVerificacion } from './instantanea-store';
import { verificarCadenasPostgres } from './instantanea.postgres';
import { verificarCadenas } from './instantanea.sqlite';

/** The chain verifier on the engine's database, SQLite file or PostgreSQL (db.file is then its URL). */
export function verificarCadenasEn(db: Pick<Database, 'dialect' | 'file'>, filtro: FiltroVerificacion, ahora: Date): VerificacionCadenas {
  return db.dialect === 'postgres' ? verificarCadenasPostgres(db.file, filtro, ahora) : verificarCadenas(db.file, filtro, ahora);
}
