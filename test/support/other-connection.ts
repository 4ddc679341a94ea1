import { SqliteDatabase, type Database } from '../../engine/src/db/database';
import { PostgresDatabase } from '../../engine/src/db/postgres';

/** Another connection to the engine's database, as another process (a second node, the admin command line) opens it. */
export function otherConnection(db: Database): Database {
  return db.dialect === 'postgres' ? new PostgresDatabase(db.file) : new SqliteDatabase(db.file);
}
