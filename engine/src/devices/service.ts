import type { Entorno } from '../../../src-shared/api/common';
import { normalizeNif } from '../../../src-shared/nif';
import type { DispositivosResponse } from '../../../src-shared/api/dispositivos';
import type { Account } from '../account/store';
import type { ClientService } from '../clients/service';
import type { ClientRecord, IssuerStore } from '../clients/store';
import type { Database } from '../db/database';
import type { FaseAltaCapacidad } from '../db/schema/devices';
import { notFound } from '../core/errors';
import type { Clock } from '../platform/clock';
import {
  clientNotInLive,
  deviceLabelTaken,
  machineAlreadyRegistered,
  machineNotFound,
  notInPreparation,
  phaseLocked,
  reservationLocked,
  serieNotReserved,
  serieOwnedByOtherMachine,
  shardingNotEnabled,
} from './errors';
import { SHARD0, type Device, type DeviceStore, type Phase } from './store';
import { dispositivoView } from './views';

export interface Who {
  account: Account;
  entorno: Entorno;
}

export interface DeviceServiceDeps {
  db: Database;
  devices: DeviceStore;
  issuers: IssuerStore;
  clients: ClientService;
  clock: Clock;
  /** Called inside the deactivation's transaction (a till's own credential is revoked with it). */
  onDeactivated?: (accountId: string, idMaquina: string) => void;
}

type Motivo = 'no_existe' | 'dado_de_baja' | 'ya_registrado';

/**
 * The devices capability (spec: Device and series, Device `activo`, Phase `faseAltaCapacidad`,
 * Series ownership, Devices). Each call is one transaction; the issuer must be the caller's in the
 * key's environment (another account's: 403 FORBIDDEN; nobody's: 404 NOT_FOUND).
 */
export class DeviceService {
  constructor(private readonly deps: DeviceServiceDeps) {}

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private issuer(who: Who, nif: string): ClientRecord {
    return this.deps.clients.find(who, nif);
  }

  /** Device writes need the mode: `no_contratada` answers 409 SHARDING_NOT_ENABLED. */
  private writablePhase(who: Who, nif: string): Phase {
    const phase = this.deps.devices.phase(who.account.id, nif);
    if (phase.faseAltaCapacidad === 'no_contratada') throw shardingNotEnabled();
    return phase;
  }

  // ------------------------------------------------------------------ reads

  status(who: Who, rawNif: string): DispositivosResponse {
    return this.deps.db.transaction(() => {
      const { issuer } = this.issuer(who, rawNif);
      const key = { entorno: who.entorno, nif: issuer.nif };
      const phase = this.deps.devices.phase(who.account.id, issuer.nif);
      const devices = this.deps.devices.devices(key);
      const active = new Set(devices.filter((d) => d.activo === 1).map((d) => d.idMaquina));
      // Notes are taken during preparation only; no_contratada shows none.
      const observed =
        phase.faseAltaCapacidad === 'no_contratada' ? [] : this.deps.devices.observed(key, phase.faseAltaCapacidad === 'preparacion' ? (phase.observandoDesde ?? '') : '');
      return {
        entorno: who.entorno,
        nif: issuer.nif,
        modoCadena: phase.modoCadena,
        faseAltaCapacidad: phase.faseAltaCapacidad,
        ...(phase.faseAltaCapacidad === 'preparacion' && phase.observandoDesde !== null ? { observandoDesde: phase.observandoDesde } : {}),
        ...(phase.activacionSolicitadaEn !== null ? { activacionSolicitadaEn: phase.activacionSolicitadaEn } : {}),
        dispositivos: devices.map(dispositivoView),
        series: this.deps.devices.series(key).map((s) => ({ serie: s.serie, idMaquinaPropietaria: s.idMaquinaPropietaria, reclamadaEn: s.reclamadaEn })),
        idsMaquinaVistos: observed.map((o) => ({ idMaquina: o.idMaquina, primeraVez: o.primeraVez, ultimaVez: o.ultimaVez, registrado: active.has(o.idMaquina) })),
      };
    });
  }

  // ------------------------------------------------------------------ device lifecycle

  /** 201 for a new device; 200 `reactivado` for a deactivated one; 409 when already active. */
  register(who: Who, rawNif: string, body: { idMaquina: string; etiqueta?: string | undefined }): { status: 200 | 201; device: Device } {
    return this.deps.db.transaction(() => {
      const { issuer } = this.issuer(who, rawNif);
      this.writablePhase(who, issuer.nif);
      const existing = this.deps.devices.device(who.entorno, issuer.nif, body.idMaquina);
      const now = this.now();
      if (existing?.activo === 1) throw machineAlreadyRegistered(body.idMaquina);
      const etiqueta = body.etiqueta ?? existing?.etiqueta ?? '';
      if (this.labelTaken(who.entorno, issuer.nif, body.idMaquina, etiqueta)) throw deviceLabelTaken(etiqueta.trim());
      if (existing) {
        this.deps.devices.reactivate(who.entorno, issuer.nif, body.idMaquina, now, body.etiqueta);
        return { status: 200 as const, device: this.mustFind(who.entorno, issuer.nif, body.idMaquina) };
      }
      const device = this.deps.devices.insertDevice({ entorno: who.entorno, nif: issuer.nif, idMaquina: body.idMaquina, etiqueta: body.etiqueta ?? '', now });
      return { status: 201 as const, device };
    });
  }

  /** Another active device of the issuer already goes by this name (trimmed, any case); an empty name is never taken. */
  private labelTaken(entorno: Entorno, nif: string, idMaquina: string, etiqueta: string): boolean {
    const name = etiqueta.trim().toLocaleLowerCase('es');
    if (!name) return false;
    return this.deps.devices.devices({ entorno, nif }).some((d) => d.activo === 1 && d.idMaquina !== idMaquina && d.etiqueta.trim().toLocaleLowerCase('es') === name);
  }

  /** Idempotent: a repeat keeps the first `dadoDeBajaEn`. */
  deactivate(who: Who, rawNif: string, idMaquina: string): Device {
    return this.deps.db.transaction(() => {
      const { issuer } = this.issuer(who, rawNif);
      this.writablePhase(who, issuer.nif);
      if (!this.deps.devices.device(who.entorno, issuer.nif, idMaquina)) throw machineNotFound(idMaquina);
      this.deps.devices.deactivate(who.entorno, issuer.nif, idMaquina, this.now());
      this.deps.onDeactivated?.(who.account.id, idMaquina);
      return this.mustFind(who.entorno, issuer.nif, idMaquina);
    });
  }

  private mustFind(entorno: Entorno, nif: string, idMaquina: string): Device {
    const device = this.deps.devices.device(entorno, nif, idMaquina);
    if (!device) throw machineNotFound(idMaquina);
    return device;
  }

  /**
   * TEST → LIVE with the key of either environment: identifier and label only; never reactivates
   * (a device deactivated in LIVE is `ya_registrado`).
   */
  promote(who: Who, rawNif: string, idsMaquina: string[] | undefined): { creados: string[]; omitidos: { idMaquina: string; motivo: Motivo }[] } {
    return this.deps.db.transaction(() => {
      // The source is TEST whichever key calls: with the LIVE key, an issuer only in TEST is
      // 409 CLIENT_NOT_IN_LIVE (spec), not a LIVE lookup's 404.
      const { issuer } = this.issuer({ ...who, entorno: 'test' }, rawNif);
      this.writablePhase(who, issuer.nif);
      const live = this.deps.issuers.findClient(who.account.id, 'live', issuer.nif);
      if (!live || live.issuer.estado === 'eliminado') throw clientNotInLive();
      const testDevices = this.deps.devices.devices({ entorno: 'test', nif: issuer.nif });
      const byId = new Map(testDevices.map((d) => [d.idMaquina, d]));
      const wanted = idsMaquina ? [...new Set(idsMaquina)] : testDevices.filter((d) => d.activo === 1).map((d) => d.idMaquina);
      const creados: string[] = [];
      const omitidos: { idMaquina: string; motivo: Motivo }[] = [];
      const now = this.now();
      for (const idMaquina of wanted) {
        const source = byId.get(idMaquina);
        if (!source) omitidos.push({ idMaquina, motivo: 'no_existe' });
        else if (source.activo !== 1) omitidos.push({ idMaquina, motivo: 'dado_de_baja' });
        else if (this.deps.devices.device('live', issuer.nif, idMaquina)) omitidos.push({ idMaquina, motivo: 'ya_registrado' });
        else {
          this.deps.devices.insertDevice({ entorno: 'live', nif: issuer.nif, idMaquina, etiqueta: source.etiqueta, now });
          creados.push(idMaquina);
        }
      }
      return { creados, omitidos };
    });
  }

  /** The activation notice: only in `preparacion`; the first call's date stays. */
  requestActivation(who: Who, rawNif: string): string {
    return this.deps.db.transaction(() => {
      const { issuer } = this.issuer(who, rawNif);
      const phase = this.deps.devices.phase(who.account.id, issuer.nif);
      if (phase.faseAltaCapacidad !== 'preparacion') throw notInPreparation();
      return this.deps.devices.requestActivation(who.account.id, issuer.nif, this.now());
    });
  }

  // ------------------------------------------------------------------ centralized series

  /** Reserves for `__SHARD0__`; idempotent; never overwrites a device owner. */
  reserve(who: Who, rawNif: string, series: string[]): { reservadas: string[]; omitidas: { serie: string; motivo: 'propiedad_de_dispositivo'; idMaquina: string }[] } {
    return this.deps.db.transaction(() => {
      const { issuer } = this.issuer(who, rawNif);
      this.writablePhase(who, issuer.nif);
      const reservadas: string[] = [];
      const omitidas: { serie: string; motivo: 'propiedad_de_dispositivo'; idMaquina: string }[] = [];
      const now = this.now();
      for (const serie of new Set(series)) {
        const owner = this.deps.devices.seriesOwner(who.entorno, issuer.nif, serie);
        if (owner && owner.idMaquinaPropietaria !== SHARD0) {
          omitidas.push({ serie, motivo: 'propiedad_de_dispositivo', idMaquina: owner.idMaquinaPropietaria });
          continue;
        }
        if (!owner) this.deps.devices.reserveSeries(who.entorno, issuer.nif, serie, now);
        reservadas.push(serie);
      }
      return { reservadas, omitidas };
    });
  }

  /** Releases a `__SHARD0__` reservation: `preparacion` only. */
  release(who: Who, rawNif: string, serie: string): void {
    this.deps.db.transaction(() => {
      const { issuer } = this.issuer(who, rawNif);
      const phase = this.writablePhase(who, issuer.nif);
      if (phase.faseAltaCapacidad === 'activa') throw reservationLocked();
      const owner = this.deps.devices.seriesOwner(who.entorno, issuer.nif, serie);
      if (owner && owner.idMaquinaPropietaria !== SHARD0) throw serieOwnedByOtherMachine(serie, owner.idMaquinaPropietaria);
      if (!owner || owner.reservada !== 1 || !this.deps.devices.releaseReservation(who.entorno, issuer.nif, serie)) throw serieNotReserved(serie);
    });
  }

  // ------------------------------------------------------------------ phase (service team only)

  /** The account's issuer's phase (shared by TEST and LIVE), for the panel and support staff. */
  phaseOf(accountId: string, rawNif: string): Phase {
    return this.deps.devices.phase(accountId, normalizeNif(rawNif));
  }

  /**
   * The service team's move (panel API, admin CLI), for the issuer's account in both
   * environments. Any move is allowed except leaving `activa` once a device has a chain.
   */
  setPhase(accountId: string, rawNif: string, fase: FaseAltaCapacidad): Phase {
    const nif = normalizeNif(rawNif);
    return this.deps.db.transaction(() => {
      const held = (['test', 'live'] as const).some((entorno) => this.deps.issuers.findClient(accountId, entorno, nif));
      if (!held) throw notFound('El emisor no existe en esta cuenta');
      const before = this.deps.devices.phase(accountId, nif);
      if (before.faseAltaCapacidad === 'activa' && fase !== 'activa' && this.deps.devices.anyDeviceHasChain(nif)) throw phaseLocked();
      return this.deps.devices.setPhase(accountId, nif, fase, this.now());
    });
  }
}
