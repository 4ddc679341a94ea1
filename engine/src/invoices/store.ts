import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import type {
  ChainsTable,
  EstadoFactura,
  InvoicesTable,
  RegistrosTable,
  TipoRegistro,
} from '../db/schema/invoices';
import type { CursorPosition } from '../core/pagination';
import type { IdGenerator } from '../platform/ids';

export type InvoiceRow = InvoicesTable;
export type RegistroRow = RegistrosTable;
export interface InvoiceDocs {
  respuesta: string | null;
  datos: string | null;
}

export interface InvoiceIdentity {
  entorno: Entorno;
  nifEmisor: string;
  serie: string;
  numero: string;
  fechaExpedicion: string;
}

export interface ChainHead<Link> {
  length: number;
  lastRegistroId: string;
  link: Link;
}

export interface InvoiceListFilter {
  entorno: Entorno;
  nifEmisor: string;
  desde?: string | undefined;
  hasta?: string | undefined;
  estadoFactura?: EstadoFactura | undefined;
  sistemaFiscal?: 'verifactu' | 'ticketbai' | undefined;
  after?: CursorPosition | undefined;
  limit: number;
}

type Values = Record<string, string | number | null>;

/** A record as it is created: pending, not yet in any submission. */
export function nuevoRegistro(
  r: Pick<RegistroRow, 'id' | 'invoiceId' | 'accountId' | 'entorno' | 'nifEmisor' | 'sistemaFiscal' | 'tipo' | 'chainKey' | 'chainSeq' | 'idMaquina'> &
    Partial<Pick<RegistroRow, 'huella' | 'huellaAnterior' | 'fechaHoraHusoGenRegistro'>> & { extra: Record<string, unknown>; now: string },
): RegistroRow {
  const { extra, now, ...fields } = r;
  return {
    huella: null,
    huellaAnterior: null,
    fechaHoraHusoGenRegistro: null,
    ...fields,
    estado: 'pendiente',
    estadoEnvio: 'pendiente_proceso',
    estadoEnvioFinal: null,
    codigoRespuesta: null,
    descripcionRespuesta: null,
    csvAeat: null,
    idLote: null,
    extra: JSON.stringify(extra),
    creadoEn: now,
    envioCompletadoEn: null,
    ultimaModificacion: now,
  };
}

// Column lists of the hot inserts; a row type change that misses one fails its first insert.
const INVOICE_COLUMNS = [
  'id', 'accountId', 'entorno', 'nifEmisor', 'sistemaFiscal', 'provincia', 'serie', 'numero', 'fechaExpedicion',
  'numeroFactura', 'tipoFactura', 'importeTotal', 'cuotaTotal', 'estadoFactura', 'estadoEnvio', 'urlValidacion',
  'huella', 'csvAeat', 'idTbai', 'idMaquina', 'creadoEn', 'ultimaModificacion',
] as const satisfies readonly (keyof InvoicesTable)[];
const REGISTRO_COLUMNS = [
  'id', 'invoiceId', 'accountId', 'entorno', 'nifEmisor', 'sistemaFiscal', 'tipo', 'estado', 'estadoEnvio',
  'estadoEnvioFinal', 'chainKey', 'chainSeq', 'huella', 'huellaAnterior', 'fechaHoraHusoGenRegistro',
  'codigoRespuesta', 'descripcionRespuesta', 'csvAeat', 'idLote', 'idMaquina', 'extra', 'creadoEn',
  'envioCompletadoEn', 'ultimaModificacion',
] as const satisfies readonly (keyof RegistrosTable)[];
const JOB_COLUMNS = [
  'id', 'registroId', 'entorno', 'queueKey', 'estado', 'intentos', 'siguienteIntentoEn', 'ultimoError', 'creadoEn', 'idLote',
] as const;

/** SQL of invoices, records, chain heads, references and the submission outbox. */
export class InvoiceStore {
  /** The statements every issuing request runs, built once (see Database.prepare). */
  private readonly hot;
  constructor(
    private readonly db: Database,
    private readonly ids: IdGenerator,
    /** Told, after COMMIT, of every record queued for submission (wakes the submission worker). */
    private readonly onEnqueued: (queueKey: string) => void = () => {},
  ) {
    const k = db.kysely;
    const insertAll = <T extends 'invoices' | 'registros' | 'submission_jobs'>(table: T, columns: readonly string[]) =>
      db.prepare<never, string>((slot) =>
        k.insertInto(table).values(Object.fromEntries(columns.map((c) => [c, slot(c)])) as never),
      );
    this.hot = {
      byIdentity: db.prepare<InvoiceRow, keyof InvoiceIdentity>((slot) =>
        k
          .selectFrom('invoices')
          .selectAll()
          .where('entorno', '=', slot('entorno') as Entorno)
          .where('nifEmisor', '=', slot('nifEmisor'))
          .where('serie', '=', slot('serie'))
          .where('numero', '=', slot('numero'))
          .where('fechaExpedicion', '=', slot('fechaExpedicion')),
      ),
      chainHead: db.prepare<{ length: number; lastRegistroId: string; lastLink: string }, 'chainKey'>((slot) =>
        k.selectFrom('chains').select(['length', 'lastRegistroId', 'lastLink']).where('chainKey', '=', slot('chainKey')),
      ),
      upsertChain: db.prepare<never, 'chainKey' | 'length' | 'lastRegistroId' | 'lastLink'>((slot) =>
        k
          .insertInto('chains')
          .values({ chainKey: slot('chainKey'), length: slot('length') as unknown as number, lastRegistroId: slot('lastRegistroId'), lastLink: slot('lastLink') })
          .onConflict((oc) =>
            oc.column('chainKey').doUpdateSet((eb) => ({
              length: eb.ref('excluded.length'),
              lastRegistroId: eb.ref('excluded.lastRegistroId'),
              lastLink: eb.ref('excluded.lastLink'),
            })),
          ),
      ),
      insertInvoice: insertAll('invoices', INVOICE_COLUMNS),
      insertRegistro: insertAll('registros', REGISTRO_COLUMNS),
      insertJob: insertAll('submission_jobs', JOB_COLUMNS),
      insertInvoiceDocs: db.prepare<never, 'invoiceId' | 'respuesta' | 'datos'>((slot) =>
        k.insertInto('invoice_documentos').values({ invoiceId: slot('invoiceId'), respuesta: slot('respuesta'), datos: slot('datos') }),
      ),
      insertRegistroXml: db.prepare<never, 'registroId' | 'xml'>((slot) =>
        k.insertInto('registro_documentos').values({ registroId: slot('registroId'), xml: slot('xml') }),
      ),
    };
  }

  findByIdentity(identity: InvoiceIdentity): InvoiceRow | undefined {
    return this.hot.byIdentity.first({ ...identity });
  }

  getInvoice(id: string): InvoiceRow | undefined {
    return this.db.first(this.db.kysely.selectFrom('invoices').selectAll().where('id', '=', id));
  }

  insertInvoice(row: InvoiceRow, docs: InvoiceDocs = { respuesta: null, datos: null }): void {
    this.hot.insertInvoice.run(row as unknown as Values);
    this.hot.insertInvoiceDocs.run({ invoiceId: row.id, ...docs });
  }

  updateInvoice(id: string, changes: Partial<InvoiceRow>, docs?: Partial<InvoiceDocs>): void {
    if (Object.keys(changes).length > 0) this.db.run(this.db.kysely.updateTable('invoices').set(changes).where('id', '=', id));
    if (docs && Object.keys(docs).length > 0) {
      this.db.run(this.db.kysely.updateTable('invoice_documentos').set(docs).where('invoiceId', '=', id));
    }
  }

  invoiceDocs(id: string): InvoiceDocs {
    return (
      this.db.first(this.db.kysely.selectFrom('invoice_documentos').select(['respuesta', 'datos']).where('invoiceId', '=', id)) ?? {
        respuesta: null,
        datos: null,
      }
    );
  }

  registroXml(id: string): string | undefined {
    return this.db.first(this.db.kysely.selectFrom('registro_documentos').select('xml').where('registroId', '=', id))?.xml;
  }

  chainHead<Link>(chainKey: string): ChainHead<Link> | undefined {
    const row = this.hot.chainHead.first({ chainKey });
    return row ? { length: row.length, lastRegistroId: row.lastRegistroId, link: JSON.parse(row.lastLink) as Link } : undefined;
  }

  /**
   * Appends a record to its chain. UNIQUE(chainKey, chainSeq) makes a fork impossible even if two
   * writers ever raced: the second insert fails and its transaction rolls back.
   */
  appendRegistro<Link>(row: RegistroRow, link: Link, xml: string): void {
    this.hot.insertRegistro.run(row as unknown as Values);
    this.hot.insertRegistroXml.run({ registroId: row.id, xml });
    this.hot.upsertChain.run({ chainKey: row.chainKey, length: row.chainSeq, lastRegistroId: row.id, lastLink: JSON.stringify(link) });
  }

  /** The outbox row, in the same transaction as the record (DESIGN.md §4). */
  enqueueSubmission(registro: RegistroRow, queueKey: string, now: string): void {
    this.hot.insertJob.run({
      id: this.ids.next('job'),
      registroId: registro.id,
      entorno: registro.entorno,
      queueKey,
      estado: 'pendiente',
      intentos: 0,
      siguienteIntentoEn: now,
      ultimoError: null,
      creadoEn: now,
      idLote: null,
    });
    this.db.onCommit(() => this.onEnqueued(queueKey));
  }

  insertRefs(
    invoiceId: string,
    entorno: Entorno,
    nifEmisor: string,
    refs: readonly { numeroFactura: string; fechaExpedicion: string }[],
    tipo: 'rectificada' | 'sustituida',
  ): void {
    for (const ref of refs) {
      this.db.run(
        this.db.kysely
          .insertInto('invoice_refs')
          .values({ invoiceId, entorno, nifEmisor, numeroFactura: ref.numeroFactura, fechaExpedicion: ref.fechaExpedicion, tipo }),
      );
    }
  }

  /** Drops the references of an invoice (a correction writes its own again). */
  deleteRefs(invoiceId: string): void {
    this.db.run(this.db.kysely.deleteFrom('invoice_refs').where('invoiceId', '=', invoiceId));
  }

  /** Invoices that rectify or substitute the given one and are not cancelled. */
  liveReferrers(entorno: Entorno, nifEmisor: string, numeroFactura: string, fechaExpedicion: string): InvoiceRow[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('invoice_refs')
        .innerJoin('invoices', 'invoices.id', 'invoice_refs.invoiceId')
        .selectAll('invoices')
        .where('invoice_refs.entorno', '=', entorno)
        .where('invoice_refs.nifEmisor', '=', nifEmisor)
        .where('invoice_refs.numeroFactura', '=', numeroFactura)
        .where('invoice_refs.fechaExpedicion', '=', fechaExpedicion)
        .where((eb) => eb.or([eb('invoices.estadoFactura', 'is', null), eb('invoices.estadoFactura', '!=', 'anulada')])),
    );
  }

  registrosOf(invoiceId: string): RegistroRow[] {
    return this.db.all(
      this.db.kysely.selectFrom('registros').selectAll().where('invoiceId', '=', invoiceId).orderBy('chainSeq', 'desc'),
    );
  }

  latestRegistro(invoiceId: string, tipos: readonly TipoRegistro[]): RegistroRow | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('registros')
        .selectAll()
        .where('invoiceId', '=', invoiceId)
        .where('tipo', 'in', tipos)
        .orderBy('chainSeq', 'desc')
        .limit(1),
    );
  }

  getRegistro(id: string): RegistroRow | undefined {
    return this.db.first(this.db.kysely.selectFrom('registros').selectAll().where('id', '=', id));
  }

  listInvoices(filter: InvoiceListFilter): InvoiceRow[] {
    let q = this.db.kysely
      .selectFrom('invoices')
      .selectAll()
      .where('entorno', '=', filter.entorno)
      .where('nifEmisor', '=', filter.nifEmisor);
    if (filter.desde) q = q.where('creadoEn', '>=', filter.desde);
    if (filter.hasta) q = q.where('creadoEn', '<=', filter.hasta);
    if (filter.estadoFactura) q = q.where('estadoFactura', '=', filter.estadoFactura);
    if (filter.sistemaFiscal) q = q.where('sistemaFiscal', '=', filter.sistemaFiscal);
    const after = filter.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([eb('creadoEn', '<', after.creadoEn), eb.and([eb('creadoEn', '=', after.creadoEn), eb('id', '<', after.id)])]),
      );
    }
    return this.db.all(q.orderBy('creadoEn', 'desc').orderBy('id', 'desc').limit(filter.limit));
  }

  listRegistros(filter: { entorno: Entorno; nifEmisor: string; after?: CursorPosition | undefined; limit: number }): RegistroRow[] {
    let q = this.db.kysely
      .selectFrom('registros')
      .selectAll()
      .where('entorno', '=', filter.entorno)
      .where('nifEmisor', '=', filter.nifEmisor);
    const after = filter.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([eb('creadoEn', '<', after.creadoEn), eb.and([eb('creadoEn', '=', after.creadoEn), eb('id', '<', after.id)])]),
      );
    }
    return this.db.all(q.orderBy('creadoEn', 'desc').orderBy('id', 'desc').limit(filter.limit));
  }

  /** When the till's last record was generated (the panel's chain view), if it has any. */
  lastRecordAt(entorno: Entorno, nifEmisor: string, idMaquina: string): string | null {
    const row = this.db.first(
      this.db.kysely
        .selectFrom('registros')
        .select((eb) => eb.fn.max('creadoEn').as('en'))
        .where('entorno', '=', entorno)
        .where('nifEmisor', '=', nifEmisor)
        .where('idMaquina', '=', idMaquina),
    );
    return (row?.en as string | null | undefined) ?? null;
  }

  /** The chains of `chainKeys` that exist: their length and last link (the panel's chain view). */
  chainHeads(chainKeys: readonly string[]): Pick<ChainsTable, 'chainKey' | 'length' | 'lastLink'>[] {
    return this.db.all(this.db.kysely.selectFrom('chains').select(['chainKey', 'length', 'lastLink']).where('chainKey', 'in', [...chainKeys]));
  }

  /** Every record of a chain in order, with its XML (tests and support check continuity with it). */
  chain(chainKey: string): (RegistroRow & { xml: string })[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('registros')
        .innerJoin('registro_documentos', 'registro_documentos.registroId', 'registros.id')
        .selectAll('registros')
        .select('registro_documentos.xml')
        .where('chainKey', '=', chainKey)
        .orderBy('chainSeq', 'asc'),
    );
  }
}
