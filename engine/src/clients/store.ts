import type { Entorno, Hacienda } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import type { IssuersTable } from '../db/schema/issuers';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';

export type Issuer = IssuersTable;

/** The issuer clients (emisores) that issuing and reads need; the full lifecycle builds on it. */
export class IssuerStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  find(entorno: Entorno, nif: string): Issuer | undefined {
    return this.db.first(
      this.db.kysely.selectFrom('issuers').selectAll().where('entorno', '=', entorno).where('nif', '=', nif),
    );
  }

  /** The issuer when it belongs to the account in that environment; undefined otherwise. */
  findForAccount(accountId: string, entorno: Entorno, nif: string): Issuer | undefined {
    const issuer = this.find(entorno, nif);
    return issuer && issuer.accountId === accountId ? issuer : undefined;
  }

  create(input: { accountId: string; entorno: Entorno; nif: string; nombre: string; hacienda: Hacienda; estadoRepresentacion?: string }): Issuer {
    const now = this.clock.now().toISOString();
    const row: Issuer = {
      id: this.ids.next('emi'),
      accountId: input.accountId,
      entorno: input.entorno,
      nif: input.nif,
      nombre: input.nombre,
      hacienda: input.hacienda,
      estado: 'activo',
      estadoRepresentacion: input.estadoRepresentacion ?? 'pendiente',
      modoCadena: 'unica',
      faseAltaCapacidad: 'no_contratada',
      creadoEn: now,
      ultimaModificacion: now,
    };
    this.db.run(this.db.kysely.insertInto('issuers').values(row));
    return row;
  }

  listForAccount(accountId: string, entorno: Entorno): Issuer[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('issuers')
        .selectAll()
        .where('accountId', '=', accountId)
        .where('entorno', '=', entorno)
        .orderBy('creadoEn'),
    );
  }
}
