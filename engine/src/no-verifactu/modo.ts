// The SIF mode of an issuer's installation (issue 32): `verifactu` (the default: every record
// sent to the AEAT) or `no_verifactu` (records signed and kept, an event log, sent only on the
// AEAT's requirement). Set by the service team only; never per invoice or per session.
//
// Switching rules (docs/api-contract.md, «NO VERI*FACTU»):
//   - Choosing VERI*FACTU (sending every record) binds for the whole calendar year (RD 1007/2023,
//     Reglamento art. 16; the AEAT's FAQs): an issuer that sent a record, or chose VERI*FACTU,
//     in the current Madrid calendar year cannot go to NO VERI*FACTU before 1 January of the next.
//   - Going from NO VERI*FACTU to VERI*FACTU is allowed at any time (it only adds sending).
//   - TicketBAI issuers are out of scope: the Basque treasuries have their own rules.
// Each switch writes its event (01 start, 02 end of operation as NO VERI*FACTU) in the same
// transaction as the mode.
import type { Entorno } from '../../../src-shared/api/common';
import type { Issuer } from '../clients/store';
import type { Database } from '../db/database';
import type { ModoSif } from '../db/schema/no-verifactu';
import { EngineError } from '../core/errors';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import { madridParts } from '../platform/madrid-calendar';
import { TIPOS_EVENTO, type RegistroEventos } from './eventos';
import type { NoVerifactuStore } from './store';

export type { ModoSif };

export interface EstadoModoSif {
  nif: string;
  entorno: Entorno;
  modoSif: ModoSif;
  /** When the current mode was set; null for the default never set. */
  desde: string | null;
  /** False when the request asked for the mode already in force. */
  cambiado: boolean;
}

/** First instant of the Madrid calendar year of `instant`, as an ISO string. */
export function inicioAnoMadrid(instant: Date): string {
  const { year } = madridParts(instant);
  // 1 January is always CET (UTC+1): midnight there is 23:00 UTC of 31 December.
  return new Date(Date.UTC(year - 1, 11, 31, 23, 0, 0)).toISOString();
}

export class ModosSif {
  constructor(
    private readonly deps: { db: Database; store: NoVerifactuStore; clock: Clock; ids: IdGenerator; eventos: RegistroEventos },
  ) {}

  modo(entorno: Entorno, nif: string): ModoSif {
    return this.deps.store.modoSif(entorno, nif) ?? 'verifactu';
  }

  /** Modes of several issuers at once (lists). */
  modos(entorno: Entorno, nifs: readonly string[]): Map<string, ModoSif> {
    if (nifs.length === 0) return new Map();
    const rows = this.deps.store.modosSif(entorno, nifs);
    return new Map(rows.map((r) => [r.nif, r.modoSif]));
  }

  estado(entorno: Entorno, nif: string): Omit<EstadoModoSif, 'cambiado'> {
    const row = this.deps.store.modo(entorno, nif);
    return { nif, entorno, modoSif: row?.modoSif ?? 'verifactu', desde: row?.desde ?? null };
  }

  /** Sets the mode of `issuer`'s installation, or refuses with the rule that forbids it. */
  cambiar(issuer: Issuer, modo: ModoSif): EstadoModoSif {
    const { db, store, clock, ids, eventos } = this.deps;
    if (issuer.hacienda !== 'verifactu') {
      throw new EngineError(
        409,
        'SIF_MODE_NOT_APPLICABLE',
        'El modo NO VERI*FACTU es del sistema estatal: un emisor TicketBAI sigue las normas de su Hacienda foral',
        { campo: 'modoSif' },
      );
    }
    return db.transaction(() => {
      const actual = this.estado(issuer.entorno, issuer.nif);
      if (actual.modoSif === modo) return { ...actual, cambiado: false };
      const now = clock.now();
      const nowIso = now.toISOString();
      if (modo === 'no_verifactu') this.comprobarAnoVerifactu(issuer, now);
      store.cambiarModo({ id: ids.next('modo'), entorno: issuer.entorno, nif: issuer.nif, modoSif: modo, creadoEn: nowIso });
      eventos.anotar(issuer.entorno, { nif: issuer.nif, nombre: issuer.nombre }, {
        tipoEvento: modo === 'no_verifactu' ? TIPOS_EVENTO.inicioNoVerifactu : TIPOS_EVENTO.finNoVerifactu,
      });
      return { nif: issuer.nif, entorno: issuer.entorno, modoSif: modo, desde: nowIso, cambiado: true };
    });
  }

  /** VERI*FACTU chosen this calendar year (a record sent, or the mode set) binds until 31 December. */
  private comprobarAnoVerifactu(issuer: Issuer, now: Date): void {
    const { store } = this.deps;
    const desde = inicioAnoMadrid(now);
    const { year } = madridParts(now);
    const desdeCuando = store.primerEnvioDesde(issuer.entorno, issuer.nif, desde) ?? store.eleccionVerifactuDesde(issuer.entorno, issuer.nif, desde);
    if (desdeCuando === undefined) return;
    throw new EngineError(
      409,
      'SIF_MODE_LOCKED_YEAR',
      `El emisor funciona como VERI*FACTU en ${year} (desde ${desdeCuando.slice(0, 10)}): esa opción se mantiene todo el año natural; ` +
        `NO VERI*FACTU puede elegirse a partir del 1 de enero de ${year + 1}`,
      { campo: 'modoSif', details: { ano: year, verifactuDesde: desdeCuando, disponibleDesde: `${year + 1}-01-01` } },
    );
  }
}
