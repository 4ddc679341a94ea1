import { sql } from 'kysely';
import type { Entorno, Hacienda } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import { ReadCache } from '../db/read-cache';
import type { IssuerDetailsTable } from '../db/schema/clients';
import type { IssuersTable } from '../db/schema/issuers';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';

export type Issuer = IssuersTable;
export type IssuerDetails = IssuerDetailsTable;

/** An issuer with its client details and its high-capacity phase (shared by TEST and LIVE). */
export interface ClientRecord {
  issuer: Issuer;
  details: IssuerDetails;
  /** The stored phase; null when the issuer has none (reads as `no_contratada` / `unica`). */
  phase: { faseAltaCapacidad: string; modoCadena: string } | null;
  /** The SIF mode of the issuer's installation in its environment (issue 32); absent reads `verifactu`. */
  modoSif?: 'verifactu' | 'no_verifactu' | undefined;
}

/** Madrid midnight of 10 September 2026: until then the own company took no plan seat. */
export const OWN_COMPANY_SEAT_CUTOFF = '2026-09-09T22:00:00.000Z';

/** The restoration window of a deleted issuer. */
export const RESTORATION_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

const DETAIL_COLUMNS = [
  'issuer_details.email',
  'issuer_details.tipoUsuario',
  'issuer_details.direccion',
  'issuer_details.representante',
  'issuer_details.epigrafeIAE',
  'issuer_details.portalHabilitado',
  'issuer_details.validacionCensal',
  'issuer_details.eliminadoEn',
  'issuer_details.exentoPlaza',
] as const;

export function emptyDetails(issuerId: string): IssuerDetails {
  return {
    issuerId,
    email: null,
    tipoUsuario: null,
    direccion: null,
    representante: null,
    epigrafeIAE: null,
    portalHabilitado: 0,
    validacionCensal: null,
    eliminadoEn: null,
    exentoPlaza: 0,
  };
}

type JoinedRow = Issuer &
  Omit<IssuerDetails, 'issuerId'> & { hasDetails: string | null; faseAltaCapacidad: string | null; modoCadena: string | null; modoSif: 'verifactu' | 'no_verifactu' | null };

function split(row: JoinedRow): ClientRecord {
  const { email, tipoUsuario, direccion, representante, epigrafeIAE, portalHabilitado, validacionCensal, eliminadoEn, exentoPlaza, hasDetails, faseAltaCapacidad, modoCadena, modoSif, ...issuer } = row;
  const details: IssuerDetails =
    hasDetails === null
      ? emptyDetails(issuer.id)
      : { issuerId: issuer.id, email, tipoUsuario, direccion, representante, epigrafeIAE, portalHabilitado, validacionCensal, eliminadoEn, exentoPlaza };
  const phase = faseAltaCapacidad !== null && modoCadena !== null ? { faseAltaCapacidad, modoCadena } : null;
  return { issuer, details, phase, modoSif: modoSif ?? 'verifactu' };
}

/** The issuer clients (emisores): the rows issuing and reads need, and the client lifecycle's. */
export class IssuerStore {
  // Issuer admission runs it on every issuing request: built once, cached until issuers change.
  private readonly byEntornoNif;
  private readonly found: ReadCache<Issuer | undefined>;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.byEntornoNif = db.prepare<Issuer, 'entorno' | 'nif'>((slot) =>
      db.kysely.selectFrom('issuers').selectAll().where('entorno', '=', slot('entorno') as Entorno).where('nif', '=', slot('nif')),
    );
    this.found = new ReadCache(db);
  }

  /** The issuer of `nif` in `entorno`; callers must not modify what it returns (it may be cached). */
  find(entorno: Entorno, nif: string): Issuer | undefined {
    return this.found.get(`${entorno}|${nif}`, () => this.byEntornoNif.first({ entorno, nif }));
  }

  /** The issuer when it belongs to the account in that environment; undefined otherwise. */
  findForAccount(accountId: string, entorno: Entorno, nif: string): Issuer | undefined {
    const issuer = this.find(entorno, nif);
    return issuer && issuer.accountId === accountId ? issuer : undefined;
  }

  /**
   * Registers an issuer directly (admin command line, demo seed, tests): no field rules, no seat
   * check. An own company created before 10 September 2026 keeps its historical seat exemption.
   */
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
      creadoEn: now,
      ultimaModificacion: now,
    };
    this.db.transaction(() => {
      this.db.run(this.db.kysely.insertInto('issuers').values(row));
      this.db.run(
        this.db.kysely
          .insertInto('issuer_details')
          .values({ ...emptyDetails(row.id), exentoPlaza: this.seatExemption(input.accountId, input.nif, now) ? 1 : 0 }),
      );
    });
    return row;
  }

  /** The issuer's high-capacity phase row (shared by TEST and LIVE); null when it has none. */
  phaseOf(accountId: string, nif: string): ClientRecord['phase'] {
    const row = this.db.first(
      this.db.kysely
        .selectFrom('issuer_phases')
        .select(['faseAltaCapacidad', 'modoCadena'])
        .where('accountId', '=', accountId)
        .where('nif', '=', nif),
    );
    return row ?? null;
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

  // ------------------------------------------------------------- client lifecycle

  /** True when an own company created at `at` is exempt from the seat count (before the cutoff, in an older account). */
  seatExemption(accountId: string, nif: string, at: string): boolean {
    if (at >= OWN_COMPANY_SEAT_CUTOFF) return false;
    const account = this.db.first(this.db.kysely.selectFrom('accounts').select(['nif', 'creadoEn']).where('id', '=', accountId));
    return account !== undefined && account.nif === nif && account.creadoEn < OWN_COMPANY_SEAT_CUTOFF;
  }

  private joined() {
    return this.db.kysely
      .selectFrom('issuers')
      .leftJoin('issuer_details', 'issuer_details.issuerId', 'issuers.id')
      .leftJoin('issuer_phases', (join) =>
        join.onRef('issuer_phases.accountId', '=', 'issuers.accountId').onRef('issuer_phases.nif', '=', 'issuers.nif'),
      )
      .leftJoin('sif_modos', (join) => join.onRef('sif_modos.entorno', '=', 'issuers.entorno').onRef('sif_modos.nif', '=', 'issuers.nif'))
      .selectAll('issuers')
      .select([...DETAIL_COLUMNS, 'issuer_details.issuerId as hasDetails', 'issuer_phases.faseAltaCapacidad', 'issuer_phases.modoCadena', 'sif_modos.modoSif']);
  }

  /** The client of the account in that environment, whatever its state. */
  findClient(accountId: string, entorno: Entorno, nif: string): ClientRecord | undefined {
    const row = this.db.first(
      this.joined().where('issuers.entorno', '=', entorno).where('issuers.nif', '=', nif).where('issuers.accountId', '=', accountId),
    ) as JoinedRow | undefined;
    return row ? split(row) : undefined;
  }

  /** Every row holding that NIF, in any account and environment (platform-wide uniqueness). */
  withNif(nif: string): ClientRecord[] {
    return (this.db.all(this.joined().where('issuers.nif', '=', nif)) as JoinedRow[]).map(split);
  }

  getClient(issuerId: string): ClientRecord | undefined {
    const row = this.db.first(this.joined().where('issuers.id', '=', issuerId)) as JoinedRow | undefined;
    return row ? split(row) : undefined;
  }

  /** Active issuers that take a seat: `clientesUsados`. */
  seatsUsed(accountId: string, entorno: Entorno): number {
    const row = this.db.first(
      this.db.kysely
        .selectFrom('issuers')
        .leftJoin('issuer_details', 'issuer_details.issuerId', 'issuers.id')
        .select(sql<number>`count(*)`.as('n'))
        .where('issuers.accountId', '=', accountId)
        .where('issuers.entorno', '=', entorno)
        .where('issuers.estado', '=', 'activo')
        .where(sql<boolean>`coalesce(issuer_details.exentoPlaza, 0) = 0`),
    );
    return Number(row?.n ?? 0);
  }

  /**
   * One page of the account's clients in (creadoEn, id) order. Deleted issuers only when asked,
   * and only those deleted at or after `deletedSince` (inside the restoration window).
   */
  listPage(input: {
    accountId: string;
    entorno: Entorno;
    limit: number;
    after?: { creadoEn: string; id: string } | undefined;
    incluirEliminados: boolean;
    deletedSince: string;
  }): ClientRecord[] {
    let q = this.joined().where('issuers.accountId', '=', input.accountId).where('issuers.entorno', '=', input.entorno);
    q = input.incluirEliminados
      ? q.where((eb) =>
          eb.or([
            eb('issuers.estado', '!=', 'eliminado'),
            eb.and([eb('issuers.estado', '=', 'eliminado'), eb('issuer_details.eliminadoEn', '>=', input.deletedSince)]),
          ]),
        )
      : q.where('issuers.estado', '!=', 'eliminado');
    const after = input.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb('issuers.creadoEn', '>', after.creadoEn),
          eb.and([eb('issuers.creadoEn', '=', after.creadoEn), eb('issuers.id', '>', after.id)]),
        ]),
      );
    }
    return (this.db.all(q.orderBy('issuers.creadoEn').orderBy('issuers.id').limit(input.limit)) as JoinedRow[]).map(split);
  }

  insertClient(issuer: Issuer, details: IssuerDetails): void {
    this.db.run(this.db.kysely.insertInto('issuers').values(issuer));
    this.db.run(this.db.kysely.insertInto('issuer_details').values(details));
  }

  /** Writes every column of an existing row (a purged deleted issuer taken again). */
  replaceClient(issuer: Issuer, details: IssuerDetails): void {
    const { id, ...rest } = issuer;
    this.db.run(this.db.kysely.updateTable('issuers').set(rest).where('id', '=', id));
    this.upsertDetails(details);
  }

  updateIssuer(id: string, changes: Partial<Omit<Issuer, 'id'>>): void {
    this.db.run(this.db.kysely.updateTable('issuers').set(changes).where('id', '=', id));
  }

  upsertDetails(details: IssuerDetails): void {
    const { issuerId: _issuerId, ...rest } = details;
    this.db.run(
      this.db.kysely
        .insertInto('issuer_details')
        .values(details)
        .onConflict((oc) => oc.column('issuerId').doUpdateSet(rest)),
    );
  }
}

/**
 * The IAE heading of a natural-person issuer (Bizkaia's LROE model 140 carries it per invoice): it
 * lives in the issuer's client details, not on the `issuers` row issuing reads.
 */
export function epigrafeIaeOf(db: Database, nif: string): string | undefined {
  const row = db.first(
    db.kysely
      .selectFrom('issuers')
      .innerJoin('issuer_details', 'issuer_details.issuerId', 'issuers.id')
      .select('issuer_details.epigrafeIAE')
      .where('issuers.nif', '=', nif)
      .where('issuer_details.epigrafeIAE', 'is not', null)
      .limit(1),
  );
  return row?.epigrafeIAE ?? undefined;
}
