// The verifier's store, whatever the database: the queries over one consistent snapshot, records
// streamed chain by chain into cadenas.ts. Each database gives its own snapshot and streaming
// (instantanea.sqlite.ts; PostgreSQL's below, on the connection instantanea.postgres.ts opens);
// verificarCadenasEn (verificar.ts) picks by dialect.
import { sql, type Compilable, type Kysely } from 'kysely';
import type { Entorno } from '../../../src-shared/api/common';
import type { ProblemaCadena, VerificacionCadenas } from '../../../src-shared/api/verificacion';
import type { Database } from '../db/database';
import type { PostgresDatabase } from '../db/postgres';
import type { Tables } from '../db/schema';
import { cadenaSinRegistros, VerificadorCadena, type CabezaCadena } from './cadenas';

export interface FiltroVerificacion {
  nif?: string | undefined;
  entorno?: Entorno | undefined;
}

/** A snapshot being read: queries built for its dialect, their rows streamed. */
export interface Instantanea {
  readonly dialect: Database['dialect'];
  /** Builds the queries (compiled for the snapshot's dialect). */
  readonly q: Kysely<Tables>;
  filas<R>(query: Compilable<R>): Iterable<R>;
}

/** Verifies every chain the snapshot holds (optionally one issuer / environment). */
export function leerCadenas(snap: Instantanea, filtro: FiltroVerificacion, ahora: Date): VerificacionCadenas {
  const q = snap.q;
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
    // SQLite's instr and PostgreSQL's strpos: the same position of a substring (LIKE would read % and _).
    const posicion = sql.raw(snap.dialect === 'sqlite' ? 'instr' : 'strpos');
    cabezas = cabezas.where(sql<boolean>`${posicion}(${sql.ref('chainKey')}, ${'|' + filtro.nif}) > 0`);
    fuera = fuera.where((eb) => eb.or([eb('r.nifEmisor', '=', filtro.nif ?? ''), eb('j.queueKey', 'like', `%|${filtro.nif ?? ''}`)]));
  }
  if (filtro.entorno !== undefined) {
    registros = registros.where('r.entorno', '=', filtro.entorno);
    cabezas = cabezas.where('chainKey', 'like', `${filtro.entorno}|%`);
    fuera = fuera.where('j.entorno', '=', filtro.entorno);
  }

  const heads = new Map<string, CabezaCadena>();
  for (const row of snap.filas(cabezas)) {
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
  for (const row of snap.filas(registros)) {
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

  for (const row of snap.filas(fuera)) {
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

/**
 * Verifies on PostgreSQL: one REPEATABLE READ READ ONLY transaction on `db` (a connection of its
 * own), so every query reads one snapshot while every node keeps writing; rows through a cursor.
 */
export function leerCadenasPostgres(db: PostgresDatabase, filtro: FiltroVerificacion, ahora: Date): VerificacionCadenas {
  return db.readOnlySnapshot(() => leerCadenas({ dialect: 'postgres', q: db.kysely, filas: (query) => db.cursor(query) }, filtro, ahora));
}
