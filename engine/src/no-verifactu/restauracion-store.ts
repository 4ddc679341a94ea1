// The SQL of event 07 (restauracion.ts): the marker a staged copy carries in `settings`, and the
// installations in «NO VERI*FACTU» the restored database has.
import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import { COPIA_CREADA_EN, MARCA_RESTAURACION } from './copias.sqlite';

export class RestauracionStore {
  constructor(private readonly db: Database) {}

  /** The marker of a restore not logged yet (JSON), if any. */
  marca(): string | undefined {
    return this.db.first(this.db.kysely.selectFrom('settings').select('value').where('key', '=', MARCA_RESTAURACION))?.value;
  }

  /** Clears the marker (and the copy's own time), once its events are written. */
  borrarMarca(): void {
    this.db.run(this.db.kysely.deleteFrom('settings').where('key', 'in', [MARCA_RESTAURACION, COPIA_CREADA_EN]));
  }

  instalacionesNoVerifactu(): { entorno: Entorno; nif: string }[] {
    return this.db.all(this.db.kysely.selectFrom('sif_modos').select(['entorno', 'nif']).where('modoSif', '=', 'no_verifactu').orderBy('entorno').orderBy('nif'));
  }
}
