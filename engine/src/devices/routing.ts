import type { Entorno } from '../../../src-shared/api/common';
import { SHARD0, type FaseAltaCapacidad, type ModoCadena } from '../db/schema/devices';
import { EngineError } from '../core/errors';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import type { DeviceStore } from './store';

/*
 * Where an issuing request goes, by the issuer's high-capacity phase (spec, "Phase
 * faseAltaCapacidad" and "Series ownership"). Every function here runs inside the issuing
 * transaction, so the phase read, the device check, the series claim, the observation note and
 * the numeroInstalacion assignment commit (or roll back) with the invoice, record, chain head and
 * outbox row.
 *
 *   no_contratada, preparacion  one chain per (environment, issuer, regime); idMaquina is metadata
 *                               (noted in preparacion);
 *   activa                      idMaquina → its device's chain; none → the centralized writer
 *                               __SHARD0__, whose chain is the issuer's single chain.
 */

const FASES: readonly FaseAltaCapacidad[] = ['no_contratada', 'preparacion', 'activa'];
const MODOS: readonly ModoCadena[] = ['unica', 'por_dispositivo'];

export const shardingUnavailable = () =>
  new EngineError(
    503,
    'SHARDING_UNAVAILABLE',
    'No se ha podido comprobar la configuración de dispositivos del emisor; reintente: la factura no se enruta sin comprobarla',
    {},
    { 'retry-after': '1' },
  );
const machineNotRegistered = (idMaquina: string) =>
  new EngineError(409, 'MACHINE_NOT_REGISTERED', `El dispositivo ${idMaquina} no está registrado o está dado de baja para este emisor en este entorno`, {
    campo: 'idMaquina',
  });
const serieOwnedByOther = (serie: string, propietaria: string) =>
  new EngineError(
    409,
    'SERIE_OWNED_BY_OTHER_MACHINE',
    propietaria === SHARD0
      ? `La serie «${serie}» pertenece al envío centralizado: ningún dispositivo puede usarla`
      : `La serie «${serie}» pertenece a otro dispositivo (${propietaria}); la propiedad de una serie es permanente`,
    { campo: 'serie', details: { serie, idMaquinaPropietaria: propietaria } },
  );

/** The writer of a record: the issuer's one chain, or (in `activa`) a device or the centralized flow. */
export type Writer =
  | { kind: 'unica' }
  | { kind: 'centralizado' }
  | { kind: 'dispositivo'; idMaquina: string };

export interface Phase {
  faseAltaCapacidad: FaseAltaCapacidad;
  modoCadena: ModoCadena;
}

interface IssuingTarget {
  accountId: string;
  entorno: Entorno;
  nif: string;
}

export class DeviceRouting {
  constructor(
    private readonly devices: DeviceStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * The issuer's phase; no row is `no_contratada`. Anything that keeps it from being read or
   * understood (a SQLite error, a value outside the spec's) is 503 SHARDING_UNAVAILABLE, never a
   * guess: an invoice is never routed unverified.
   */
  phase(accountId: string, nif: string): Phase {
    const { faseAltaCapacidad, modoCadena } = this.guard(() => this.devices.phase(accountId, nif));
    const fase = FASES.find((f) => f === faseAltaCapacidad);
    const modo = MODOS.find((m) => m === modoCadena);
    if (!fase || !modo) throw shardingUnavailable();
    return { faseAltaCapacidad: fase, modoCadena: modo };
  }

  /**
   * The writer of a new invoice (crear), with its series claimed in `activa`: the first invoice
   * on a series owns it for ever; another writer's series is 409 SERIE_OWNED_BY_OTHER_MACHINE.
   */
  routeNewInvoice(target: IssuingTarget, serie: string, idMaquina: string | undefined): Writer {
    const writer = this.writerOf(target, idMaquina);
    if (writer.kind === 'unica') return writer;
    const owner = writer.kind === 'dispositivo' ? writer.idMaquina : SHARD0;
    this.guard(() => {
      const claimed = this.devices.seriesOwner(target.entorno, target.nif, serie);
      if (claimed && claimed.idMaquinaPropietaria !== owner) throw serieOwnedByOther(serie, claimed.idMaquinaPropietaria);
      if (!claimed) this.devices.claimSeries(target.entorno, target.nif, serie, owner, this.clock.now().toISOString());
    });
    return writer;
  }

  /**
   * Where routeNewInvoice would send a new invoice, read only (nothing noted, no series claimed):
   * for work done before the issuing transaction, which routes again and decides.
   */
  previewNewInvoice(target: IssuingTarget, idMaquina: string | undefined): Writer {
    return this.writerOf(target, idMaquina, { readOnly: true });
  }

  /**
   * The writer behind a request that claims nothing (anular, subsanar): the phase and the
   * request's idMaquina are checked (noted in `preparacion`; in `activa` an unknown or
   * deactivated device is 409), but the record goes where the caller says — the chain of the
   * invoice it cancels or corrects.
   */
  checkFollowUp(target: IssuingTarget, idMaquina: string | undefined): Writer {
    return this.writerOf(target, idMaquina);
  }

  /**
   * The device's numeroInstalacion, assigned (from the injected id generator) with its first
   * VeriFactu record and kept for ever: the device is a SIF of its own (AEAT FAQ 4).
   */
  numeroInstalacion(target: IssuingTarget, idMaquina: string): string {
    return this.guard(() => {
      const device = this.devices.device(target.entorno, target.nif, idMaquina);
      if (!device) throw machineNotRegistered(idMaquina);
      if (device.numeroInstalacion !== null) return device.numeroInstalacion;
      const numero = this.ids.next('inst');
      this.devices.assignNumeroInstalacion(target.entorno, target.nif, idMaquina, numero);
      return numero;
    });
  }

  /** The device's numeroInstalacion if it has one already, read only (null: none yet, or no such device). */
  numeroInstalacionAsignado(target: IssuingTarget, idMaquina: string): string | null {
    return this.guard(() => this.devices.device(target.entorno, target.nif, idMaquina)?.numeroInstalacion ?? null);
  }

  private writerOf(target: IssuingTarget, idMaquina: string | undefined, options: { readOnly?: boolean } = {}): Writer {
    const { faseAltaCapacidad, modoCadena } = this.phase(target.accountId, target.nif);
    if (faseAltaCapacidad === 'preparacion' && idMaquina !== undefined && options.readOnly !== true) {
      // idsMaquinaVistos: noted from the issuing traffic of the preparation window.
      this.guard(() => this.devices.noteObserved(target.entorno, target.nif, idMaquina, this.clock.now().toISOString()));
    }
    if (modoCadena !== 'por_dispositivo') return { kind: 'unica' };
    if (idMaquina === undefined) return { kind: 'centralizado' };
    const device = this.guard(() => this.devices.device(target.entorno, target.nif, idMaquina));
    if (device?.activo !== 1) throw machineNotRegistered(idMaquina);
    return { kind: 'dispositivo', idMaquina };
  }

  /** Device configuration that cannot be read or written is 503, never a routing guess; our own 4xx pass through. */
  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof EngineError) throw error;
      throw shardingUnavailable();
    }
  }
}
