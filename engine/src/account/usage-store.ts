import { sql } from 'kysely';
import type { Database } from '../db/database';
import type { QuotaUsageTable } from '../db/schema/api-keys';

/** The monthly quota counters per key: the SQL behind UsageMeter. */
export class QuotaUsageStore {
  constructor(private readonly db: Database) {}

  find(keyId: string, periodo: string): QuotaUsageTable | undefined {
    return this.db.first(this.db.kysely.selectFrom('quota_usage').selectAll().where('keyId', '=', keyId).where('periodo', '=', periodo));
  }

  /**
   * Writes a key's counter for the month (inside the caller's transaction when there is one). The
   * count never goes down: on PostgreSQL every node saves the count it last saw, and a node that
   * saw less than another already saved must not take it back.
   */
  save(row: QuotaUsageTable): void {
    this.db.run(
      this.db.kysely
        .insertInto('quota_usage')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['keyId', 'periodo']).doUpdateSet({
            usadas: sql<number>`CASE WHEN quota_usage.usadas > ${row.usadas} THEN quota_usage.usadas ELSE ${row.usadas} END`,
            snapshotUsadas: row.snapshotUsadas,
            snapshotEn: row.snapshotEn,
          }),
        ),
    );
  }
}
