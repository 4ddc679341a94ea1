// Event 07 of the «NO VERI*FACTU» event log: «Restauración de copia de seguridad, cuando ésta se
// gestione desde el propio sistema informático de facturación» (EventosSIF.xsd, TipoEventoType).
// So the engine manages its own copies and writes 07 when it restores one:
//   - `npm run admin -- copia crear [--a FICHERO]`: a consistent copy of the database made with
//     SQLite's online backup (also while the engine runs), its time written into the copy;
//   - `npm run admin -- copia restaurar FICHERO`: the copy is checked (an engine database that
//     passes SQLite's integrity check), staged as `<data>/restauracion-pendiente.sqlite` with a
//     marker inside it, and swapped in by the engine at its next start, before it opens its
//     database (a running engine never has its database replaced under it). The database it
//     replaces is kept beside it (`engine.sqlite.antes-de-restaurar-<instant>`). The file work is
//     copias.sqlite.ts (SQLite's own API); the SQL of the marker, restauracion-store.ts.
//   - At that start, every installation the restored database has in «NO VERI*FACTU» gets event
//     07 in its log, in one transaction that also clears the marker: a crash before it leaves the
//     marker, and the next start writes the events (never twice, never lost).
// A database file copied back by hand, outside the engine, is not a restore the engine manages:
// nothing is written for it (the XSD's condition), and a restored copy's event chain is whole, so
// anomaly detection finds nothing either; the admin CLI is the supported way.
import type { IssuerStore } from '../clients/store';
import type { Database } from '../db/database';
import type { SifEventosTable } from '../db/schema/no-verifactu';
import type { MarcaRestauracion } from './copias.sqlite';
import { TIPOS_EVENTO, type RegistroEventos } from './eventos';
import type { RestauracionStore } from './restauracion-store';

/** Writes event 07 after a restore the engine made (the marker the staged copy carries). */
export class RestauracionesNoVerifactu {
  constructor(private readonly deps: { db: Database; store: RestauracionStore; eventos: RegistroEventos; issuers: IssuerStore }) {}

  /** The events written (none when nothing was restored since the last start). */
  anotarPendiente(): SifEventosTable[] {
    const { db, store, eventos, issuers } = this.deps;
    return db.transaction(() => {
      const raw = store.marca();
      if (raw === undefined) return [];
      const marca = JSON.parse(raw) as MarcaRestauracion;
      const anotados: SifEventosTable[] = [];
      for (const r of store.instalacionesNoVerifactu()) {
        const issuer = issuers.find(r.entorno, r.nif);
        if (issuer === undefined) continue;
        anotados.push(
          eventos.anotar(r.entorno, { nif: issuer.nif, nombre: issuer.nombre }, {
            tipoEvento: TIPOS_EVENTO.restauracionCopia,
            // OtrosDatosEvento (≤ 100): which copy, of when.
            otrosDatos: `Copia de ${marca.copiaCreadaEn} restaurada: ${marca.copia}`.slice(0, 100),
          }),
        );
      }
      store.borrarMarca();
      return anotados;
    });
  }
}
