import type { Entorno } from '../../../src-shared/api/common';
import type { Database, PreparedQuery } from '../db/database';
import {
  SHARD0,
  type DeviceObservationsTable,
  type DeviceSeriesTable,
  type DevicesTable,
  type FaseAltaCapacidad,
  type ModoCadena,
} from '../db/schema/devices';
import { deviceChainKeyOf } from './chain-keys';
import { RoutingRowCache } from './routing-cache';

export type Device = DevicesTable;
export type SeriesClaim = DeviceSeriesTable;
export type ObservedId = DeviceObservationsTable;
export { SHARD0 };

/** An issuer's high-capacity status, shared by TEST and LIVE. */
export interface Phase {
  faseAltaCapacidad: FaseAltaCapacidad;
  modoCadena: ModoCadena;
  observandoDesde: string | null;
  activacionSolicitadaEn: string | null;
}

/** What an issuer without a stored phase has. */
export const NO_PHASE: Phase = { faseAltaCapacidad: 'no_contratada', modoCadena: 'unica', observandoDesde: null, activacionSolicitadaEn: null };

/** `modoCadena` follows the phase: one chain per device exactly in `activa`. */
export function modoCadenaOf(fase: FaseAltaCapacidad): ModoCadena {
  return fase === 'activa' ? 'por_dispositivo' : 'unica';
}

type Key = { entorno: Entorno; nif: string };

/** Rows kept in the routing cache are shared by every caller: frozen, so none can change another's. */
const frozen = <T extends object>(row: T | undefined): Readonly<T> | undefined => (row === undefined ? undefined : Object.freeze(row));

/**
 * Devices, series ownership, observed identifiers and the phase. Every method is synchronous and
 * runs inside the caller's transaction when there is one: issuing reads the phase, the device and
 * the series owner, and writes the claim, the installation number and the observation in the
 * same SQLite transaction as the chain head (DESIGN.md §4). The reads issuing does on every
 * request are prepared once and their rows kept in memory (RoutingRowCache): so every write to
 * issuer_phases, devices and device_series goes through this class, which tells the cache first.
 */
export class DeviceStore {
  private readonly cache: RoutingRowCache;
  private readonly hot: {
    phase: PreparedQuery<Phase, 'accountId' | 'nif'>;
    device: PreparedQuery<Device, 'entorno' | 'nif' | 'idMaquina'>;
    seriesOwner: PreparedQuery<SeriesClaim, 'entorno' | 'nif' | 'serie'>;
    claimSeries: PreparedQuery<never, 'entorno' | 'nif' | 'serie' | 'idMaquinaPropietaria' | 'reclamadaEn'>;
    noteObserved: PreparedQuery<never, 'entorno' | 'nif' | 'idMaquina' | 'now'>;
    chainExists: PreparedQuery<{ length: number }, 'chainKey'>;
  };

  constructor(private readonly db: Database) {
    this.cache = RoutingRowCache.of(db);
    const k = db.kysely;
    this.hot = {
      phase: db.prepare((slot) =>
        k
          .selectFrom('issuer_phases')
          .select(['faseAltaCapacidad', 'modoCadena', 'observandoDesde', 'activacionSolicitadaEn'])
          .where('accountId', '=', slot('accountId'))
          .where('nif', '=', slot('nif')),
      ),
      device: db.prepare((slot) =>
        k
          .selectFrom('devices')
          .selectAll()
          .where('entorno', '=', slot('entorno') as Entorno)
          .where('nif', '=', slot('nif'))
          .where('idMaquina', '=', slot('idMaquina')),
      ),
      seriesOwner: db.prepare((slot) =>
        k
          .selectFrom('device_series')
          .selectAll()
          .where('entorno', '=', slot('entorno') as Entorno)
          .where('nif', '=', slot('nif'))
          .where('serie', '=', slot('serie')),
      ),
      claimSeries: db.prepare<never, 'entorno' | 'nif' | 'serie' | 'idMaquinaPropietaria' | 'reclamadaEn'>((slot) =>
        k
          .insertInto('device_series')
          .values({
            entorno: slot('entorno') as Entorno,
            nif: slot('nif'),
            serie: slot('serie'),
            idMaquinaPropietaria: slot('idMaquinaPropietaria'),
            reclamadaEn: slot('reclamadaEn'),
            reservada: 0,
          })
          .onConflict((oc) => oc.doNothing()),
      ),
      noteObserved: db.prepare<never, 'entorno' | 'nif' | 'idMaquina' | 'now'>((slot) =>
        k
          .insertInto('device_observations')
          .values({ entorno: slot('entorno') as Entorno, nif: slot('nif'), idMaquina: slot('idMaquina'), primeraVez: slot('now'), ultimaVez: slot('now') })
          .onConflict((oc) => oc.columns(['entorno', 'nif', 'idMaquina']).doUpdateSet((eb) => ({ ultimaVez: eb.ref('excluded.ultimaVez') }))),
      ),
      chainExists: db.prepare((slot) => k.selectFrom('chains').select('length').where('chainKey', '=', slot('chainKey'))),
    };
  }

  // ------------------------------------------------------------------ phase (account + NIF)

  /** The issuer's phase; `no_contratada` / `unica` when none is stored. */
  phase(accountId: string, nif: string): Phase {
    return this.cache.get(`phase\u0000${accountId}\u0000${nif}`, () => frozen(this.hot.phase.first({ accountId, nif })) ?? NO_PHASE);
  }

  /**
   * Stores a new phase (the service team's move; the rules are the service's). Entering
   * `preparacion` starts a new observation window; leaving it keeps the notice date.
   */
  setPhase(accountId: string, nif: string, fase: FaseAltaCapacidad, now: string): Phase {
    const before = this.phase(accountId, nif);
    const next: Phase = {
      faseAltaCapacidad: fase,
      modoCadena: modoCadenaOf(fase),
      observandoDesde: fase === 'preparacion' ? (before.faseAltaCapacidad === 'preparacion' ? before.observandoDesde : now) : null,
      activacionSolicitadaEn: before.activacionSolicitadaEn,
    };
    this.cache.noteWrite();
    this.db.run(
      this.db.kysely
        .insertInto('issuer_phases')
        .values({ accountId, nif, ...next, ultimaModificacion: now })
        .onConflict((oc) => oc.columns(['accountId', 'nif']).doUpdateSet({ ...next, ultimaModificacion: now })),
    );
    return next;
  }

  /** Records the activation notice once: the first call counts. Returns the stored date. */
  requestActivation(accountId: string, nif: string, now: string): string {
    this.cache.noteWrite();
    this.db.run(
      this.db.kysely
        .updateTable('issuer_phases')
        .set({ activacionSolicitadaEn: now, ultimaModificacion: now })
        .where('accountId', '=', accountId)
        .where('nif', '=', nif)
        .where('activacionSolicitadaEn', 'is', null),
    );
    return this.phase(accountId, nif).activacionSolicitadaEn ?? now;
  }

  // ------------------------------------------------------------------ devices (per environment)

  device(entorno: Entorno, nif: string, idMaquina: string): Device | undefined {
    return this.cache.get(`device\u0000${entorno}\u0000${nif}\u0000${idMaquina}`, () => frozen(this.hot.device.first({ entorno, nif, idMaquina })));
  }

  devices({ entorno, nif }: Key): Device[] {
    return this.db.all(this.db.kysely.selectFrom('devices').selectAll().where('entorno', '=', entorno).where('nif', '=', nif).orderBy('creadoEn').orderBy('idMaquina'));
  }

  insertDevice(input: { entorno: Entorno; nif: string; idMaquina: string; etiqueta: string; now: string }): Device {
    const row: Device = {
      entorno: input.entorno,
      nif: input.nif,
      idMaquina: input.idMaquina,
      etiqueta: input.etiqueta,
      creadoEn: input.now,
      activo: 1,
      dadoDeBajaEn: null,
      reactivadoEn: null,
      numeroInstalacion: null,
    };
    this.cache.noteWrite();
    this.db.run(this.db.kysely.insertInto('devices').values(row));
    return row;
  }

  /** Deactivation keeps the first `dadoDeBajaEn`; history, series and installation stay. */
  deactivate(entorno: Entorno, nif: string, idMaquina: string, now: string): void {
    this.cache.noteWrite();
    this.db.run(
      this.db.kysely
        .updateTable('devices')
        .set((eb) => ({ activo: 0, dadoDeBajaEn: eb.fn.coalesce('dadoDeBajaEn', eb.val(now)) }))
        .where('entorno', '=', entorno)
        .where('nif', '=', nif)
        .where('idMaquina', '=', idMaquina),
    );
  }

  /**
   * Back to active: same installation number and chain. The deactivation date goes (a later
   * deactivation is a new one); a new label, when given, replaces the old.
   */
  reactivate(entorno: Entorno, nif: string, idMaquina: string, now: string, etiqueta?: string): void {
    this.cache.noteWrite();
    this.db.run(
      this.db.kysely
        .updateTable('devices')
        .set({ activo: 1, reactivadoEn: now, dadoDeBajaEn: null, ...(etiqueta !== undefined ? { etiqueta } : {}) })
        .where('entorno', '=', entorno)
        .where('nif', '=', nif)
        .where('idMaquina', '=', idMaquina),
    );
  }

  /** Issuing: the device's VeriFactu installation number, given with its first invoice. */
  assignNumeroInstalacion(entorno: Entorno, nif: string, idMaquina: string, numeroInstalacion: string): void {
    this.cache.noteWrite();
    this.db.run(
      this.db.kysely
        .updateTable('devices')
        .set({ numeroInstalacion })
        .where('entorno', '=', entorno)
        .where('nif', '=', nif)
        .where('idMaquina', '=', idMaquina)
        .where('numeroInstalacion', 'is', null),
    );
  }

  /**
   * A device "has a chain" once an invoice was issued on it: its VeriFactu installation number is
   * assigned, or a chain head exists under its device chain key (chain-keys.ts) in either regime.
   */
  deviceHasChain(entorno: Entorno, nif: string, idMaquina: string): boolean {
    const device = this.device(entorno, nif, idMaquina);
    if (device?.numeroInstalacion) return true;
    return (['verifactu', 'ticketbai'] as const).some((regimen) => this.hot.chainExists.first({ chainKey: deviceChainKeyOf(regimen, entorno, nif, idMaquina) }) !== undefined);
  }

  /** True when any device of the issuer, in TEST or LIVE, has a chain. */
  anyDeviceHasChain(nif: string): boolean {
    const all = this.db.all(this.db.kysely.selectFrom('devices').select(['entorno', 'idMaquina']).where('nif', '=', nif));
    return all.some((d) => this.deviceHasChain(d.entorno, nif, d.idMaquina));
  }

  // ------------------------------------------------------------------ series ownership

  seriesOwner(entorno: Entorno, nif: string, serie: string): SeriesClaim | undefined {
    return this.cache.get(`serie\u0000${entorno}\u0000${nif}\u0000${serie}`, () => frozen(this.hot.seriesOwner.first({ entorno, nif, serie })));
  }

  series({ entorno, nif }: Key): SeriesClaim[] {
    return this.db.all(this.db.kysely.selectFrom('device_series').selectAll().where('entorno', '=', entorno).where('nif', '=', nif).orderBy('reclamadaEn').orderBy('serie'));
  }

  /**
   * Issuing in `activa`: the first invoice on an unclaimed series claims it for its writer (a
   * device's idMaquina or SHARD0). Never overwrites: returns false when it was already owned.
   */
  claimSeries(entorno: Entorno, nif: string, serie: string, idMaquinaPropietaria: string, now: string): boolean {
    this.cache.noteWrite();
    return this.hot.claimSeries.run({ entorno, nif, serie, idMaquinaPropietaria, reclamadaEn: now }) === 1;
  }

  /** series-centralizadas: reserves for SHARD0 when unclaimed; returns false when already owned. */
  reserveSeries(entorno: Entorno, nif: string, serie: string, now: string): boolean {
    this.cache.noteWrite();
    return (
      this.db.run(
        this.db.kysely
          .insertInto('device_series')
          .values({ entorno, nif, serie, idMaquinaPropietaria: SHARD0, reclamadaEn: now, reservada: 1 })
          .onConflict((oc) => oc.doNothing()),
      ) === 1
    );
  }

  /** Releases a SHARD0 reservation (only a reservation: a claim by an invoice is for ever). */
  releaseReservation(entorno: Entorno, nif: string, serie: string): boolean {
    this.cache.noteWrite();
    return (
      this.db.run(
        this.db.kysely
          .deleteFrom('device_series')
          .where('entorno', '=', entorno)
          .where('nif', '=', nif)
          .where('serie', '=', serie)
          .where('idMaquinaPropietaria', '=', SHARD0)
          .where('reservada', '=', 1),
      ) === 1
    );
  }

  // ------------------------------------------------------------------ observed identifiers

  /** Issuing in `preparacion`: notes an idMaquina sent by the integration. */
  noteObserved(entorno: Entorno, nif: string, idMaquina: string, now: string): void {
    this.hot.noteObserved.run({ entorno, nif, idMaquina, now });
  }

  /** Identifiers noted since `desde` (the current observation window). */
  observed({ entorno, nif }: Key, desde: string): ObservedId[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('device_observations')
        .selectAll()
        .where('entorno', '=', entorno)
        .where('nif', '=', nif)
        .where('ultimaVez', '>=', desde)
        .orderBy('primeraVez')
        .orderBy('idMaquina'),
    );
  }
}
