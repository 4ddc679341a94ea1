import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import type {
  EstadoFactura,
  InvoicesTable,
  RegistrosTable,
  TipoRegistro,
} from '../db/schema/invoices';
import type { CursorPosition } from '../http/pagination';
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

/** SQL of invoices, records, chain heads, references and the submission outbox. */
export class InvoiceStore {
  constructor(
    private readonly db: Database,
    private readonly ids: IdGenerator,
  ) {}

  findByIdentity(identity: InvoiceIdentity): InvoiceRow | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('invoices')
        .selectAll()
        .where('entorno', '=', identity.entorno)
        .where('nifEmisor', '=', identity.nifEmisor)
        .where('serie', '=', identity.serie)
        .where('numero', '=', identity.numero)
        .where('fechaExpedicion', '=', identity.fechaExpedicion),
    );
  }

  getInvoice(id: string): InvoiceRow | undefined {
    return this.db.first(this.db.kysely.selectFrom('invoices').selectAll().where('id', '=', id));
  }

  insertInvoice(row: InvoiceRow, docs: InvoiceDocs = { respuesta: null, datos: null }): void {
    this.db.run(this.db.kysely.insertInto('invoices').values(row));
    this.db.run(this.db.kysely.insertInto('invoice_documentos').values({ invoiceId: row.id, ...docs }));
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
    const row = this.db.first(this.db.kysely.selectFrom('chains').selectAll().where('chainKey', '=', chainKey));
    return row ? { length: row.length, lastRegistroId: row.lastRegistroId, link: JSON.parse(row.lastLink) as Link } : undefined;
  }

  /**
   * Appends a record to its chain. UNIQUE(chainKey, chainSeq) makes a fork impossible even if two
   * writers ever raced: the second insert fails and its transaction rolls back.
   */
  appendRegistro<Link>(row: RegistroRow, link: Link, xml: string): void {
    this.db.run(this.db.kysely.insertInto('registros').values(row));
    this.db.run(this.db.kysely.insertInto('registro_documentos').values({ registroId: row.id, xml }));
    this.db.run(
      this.db.kysely
        .insertInto('chains')
        .values({ chainKey: row.chainKey, length: row.chainSeq, lastRegistroId: row.id, lastLink: JSON.stringify(link) })
        .onConflict((oc) =>
          oc.column('chainKey').doUpdateSet({ length: row.chainSeq, lastRegistroId: row.id, lastLink: JSON.stringify(link) }),
        ),
    );
  }

  /** The outbox row, in the same transaction as the record (DESIGN.md §4). */
  enqueueSubmission(registro: RegistroRow, queueKey: string, now: string): void {
    this.db.run(
      this.db.kysely.insertInto('submission_jobs').values({
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
      }),
    );
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
