// The verifier's read side on SQLite: its own read-only connection to the database file and one
// read transaction around every query, so it sees one consistent snapshot (WAL) while the engine
// keeps issuing and filing on its own connection. Records stream chain by chain (iterate()).
import BetterSqlite3 from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { VerificacionCadenas } from '../../../src-shared/api/verificacion';
import type { Tables } from '../db/schema';
import { leerCadenas, type FiltroVerificacion } from './instantanea-store';

// Kysely only builds the SQL here; better-sqlite3 runs it (and streams it with iterate()).
const q = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

/** Verifies every chain of the database file (optionally one issuer / environment). */
export function verificarCadenas(file: string, filtro: FiltroVerificacion, ahora: Date): VerificacionCadenas {
  const conn = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    conn.pragma('busy_timeout = 5000');
    const filas = <R>(query: { compile(): { sql: string; parameters: readonly unknown[] } }): Iterable<R> => {
      const c = query.compile();
      return conn.prepare(c.sql).iterate(...c.parameters) as Iterable<R>;
    };
    return conn.transaction(() => leerCadenas({ dialect: 'sqlite', q, filas }, filtro, ahora))();
  } finally {
    conn.close();
  }
}
