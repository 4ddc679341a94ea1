// The verifier's read side: its own read-only connection to the database file and one read
// transaction around every query, so it sees one consistent snapshot (WAL) while the engine
// keeps issuing and filing on its own connection. Records stream chain by chain.
import BetterSqlite3 from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql, type Compilable } from 'kysely';
import type { Entorno } from '../../../src-shared/api/common';
import type { ProblemaCadena, VerificacionCadenas } from '../../../src-shared/api/verificacion';
import type { Tables } from '../db/schema';
import { cadenaSinRegistros, VerificadorCadena, type CabezaCadena, type RegistroLeido } from './cadenas';

export interface FiltroVerificacion {
  nif?: string | undefined;
  entorno?: Entorno | undefined;
}

// Kysely only builds the SQL here; better-sqlite3 runs it (and streams it with iterate()).
const q = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

function compilar(query: Compilable): { sql: string; params: unknown[] } {
  const c = query.compile();
  return { sql: c.sql, params: [...c.parameters] };
}

/** Verifies every chain of the database file (optionally one issuer / environment). */
export function verificarCadenas(file: string, filtro: FiltroVerificacion, ahora: Date): VerificacionCadenas {
  const conn = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    conn.pragma('busy_timeout = 5000');
    return conn.transaction(() => leer(conn, filtro, ahora))();
  } finally {
    conn.close();
  }
}

function leer(conn: BetterSqlite3.Database, filtro: FiltroVerificacion, ahora: Date): VerificacionCadenas {
  let registros = q
    .selectFrom('registros as r')
    .leftJoin('invoices as i', 'i.id', 'r.invoiceId')
    .leftJoin('registro_documentos as d', 'd.registroId', 'r.id')
    .select(['r.id', 'r.chainKey', 'r.chainSeq', 'r.entorno', 'r.nifEmisor', 'r.sistemaFiscal', 'r.idMaquina', 'i.serie', 'i.numero', 'd.xml'])
    .orderBy('r.chainKey')
    .orderBy('r.chainSeq');
  let cabezas = q.selectFrom('chains').select(['chainKey', 'length', 'lastRegistroId']);
  // Outbox rows whose record is in no chain: gone, without its XML, or beyond its chain's head.
  let fuera = q
    .selectFrom('submission_jobs as j')
    .leftJoin('registros as r', 'r.id', 'j.registroId')
    .leftJoin('invoices as i', 'i.id', 'r.invoiceId')
    .leftJoin('registro_documentos as d', 'd.registroId', 'r.id')
    .leftJoin('chains as c', 'c.chainKey', 'r.chainKey')
    .select(['j.registroId', 'j.queueKey', 'r.chainKey', 'i.serie', 'i.numero'])
    .where((eb) => eb.or([eb('r.id', 'is', null), eb('d.registroId', 'is', null), eb('c.chainKey', 'is', null), eb('r.chainSeq', '>', eb.ref('c.length'))]));
  if (filtro.nif !== undefined) {
    registros = registros.where('r.nifEmisor', '=', filtro.nif);
    cabezas = cabezas.where(sql<boolean>`instr(chainKey, ${'|' + filtro.nif}) > 0`);
    fuera = fuera.where((eb) => eb.or([eb('r.nifEmisor', '=', filtro.nif ?? ''), eb('j.queueKey', 'like', `%|${filtro.nif ?? ''}`)]));
  }
  if (filtro.entorno !== undefined) {
    registros = registros.where('r.entorno', '=', filtro.entorno);
    cabezas = cabezas.where('chainKey', 'like', `${filtro.entorno}|%`);
    fuera = fuera.where('j.entorno', '=', filtro.entorno);
  }

  const heads = new Map<string, CabezaCadena>();
  const c = compilar(cabezas);
  for (const row of conn.prepare(c.sql).iterate(...c.params) as Iterable<{ chainKey: string } & CabezaCadena>) {
    heads.set(row.chainKey, { length: row.length, lastRegistroId: row.lastRegistroId });
  }

  const result: VerificacionCadenas = { correcto: true, verificadoEn: ahora.toISOString(), cadenas: [], problemas: [] };
  const cerrar = (v: VerificadorCadena) => {
    const { cadena, problemas } = v.terminar(heads.get(v.clave));
    heads.delete(v.clave);
    if (cadena) result.cadenas.push(cadena);
    result.problemas.push(...problemas);
  };
  let actual: VerificadorCadena | undefined;
  const r = compilar(registros);
  for (const row of conn.prepare(r.sql).iterate(...r.params) as Iterable<Omit<RegistroLeido, 'serie' | 'numero'> & { serie: string | null; numero: string | null }>) {
    if (actual?.clave !== row.chainKey) {
      if (actual) cerrar(actual);
      actual = new VerificadorCadena(row.chainKey);
    }
    actual.add({ ...row, serie: row.serie ?? '', numero: row.numero ?? '' });
  }
  if (actual) cerrar(actual);
  // Chains whose head remains but whose records are all gone.
  for (const [clave, cabeza] of heads) {
    const { cadena, problemas } = cadenaSinRegistros(clave, cabeza);
    if (cadena) result.cadenas.push(cadena);
    result.problemas.push(...problemas);
  }

  const f = compilar(fuera);
  for (const row of conn.prepare(f.sql).iterate(...f.params) as Iterable<{ registroId: string; queueKey: string; chainKey: string | null; serie: string | null; numero: string | null }>) {
    const problema: ProblemaCadena = {
      tipo: 'fuera_de_cadena',
      clave: row.chainKey ?? row.queueKey,
      idRegistro: row.registroId,
      serie: row.serie ?? '',
      numero: row.numero ?? '',
    };
    result.problemas.push(problema);
  }
  result.correcto = result.problemas.length === 0;
  return result;
}
