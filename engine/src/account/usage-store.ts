import type { Database } from '../db/database';
import type { QuotaUsageTable } from '../db/schema/api-keys';

/** The monthly quota counters per key: the SQL behind UsageMeter. */
export class QuotaUsageStore {
  constructor(private readonly db: Database) {}

  find(keyId: string, periodo: string): QuotaUsageTable | undefined {
    return this.db.first(this.db.kysely.selectFrom('quota_usage').selectAll().where('keyId', '=', keyId).where('periodo', '=', periodo));
  }

  /** Writes a key's counter for the month (inside the caller's transaction when there is one). */
  save(row: QuotaUsageTable): void {
    this.db.run(
      this.db.kysely
        .insertInto('quota_usage')
        .values(row)
        .onConflict((oc) => oc.columns(['keyId', 'periodo']).doUpdateSet({ usadas: row.usadas, snapshotUsadas: row.snapshotUsadas, snapshotEn: row.snapshotEn })),
    );
  }
}
