import {
  CAMPOS_DOCUMENTO,
  CLIENTE_PATCH_FIELDS,
  type ClienteCrearBody,
  type ClienteDetalle,
  type ClientePatchBody,
  type ClientesListResponse,
  type Representante,
  type TipoUsuario,
} from '../../../src-shared/api/clientes';
import type { Entorno, Hacienda } from '../../../src-shared/api/common';
import { normalizeNif, validateNif } from '../../../src-shared/nif';
import type { Account } from '../account/store';
import type { CensusService, ValidacionCensal } from '../census/service';
import type { Database } from '../db/database';
import { forbidden, validation, type EngineError } from '../core/errors';
import type { CursorCodec } from '../core/pagination';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import {
  clientDeleted,
  clientLimitReached,
  clientNifRefused,
  clientNotFound,
  clientStatusInvalid,
  selfClientConflict,
  selfClientProtected,
  signingInProgress,
} from './errors';
import type { IaeCatalogue } from './iae';
import { emptyDetails, RESTORATION_WINDOW_MS, type ClientRecord, type IssuerDetails, type IssuerStore } from './store';
import { clienteDetalle, clienteFila, direccionOf, representanteOf, storedValidacion } from './views';

export const CLIENTES_LIST_DEFAULT = 20;
export const CLIENTES_LIST_MAX = 100;

/** `limite` of management lists: default 20, max 100 (larger is cut), anything invalid → default. */
export function parseManageLimite(raw: string | undefined): number {
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return CLIENTES_LIST_DEFAULT;
  const n = Number(raw.trim());
  if (!Number.isSafeInteger(n) || n < 1) return CLIENTES_LIST_DEFAULT;
  return Math.min(n, CLIENTES_LIST_MAX);
}

export interface Who {
  account: Account;
  entorno: Entorno;
}

/**
 * What the client lifecycle does to an issuer's representation documents (representation/store
 * implements it; representation builds on clients, not the other way round).
 */
export interface IssuerRepresentations {
  /** Whether a document is being signed (its issuer's data must not change meanwhile). */
  inProgress(issuerId: string): object | undefined;
  /** Cancels the document being signed; true when there was one. */
  cancelInProgress(issuerId: string, at: string): boolean;
  deleteForIssuer(issuerId: string): void;
}

export interface ClientServiceDeps {
  db: Database;
  issuers: IssuerStore;
  representations: IssuerRepresentations;
  census: CensusService;
  cursors: CursorCodec;
  clock: Clock;
  ids: IdGenerator;
  iae: () => IaeCatalogue;
}

type Admission = { kind: 'existing'; record: ClientRecord } | { kind: 'new'; reuse: ClientRecord | undefined; exento: boolean };

/** Stable JSON for comparing stored objects with sent ones. */
function canonical(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * The issuer-client lifecycle (spec: Issuer client, Issuer clients, client `estado` table).
 * Every decision that counts seats or checks uniqueness runs inside one synchronous SQLite
 * transaction, so concurrent requests cannot both take the last seat or the same NIF.
 */
export class ClientService {
  constructor(private readonly deps: ClientServiceDeps) {}

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private windowStart(): string {
    return new Date(this.deps.clock.now().getTime() - RESTORATION_WINDOW_MS).toISOString();
  }

  private isPurged(record: ClientRecord, windowStart = this.windowStart()): boolean {
    return record.issuer.estado === 'eliminado' && (record.details.eliminadoEn ?? '') < windowStart;
  }

  limitOf(account: Account, entorno: Entorno): number | null {
    return entorno === 'test' ? account.limiteClientesTest : account.limiteClientesLive;
  }

  /** `validacionCensal` as shown: the stored verdict, or a newer one from the cache when it was inconclusive. */
  validacionOf(record: ClientRecord): ValidacionCensal {
    const stored = storedValidacion(record);
    if (stored && stored.estado !== 'no_procesado') return stored;
    const cached = this.deps.census.cachedVerdict(record.issuer.nif, record.issuer.nombre);
    return cached ?? stored ?? { estado: 'no_procesado', nombreCenso: null };
  }

  detalle(record: ClientRecord, account: Account): ClienteDetalle {
    return clienteDetalle(record, account.nif, this.validacionOf(record));
  }

  // ------------------------------------------------------------------ create

  /** 201 with the new issuer, or 200 with the existing own company (idempotent repeat). */
  async create(who: Who, body: ClienteCrearBody): Promise<{ status: 200 | 201; record: ClientRecord }> {
    const check = validateNif(body.nif);
    if (!check.valid) throw validation('nif', `NIF no válido: ${check.reason}`);
    const nif = check.normalized;
    this.checkTipoRules(body.tipoUsuario, body.hacienda, body.representante, body.epigrafeIAE);

    const first = this.admit(who, nif);
    if (first.kind === 'existing') return { status: 200, record: first.record };

    // Informative only: the verdict is stored whatever it says, and a census outage never blocks.
    const validacion = await this.deps.census.checkForIssuer(nif, body.nombre);

    return this.deps.db.transaction(() => {
      // Decided again now that the census has answered: other requests may have run meanwhile.
      const admission = this.admit(who, nif);
      if (admission.kind === 'existing') return { status: 200 as const, record: admission.record };
      const now = this.now();
      const id = admission.reuse?.issuer.id ?? this.deps.ids.next('emi');
      const issuer = {
        id,
        accountId: who.account.id,
        entorno: who.entorno,
        nif,
        nombre: body.nombre,
        hacienda: body.hacienda,
        estado: 'activo' as const,
        estadoRepresentacion: 'pendiente',
        creadoEn: now,
        ultimaModificacion: now,
      };
      const details: IssuerDetails = {
        ...emptyDetails(id),
        email: body.email ?? null,
        tipoUsuario: body.tipoUsuario,
        direccion: body.direccion ? JSON.stringify(body.direccion) : null,
        representante: body.representante ? JSON.stringify(this.normalizedRepresentante(body.representante)) : null,
        epigrafeIAE: body.epigrafeIAE ?? null,
        validacionCensal: JSON.stringify(validacion),
        exentoPlaza: admission.exento ? 1 : 0,
      };
      if (admission.reuse) {
        this.deps.representations.deleteForIssuer(id);
        this.deps.issuers.replaceClient(issuer, details);
      } else {
        this.deps.issuers.insertClient(issuer, details);
      }
      return { status: 201 as const, record: { issuer, details, phase: this.deps.issuers.phaseOf(who.account.id, nif) } };
    });
  }

  /**
   * Platform-wide uniqueness, the own-company table and the seat limit. A deleted issuer whose
   * restoration window has passed no longer holds its NIF: its row is taken by the new issuer.
   */
  private admit(who: Who, nif: string): Admission {
    const own = nif === who.account.nif;
    const windowStart = this.windowStart();
    let reuse: ClientRecord | undefined;
    for (const record of this.deps.issuers.withNif(nif)) {
      const purged = this.isPurged(record, windowStart);
      if (record.issuer.accountId === who.account.id) {
        if (record.issuer.entorno !== who.entorno) continue;
        if (purged) {
          reuse = record;
          continue;
        }
        if (record.issuer.estado === 'eliminado') {
          throw validation('nif', 'Este emisor se eliminó hace menos de 30 días: restáurelo desde el panel');
        }
        if (own) return { kind: 'existing', record };
        throw clientNifRefused();
      }
      if (purged) {
        if (record.issuer.entorno === who.entorno) reuse = record;
        continue;
      }
      // A record with the caller's ID that belongs to another account is never returned.
      throw own ? selfClientConflict() : clientNifRefused();
    }
    const exento = own && this.deps.issuers.seatExemption(who.account.id, nif, this.now());
    const limite = this.limitOf(who.account, who.entorno);
    if (!exento && limite !== null && this.deps.issuers.seatsUsed(who.account.id, who.entorno) >= limite) {
      throw clientLimitReached(limite);
    }
    return { kind: 'new', reuse, exento };
  }

  private normalizedRepresentante(r: Representante): Representante {
    return { ...r, nif: normalizeNif(r.nif) };
  }

  /** representante for `empresa` only; epigrafeIAE for `autonomo` in tbai-bizkaia only, from the catalogue. */
  private checkTipoRules(
    tipo: TipoUsuario | null,
    hacienda: Hacienda,
    representante: Representante | undefined,
    epigrafe: string | undefined,
    creating = true,
  ): void {
    if (creating && tipo === 'empresa' && representante === undefined) {
      throw validation('representante', 'representante es obligatorio para tipoUsuario empresa');
    }
    if (tipo === 'autonomo' && representante !== undefined) {
      throw validation('representante', 'representante no se admite para tipoUsuario autonomo');
    }
    if (representante !== undefined) {
      const r = validateNif(representante.nif);
      if (!r.valid) throw validation('representante.nif', `NIF no válido: ${r.reason}`);
    }
    const applies = tipo === 'autonomo' && hacienda === 'tbai-bizkaia';
    if (creating && applies && epigrafe === undefined) {
      throw validation('epigrafeIAE', 'epigrafeIAE es obligatorio para autonomo con hacienda tbai-bizkaia');
    }
    if (epigrafe !== undefined) {
      if (!applies) throw validation('epigrafeIAE', 'epigrafeIAE solo se aplica a autonomo con hacienda tbai-bizkaia');
      if (!this.deps.iae().has(epigrafe)) {
        throw validation('epigrafeIAE', `epigrafeIAE ${epigrafe} no está en el catálogo de epígrafes IAE`);
      }
    }
  }

  // ------------------------------------------------------------------ reads

  /**
   * The account's client in the key's environment; a deleted one only when asked and inside its
   * window. Another account's issuer is 403 FORBIDDEN (spec, Errors: "issuer not under the caller's
   * account"); a NIF no account holds in this environment is 404 NOT_FOUND.
   */
  find(who: Who, rawNif: string, options: { incluirEliminados?: boolean } = {}): ClientRecord {
    const nif = normalizeNif(rawNif);
    const record = this.deps.issuers.findClient(who.account.id, who.entorno, nif);
    if (!record) throw this.missing(who, nif);
    if (record.issuer.estado === 'eliminado' && (!options.incluirEliminados || this.isPurged(record))) throw clientNotFound();
    return record;
  }

  /** Not the account's: 403 when another account holds the NIF in this environment, else 404. */
  private missing(who: Who, nif: string): EngineError {
    return this.deps.issuers.find(who.entorno, nif) ? forbidden() : clientNotFound();
  }

  list(who: Who, query: Record<string, string | undefined>): ClientesListResponse {
    const limit = parseManageLimite(query.limite);
    const incluirEliminados = query.incluirEliminados === 'true';
    const scope = { accountId: who.account.id, endpoint: 'clientes', entorno: who.entorno, nifEmisor: '' };
    const now = this.deps.clock.now();
    const after = query.cursor ? this.deps.cursors.decode(query.cursor, scope, now) : undefined;
    const rows = this.deps.issuers.listPage({
      accountId: who.account.id,
      entorno: who.entorno,
      limit: limit + 1,
      after,
      incluirEliminados,
      deletedSince: this.windowStart(),
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      entorno: who.entorno,
      clientes: page.map((r) => clienteFila(r, this.validacionOf(r).estado)),
      total: page.length,
      ...this.counters(who),
      ...(rows.length > limit && last ? { proximaPagina: this.deps.cursors.encode({ creadoEn: last.issuer.creadoEn, id: last.issuer.id }, scope, now) } : {}),
    };
  }

  /** The three seat counters, all together or none (no configured limit, or the read failed). */
  counters(who: Who): { limitePlan?: number; clientesUsados?: number; clientesDisponibles?: number } {
    try {
      const limitePlan = this.limitOf(who.account, who.entorno);
      if (limitePlan === null) return {};
      const clientesUsados = this.deps.issuers.seatsUsed(who.account.id, who.entorno);
      return { limitePlan, clientesUsados, clientesDisponibles: Math.max(0, limitePlan - clientesUsados) };
    } catch {
      return {};
    }
  }

  // ------------------------------------------------------------------ PATCH

  async patch(who: Who, rawNif: string, body: ClientePatchBody): Promise<ClientRecord> {
    const present = CLIENTE_PATCH_FIELDS.filter((f) => body[f] !== undefined);
    if (present.length === 0) {
      throw validation('body', `Ningún campo modificable: envíe al menos uno de ${CLIENTE_PATCH_FIELDS.join(', ')}`);
    }
    const before = this.find(who, rawNif);
    this.checkTipoRules(before.details.tipoUsuario, before.issuer.hacienda, body.representante, body.epigrafeIAE, false);
    const changes = this.documentChanges(before, body);
    this.assertNotSigning(before, changes);

    const renamed = body.nombre !== undefined && body.nombre !== before.issuer.nombre;
    const validacion = renamed ? await this.deps.census.checkForIssuer(before.issuer.nif, body.nombre ?? '') : undefined;

    return this.deps.db.transaction(() => {
      const record = this.find(who, rawNif);
      // A signature may have started while the census answered.
      this.assertNotSigning(record, this.documentChanges(record, body));
      const now = this.now();
      const details: IssuerDetails = { ...record.details };
      if (body.direccion !== undefined) details.direccion = JSON.stringify(body.direccion);
      if (body.representante !== undefined) details.representante = JSON.stringify(this.normalizedRepresentante(body.representante));
      if (body.epigrafeIAE !== undefined) details.epigrafeIAE = body.epigrafeIAE;
      if (body.portalHabilitado !== undefined) details.portalHabilitado = body.portalHabilitado ? 1 : 0;
      if (validacion) details.validacionCensal = JSON.stringify(validacion);
      const nombre = body.nombre ?? record.issuer.nombre;
      this.deps.issuers.updateIssuer(record.issuer.id, { nombre, ultimaModificacion: now });
      this.deps.issuers.upsertDetails(details);
      return { ...record, issuer: { ...record.issuer, nombre, ultimaModificacion: now }, details };
    });
  }

  /** The document fields this PATCH would really change. */
  private documentChanges(record: ClientRecord, body: ClientePatchBody): string[] {
    const current: Record<(typeof CAMPOS_DOCUMENTO)[number], unknown> = {
      nombre: record.issuer.nombre,
      direccion: direccionOf(record),
      representante: representanteOf(record),
    };
    const sent: Record<(typeof CAMPOS_DOCUMENTO)[number], unknown> = {
      nombre: body.nombre,
      direccion: body.direccion,
      representante: body.representante ? this.normalizedRepresentante(body.representante) : undefined,
    };
    return CAMPOS_DOCUMENTO.filter((f) => sent[f] !== undefined && canonical(sent[f]) !== canonical(current[f]));
  }

  private assertNotSigning(record: ClientRecord, changes: string[]): void {
    if (changes.length > 0 && this.deps.representations.inProgress(record.issuer.id)) throw signingInProgress(changes);
  }

  // ------------------------------------------------------------------ estado

  /** PATCH /estado: every row of the spec's transition table. */
  setEstado(who: Who, rawNif: string, estado: 'activo' | 'inactivo'): { message: string; nif: string; estado: 'activo' | 'inactivo'; entorno?: Entorno } {
    return this.deps.db.transaction(() => {
      const record = this.deps.issuers.findClient(who.account.id, who.entorno, normalizeNif(rawNif));
      if (!record) throw this.missing(who, normalizeNif(rawNif));
      if (this.isPurged(record)) throw clientNotFound();
      const { issuer } = record;
      if (issuer.estado === 'eliminado') throw clientDeleted();
      if (issuer.estado !== 'activo' && issuer.estado !== 'inactivo') throw clientStatusInvalid();
      if (issuer.estado === estado) {
        return { message: `El cliente ya estaba ${estado}`, nif: issuer.nif, estado };
      }
      if (estado === 'inactivo' && issuer.nif === who.account.nif) throw selfClientProtected();
      if (estado === 'activo' && record.details.exentoPlaza !== 1) this.assertSeatFree(who);
      this.deps.issuers.updateIssuer(issuer.id, { estado, ultimaModificacion: this.now() });
      return {
        message: estado === 'activo' ? 'Cliente activado' : 'Cliente desactivado',
        nif: issuer.nif,
        estado,
        entorno: who.entorno,
      };
    });
  }

  private assertSeatFree(who: Who): void {
    const limite = this.limitOf(who.account, who.entorno);
    if (limite !== null && this.deps.issuers.seatsUsed(who.account.id, who.entorno) >= limite) throw clientLimitReached(limite);
  }

  // ------------------------------------------------------------------ panel: delete, restore

  /** Deletion in the panel: `eliminado`, one seat freed if it was active; restorable for 30 days. */
  delete(who: Who, rawNif: string): ClientRecord {
    return this.deps.db.transaction(() => {
      const record = this.deps.issuers.findClient(who.account.id, who.entorno, normalizeNif(rawNif));
      if (!record || this.isPurged(record)) throw clientNotFound();
      if (record.issuer.nif === who.account.nif) throw selfClientProtected();
      // Deleting twice keeps the first date (and its window).
      if (record.issuer.estado === 'eliminado') return record;
      const now = this.now();
      // A signature in progress is cancelled with the deletion.
      const cancelled = this.deps.representations.cancelInProgress(record.issuer.id, now);
      const estadoRepresentacion = cancelled && record.issuer.estadoRepresentacion === 'en_firma' ? 'pendiente' : record.issuer.estadoRepresentacion;
      this.deps.issuers.updateIssuer(record.issuer.id, { estado: 'eliminado', estadoRepresentacion, ultimaModificacion: now });
      const details = { ...record.details, eliminadoEn: now };
      this.deps.issuers.upsertDetails(details);
      return { ...record, issuer: { ...record.issuer, estado: 'eliminado', estadoRepresentacion, ultimaModificacion: now }, details };
    });
  }

  /** Restoration in the panel, inside the 30-day window: back to `activo`, taking a seat. */
  restore(who: Who, rawNif: string): ClientRecord {
    return this.deps.db.transaction(() => {
      const record = this.deps.issuers.findClient(who.account.id, who.entorno, normalizeNif(rawNif));
      if (!record) throw clientNotFound();
      if (record.issuer.estado !== 'eliminado') throw clientStatusInvalid('El cliente no está eliminado');
      if (this.isPurged(record)) throw clientNotFound();
      if (record.details.exentoPlaza !== 1) this.assertSeatFree(who);
      const now = this.now();
      this.deps.issuers.updateIssuer(record.issuer.id, { estado: 'activo', ultimaModificacion: now });
      const details = { ...record.details, eliminadoEn: null };
      this.deps.issuers.upsertDetails(details);
      return { ...record, issuer: { ...record.issuer, estado: 'activo', ultimaModificacion: now }, details };
    });
  }
}
