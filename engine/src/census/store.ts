import type { Database } from '../db/database';
import type { CensusVerdictsTable } from '../db/schema/clients';

export type CachedVerdict = CensusVerdictsTable;

/** The local verdict cache: one row per (NIF, normalized name), the freshest census answer. */
export class CensusVerdictStore {
  constructor(private readonly db: Database) {}

  get(nif: string, nombreClave: string): CachedVerdict | undefined {
    return this.db.first(
      this.db.kysely.selectFrom('census_verdicts').selectAll().where('nif', '=', nif).where('nombreClave', '=', nombreClave),
    );
  }

  put(row: CachedVerdict): void {
    this.db.run(
      this.db.kysely
        .insertInto('census_verdicts')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['nif', 'nombreClave']).doUpdateSet({
            estado: row.estado,
            resultadoAeat: row.resultadoAeat,
            nombreRespuesta: row.nombreRespuesta,
            validadoEn: row.validadoEn,
          }),
        ),
    );
  }

  /** Drops verdicts older than `before` (housekeeping; the service never needs them). */
  purgeOlderThan(before: string): number {
    return this.db.run(this.db.kysely.deleteFrom('census_verdicts').where('validadoEn', '<', before));
  }
}
