// The engine's own backups, on SQLite's files (restauracion.ts says why they exist: event 07):
// a consistent copy (SQLite's online backup), a copy checked and staged for the next start, and
// the swap at that start before the database is opened. SQLite's own API: a `.sqlite.ts` module.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { EngineError } from '../core/errors';

const MAIN = 'engine.sqlite';
const PENDIENTE = 'restauracion-pendiente.sqlite';
/** Setting inside a staged copy: what was restored (JSON `MarcaRestauracion`). */
export const MARCA_RESTAURACION = 'restauracionPendiente';
/** Setting inside a copy made by `copia crear`: when it was made. */
export const COPIA_CREADA_EN = 'copiaCreadaEn';

export interface MarcaRestauracion {
  /** The copy's file name, as the operator gave it. */
  copia: string;
  /** When the copy was made (its own record of it, else the file's modification time). */
  copiaCreadaEn: string;
  preparadaEn: string;
}

/** Tables any engine database has had since the first migrations: what tells an engine database apart. */
const TABLAS_MOTOR = ['settings', 'accounts', 'invoices', 'registros'];

const copiaNoValida = (motivo: string) =>
  new EngineError(400, 'VALIDATION_ERROR', `La copia no es una base de datos del motor que pueda restaurarse: ${motivo}`, { campo: 'copia' });

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `20261120T100000Z` from an instant: file names that sort by time and hold no colon. */
function sello(instant: Date): string {
  return instant.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** A consistent copy of the engine's database (SQLite online backup), its time recorded inside. */
export async function crearCopia(dataDir: string, now: Date, destino?: string): Promise<{ fichero: string; copiaCreadaEn: string }> {
  const fichero = path.resolve(destino ?? path.join(dataDir, 'copias', `engine-${sello(now)}.sqlite`));
  if (existsSync(fichero)) throw new EngineError(400, 'VALIDATION_ERROR', `Ya existe ${fichero}: la copia no lo sobrescribe`, { campo: 'destino' });
  mkdirSync(path.dirname(fichero), { recursive: true, mode: 0o700 });
  const origen = new BetterSqlite3(path.join(dataDir, MAIN), { fileMustExist: true });
  try {
    origen.pragma('busy_timeout = 5000');
    await origen.backup(fichero);
  } finally {
    origen.close();
  }
  const copia = new BetterSqlite3(fichero);
  try {
    copia.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(COPIA_CREADA_EN, now.toISOString());
  } finally {
    copia.close();
  }
  return { fichero, copiaCreadaEn: now.toISOString() };
}

/**
 * Checks a copy and stages it for the engine's next start. Returns what will be restored: the
 * copy's time and the installations in «NO VERI*FACTU» whose logs will get event 07.
 */
export async function prepararRestauracion(
  dataDir: string,
  copia: string,
  now: Date,
): Promise<{ pendiente: string; copiaCreadaEn: string; instalaciones: { entorno: string; nif: string }[]; aviso: string }> {
  const fichero = path.resolve(copia);
  if (!existsSync(fichero)) throw copiaNoValida(`no existe ${fichero}`);
  if (fichero === path.resolve(dataDir, MAIN)) throw copiaNoValida('es la base de datos en uso');
  const temporal = path.join(dataDir, `${PENDIENTE}.tmp`);
  let origen: BetterSqlite3.Database;
  try {
    origen = new BetterSqlite3(fichero, { readonly: true, fileMustExist: true });
    origen.pragma('schema_version');
  } catch (error) {
    throw copiaNoValida(error instanceof Error ? error.message : String(error));
  }
  try {
    const tablas = new Set((origen.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
    const faltan = TABLAS_MOTOR.filter((t) => !tablas.has(t));
    if (faltan.length > 0) throw copiaNoValida(`le faltan las tablas ${faltan.join(', ')}`);
    const integridad = origen.pragma('integrity_check', { simple: true });
    if (integridad !== 'ok') throw copiaNoValida(`la comprobación de integridad de SQLite dice «${String(integridad)}»`);
    await origen.backup(temporal);
  } finally {
    origen.close();
  }
  const staged = new BetterSqlite3(temporal);
  let marca: MarcaRestauracion;
  let instalaciones: { entorno: string; nif: string }[] = [];
  try {
    const creada = staged.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(COPIA_CREADA_EN) as string | undefined;
    marca = { copia: path.basename(fichero), copiaCreadaEn: creada ?? statSync(fichero).mtime.toISOString(), preparadaEn: now.toISOString() };
    staged.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(MARCA_RESTAURACION, JSON.stringify(marca));
    const conModos = staged.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sif_modos'").get() !== undefined;
    if (conModos) {
      instalaciones = staged.prepare("SELECT entorno, nif FROM sif_modos WHERE modoSif = 'no_verifactu' ORDER BY entorno, nif").all() as { entorno: string; nif: string }[];
    }
  } finally {
    staged.close();
  }
  const pendiente = path.join(dataDir, PENDIENTE);
  renameSync(temporal, pendiente);
  syncDir(dataDir);
  return {
    pendiente,
    copiaCreadaEn: marca.copiaCreadaEn,
    instalaciones,
    aviso: 'La copia se restaura al arrancar de nuevo el motor (la base de datos actual se conserva al lado)',
  };
}

/**
 * At the engine's start, before its database is opened: swaps a staged copy in. The database it
 * replaces is checkpointed (its WAL folded in) and kept beside it. Every step can be repeated
 * after a crash: a staged copy with no database in place is simply moved in.
 */
export function aplicarRestauracionPendiente(dataDir: string, now: Date): { anterior: string | null } | undefined {
  const pendiente = path.join(dataDir, PENDIENTE);
  if (!existsSync(pendiente)) return undefined;
  const main = path.join(dataDir, MAIN);
  let anterior: string | null = null;
  if (existsSync(main)) {
    const actual = new BetterSqlite3(main);
    try {
      actual.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      actual.close();
    }
    anterior = `${main}.antes-de-restaurar-${sello(now)}`;
    renameSync(main, anterior);
    for (const extra of ['-wal', '-shm']) if (existsSync(main + extra)) renameSync(main + extra, anterior + extra);
  }
  renameSync(pendiente, main);
  syncDir(dataDir);
  return { anterior };
}
