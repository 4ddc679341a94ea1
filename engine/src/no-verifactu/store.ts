import type { Entorno } from '../../../src-shared/api/common';
import type { Database, PreparedQuery } from '../db/database';
import { onePerDatabase } from '../db/per-database';
import { TransactionReadCache } from '../db/read-cache';
import type { ModoSif, SifEventosCabezaTable, SifEventosTable, SifModoCambiosTable, SifModosTable } from '../db/schema/no-verifactu';

/** Where a period of an installation's records starts: at `desde`, or just after it. */
export interface DesdeInstante {
  desde: string;
  incluido: boolean;
}

/**
 * The installations' modes issuing reads, kept in memory while the read-cache generation stands
 * (db/read-cache.ts TransactionReadCache): inside the issuing transaction too, where the mode is
 * read for the record it stores. Triggers of migration 20261129T0900Z bump the generation on every
 * committed write to `sif_modos`, from any connection or node, so a switch is seen by the next
 * request and the next transaction; a write through this connection (cambiarModo) is noted first.
 * One per Database: every NoVerifactuStore on a connection shares it.
 */
class ModoSifCache extends TransactionReadCache {
  static readonly of = onePerDatabase((db) => new ModoSifCache(db));
}

/**
 * The SQL of the «NO VERI*FACTU» mode: its own tables (the installation's mode and its changes, the
 * event log and its head) and a read model over the ledger's VeriFactu records of one installation
 * (the detection run, exports, the requirement, the summary read them; the ledger's InvoiceStore
 * writes them). Plain kysely: nothing here is SQLite's own. Every method runs in the caller's
 * transaction when there is one; none opens one.
 */
export class NoVerifactuStore {
  // Issuing reads the mode of every VeriFactu request (before and inside its transaction): one
  // prepared statement on the primary key, its answer kept in memory while the read-cache
  // generation stands (ModoSifCache).
  private readonly modoPorEmisor: PreparedQuery<{ modoSif: ModoSif }, 'entorno' | 'nif'>;
  private readonly cache: ModoSifCache;

  constructor(private readonly db: Database) {
    this.modoPorEmisor = db.prepare((slot) =>
      db.kysely.selectFrom('sif_modos').select('modoSif').where('entorno', '=', slot('entorno') as Entorno).where('nif', '=', slot('nif')),
    );
    this.cache = ModoSifCache.of(db);
  }

  // ── Modes ──────────────────────────────────────────────────────────────────────────────────

  modoSif(entorno: Entorno, nif: string): ModoSif | undefined {
    return this.cache.get(`${entorno}\u0000${nif}`, () => this.modoPorEmisor.first({ entorno, nif })?.modoSif);
  }

  modosSif(entorno: Entorno, nifs: readonly string[]): { nif: string; modoSif: ModoSif }[] {
    return this.db.all(this.db.kysely.selectFrom('sif_modos').select(['nif', 'modoSif']).where('entorno', '=', entorno).where('nif', 'in', [...nifs]));
  }

  modo(entorno: Entorno, nif: string): SifModosTable | undefined {
    return this.db.first(this.db.kysely.selectFrom('sif_modos').selectAll().where('entorno', '=', entorno).where('nif', '=', nif));
  }

  /** Sets the installation's mode and records the change. */
  cambiarModo(cambio: SifModoCambiosTable): void {
    const { entorno, nif, modoSif, creadoEn: desde } = cambio;
    this.cache.noteWrite();
    this.db.run(
      this.db.kysely
        .insertInto('sif_modos')
        .values({ entorno, nif, modoSif, desde })
        .onConflict((oc) => oc.columns(['entorno', 'nif']).doUpdateSet({ modoSif, desde })),
    );
    this.db.run(this.db.kysely.insertInto('sif_modo_cambios').values(cambio));
  }

  /** When VERI*FACTU was chosen for the installation at or after `desde` (the first such change). */
  eleccionVerifactuDesde(entorno: Entorno, nif: string, desde: string): string | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('sif_modo_cambios')
        .select('creadoEn')
        .where('entorno', '=', entorno)
        .where('nif', '=', nif)
        .where('modoSif', '=', 'verifactu')
        .where('creadoEn', '>=', desde)
        .limit(1),
    )?.creadoEn;
  }

  /** Installations in «NO VERI*FACTU» mode now. */
  instalacionesNoVerifactu(): { entorno: Entorno; nif: string }[] {
    return this.db.all(this.db.kysely.selectFrom('sif_modos').select(['entorno', 'nif']).where('modoSif', '=', 'no_verifactu'));
  }

  // ── The event log ──────────────────────────────────────────────────────────────────────────

  cabezaEventos(entorno: Entorno, nif: string): SifEventosCabezaTable | undefined {
    return this.db.first(this.db.kysely.selectFrom('sif_eventos_cabeza').selectAll().where('entorno', '=', entorno).where('nif', '=', nif));
  }

  /** Stores an event and makes it the head of its installation's chain. */
  anotarEvento(row: SifEventosTable): void {
    this.db.run(this.db.kysely.insertInto('sif_eventos').values(row));
    const { seq, id: idEvento, tipoEvento, fechaHoraHusoGenEvento, huella } = row;
    this.db.run(
      this.db.kysely
        .insertInto('sif_eventos_cabeza')
        .values({ entorno: row.entorno, nif: row.nif, seq, idEvento, tipoEvento, fechaHoraHusoGenEvento, huella })
        .onConflict((oc) => oc.columns(['entorno', 'nif']).doUpdateSet({ seq, idEvento, tipoEvento, fechaHoraHusoGenEvento, huella })),
    );
  }

  /** The installation's events in chain order. */
  eventos(entorno: Entorno, nif: string): SifEventosTable[] {
    return this.db.all(this.db.kysely.selectFrom('sif_eventos').selectAll().where('entorno', '=', entorno).where('nif', '=', nif).orderBy('seq', 'asc'));
  }

  /** A page, newest first: events with seq below `antesDe`. */
  paginaEventos(entorno: Entorno, nif: string, antesDe: number | undefined, limite: number): SifEventosTable[] {
    let q = this.db.kysely.selectFrom('sif_eventos').selectAll().where('entorno', '=', entorno).where('nif', '=', nif);
    if (antesDe !== undefined) q = q.where('seq', '<', antesDe);
    return this.db.all(q.orderBy('seq', 'desc').limit(limite));
  }

  // ── The installation's records (a read model over the ledger) ─────────────────────────────

  /** When the installation's first VeriFactu record created at or after `desde` that went to the AEAT was created. */
  primerEnvioDesde(entorno: Entorno, nif: string, desde: string): string | undefined {
    return this.db.first(
      this.verifactuDe(entorno, nif)
        .select('registros.creadoEn')
        .where('registros.estadoEnvio', '!=', 'no_remitida')
        .where('registros.creadoEn', '>=', desde)
        .orderBy('registros.creadoEn', 'asc')
        .limit(1),
    )?.creadoEn;
  }

  /** Every VeriFactu record of the installation with its invoice and stored XML, in chain order (anomaly detection). */
  registrosEnCadena(entorno: Entorno, nif: string) {
    return this.db.all(
      this.verifactuDe(entorno, nif)
        .innerJoin('invoices', 'invoices.id', 'registros.invoiceId')
        .leftJoin('registro_documentos', 'registro_documentos.registroId', 'registros.id')
        .select([
          'registros.id', 'registros.chainKey', 'registros.chainSeq', 'registros.entorno', 'registros.nifEmisor', 'registros.sistemaFiscal',
          'registros.idMaquina', 'registros.estadoEnvio', 'invoices.serie', 'invoices.numero', 'invoices.numeroFactura', 'invoices.fechaExpedicion',
          'registro_documentos.xml',
        ])
        .orderBy('registros.chainKey')
        .orderBy('registros.chainSeq'),
    );
  }

  /** A chain's stored head: its length and last record. */
  cabezaCadena(chainKey: string): { length: number; lastRegistroId: string } | undefined {
    return this.db.first(this.db.kysely.selectFrom('chains').select(['length', 'lastRegistroId']).where('chainKey', '=', chainKey));
  }

  /** The installation's VeriFactu records created in [desde, hasta], with their stored XML (exports). */
  registrosDelPeriodo(entorno: Entorno, nif: string, desde: string, hasta: string) {
    return this.db.all(
      this.porCreacion(entorno, nif)
        .innerJoin('invoices', 'invoices.id', 'registros.invoiceId')
        .innerJoin('registro_documentos', 'registro_documentos.registroId', 'registros.id')
        .select([
          'registros.id', 'registros.tipo', 'registros.chainKey', 'registros.chainSeq', 'registros.huella', 'registros.extra', 'registros.creadoEn',
          'invoices.numeroFactura', 'invoices.fechaExpedicion', 'registro_documentos.xml',
        ])
        .where('registros.creadoEn', '>=', desde)
        .where('registros.creadoEn', '<=', hasta),
    );
  }

  /** The signed XML of the installation's kept records (never sent) created in [desde, hasta] (the requirement). */
  conservadosDelPeriodo(entorno: Entorno, nif: string, desde: string, hasta: string): { xml: string }[] {
    return this.db.all(
      this.porCreacion(entorno, nif)
        .innerJoin('registro_documentos', 'registro_documentos.registroId', 'registros.id')
        .select(['registro_documentos.xml'])
        .where('registros.estadoEnvio', '=', 'no_remitida')
        .where('registros.creadoEn', '>=', desde)
        .where('registros.creadoEn', '<=', hasta),
    );
  }

  /** The installation's VeriFactu records created since `desde` (the summary). */
  registrosDesde(entorno: Entorno, nif: string, desde: DesdeInstante) {
    return this.db.all(
      this.porCreacion(entorno, nif)
        .innerJoin('invoices', 'invoices.id', 'registros.invoiceId')
        .select(['registros.tipo', 'registros.huella', 'registros.extra', 'invoices.numeroFactura', 'invoices.fechaExpedicion'])
        .where('registros.creadoEn', desde.incluido ? '>=' : '>', desde.desde),
    );
  }

  /** The installation's VeriFactu records: where every read of them starts. */
  private verifactuDe(entorno: Entorno, nif: string) {
    return this.db.kysely
      .selectFrom('registros')
      .where('registros.entorno', '=', entorno)
      .where('registros.nifEmisor', '=', nif)
      .where('registros.sistemaFiscal', '=', 'verifactu');
  }

  /** The same, in creation order (chains of several devices interleaved as they were issued). */
  private porCreacion(entorno: Entorno, nif: string) {
    return this.verifactuDe(entorno, nif).orderBy('registros.creadoEn').orderBy('registros.chainKey').orderBy('registros.chainSeq');
  }
}
