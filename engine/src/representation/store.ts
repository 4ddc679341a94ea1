import type { Database } from '../db/database';
import type { RepresentationDocumentsTable } from '../db/schema/clients';

export type RepresentationDocument = RepresentationDocumentsTable;

/** Representation documents of issuers: at most one signature in progress per issuer. */
export class RepresentationStore {
  constructor(private readonly db: Database) {}

  inProgress(issuerId: string): RepresentationDocument | undefined {
    return this.db.first(
      this.db.kysely.selectFrom('representation_documents').selectAll().where('issuerId', '=', issuerId).where('estado', '=', 'en_curso'),
    );
  }

  /** The document currently in force (the last one signed). */
  signed(issuerId: string): RepresentationDocument | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('representation_documents')
        .selectAll()
        .where('issuerId', '=', issuerId)
        .where('estado', '=', 'firmado')
        .orderBy('firmadoEn', 'desc')
        .limit(1),
    );
  }

  get(id: string): RepresentationDocument | undefined {
    return this.db.first(this.db.kysely.selectFrom('representation_documents').selectAll().where('id', '=', id));
  }

  insert(doc: RepresentationDocument): void {
    this.db.run(this.db.kysely.insertInto('representation_documents').values(doc));
  }

  update(id: string, changes: Partial<Omit<RepresentationDocument, 'id' | 'issuerId'>>): void {
    this.db.run(this.db.kysely.updateTable('representation_documents').set(changes).where('id', '=', id));
  }

  /** Marks the signed documents of an issuer as replaced by a newer one. */
  supersedeSigned(issuerId: string, at: string): void {
    this.db.run(
      this.db.kysely
        .updateTable('representation_documents')
        .set({ estado: 'sustituido', finalizadoEn: at })
        .where('issuerId', '=', issuerId)
        .where('estado', '=', 'firmado'),
    );
  }

  cancelInProgress(issuerId: string, at: string): boolean {
    return (
      this.db.run(
        this.db.kysely
          .updateTable('representation_documents')
          .set({ estado: 'cancelado', finalizadoEn: at })
          .where('issuerId', '=', issuerId)
          .where('estado', '=', 'en_curso'),
      ) > 0
    );
  }

  /** Forgets an issuer's documents (its row is taken by a new issuer after the deletion window). */
  deleteForIssuer(issuerId: string): void {
    this.db.run(this.db.kysely.deleteFrom('representation_documents').where('issuerId', '=', issuerId));
  }
}
