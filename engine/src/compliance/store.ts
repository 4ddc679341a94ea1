import type { Database } from '../db/database';
import type { DeclarationsTable } from '../db/schema/declarations';

/** The published versions of the declaration responsable: the SQL behind DeclarationService. */
export class DeclarationStore {
  constructor(private readonly db: Database) {}

  insert(row: DeclarationsTable): void {
    this.db.run(this.db.kysely.insertInto('declarations').values(row));
  }

  /** The newest version published under `key`. */
  latest(key: string): DeclarationsTable | undefined {
    return this.db.first(this.db.kysely.selectFrom('declarations').selectAll().where('key', '=', key).orderBy('version', 'desc').limit(1));
  }
}
