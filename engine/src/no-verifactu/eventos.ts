// The event log of a «NO VERI*FACTU» installation: RegistroEvento documents (EventosSIF.xsd), each
// chained to the previous one by its HuellaEvento (AEAT hash spec, section 3.c: NIF, ID,
// IdSistemaInformatico, Version, NumeroInstalacion, ObligadoEmision NIF, TipoEvento, the previous
// HuellaEvento, FechaHoraHusoGenEvento) and signed (firma.ts). One chain per installation: an
// issuer in one environment. Events are appended inside the caller's transaction, so an event
// exists exactly when what it records does.
import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import type { SifEventosCabezaTable, SifEventosTable } from '../db/schema/no-verifactu';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import { fechaHoraHusoGenRegistro } from '../issuing/fecha-hora';
import { huellaDeCadena } from '../regimes/verifactu/record/huella';
import type { SistemaInformatico } from '../regimes/verifactu/record/registro';
import { escapeXml } from '../regimes/verifactu/record/xml-escape';
import { firmarRegistro, type IdentidadFirma } from './firma';
import type { NoVerifactuStore } from './store';

export const NS_EVENTOS = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/EventosSIF.xsd';

/** TipoEventoType of EventosSIF.xsd. */
export const TIPOS_EVENTO = {
  inicioNoVerifactu: '01',
  finNoVerifactu: '02',
  lanzamientoAnomaliasFacturacion: '03',
  anomaliaFacturacion: '04',
  lanzamientoAnomaliasEventos: '05',
  anomaliaEvento: '06',
  restauracionCopia: '07',
  exportacionFacturacion: '08',
  exportacionEventos: '09',
  resumen: '10',
  otros: '90',
} as const;
export type TipoEvento = (typeof TIPOS_EVENTO)[keyof typeof TIPOS_EVENTO];

export interface NuevoEvento {
  tipoEvento: TipoEvento;
  /** The content of DatosPropiosEvento (one of its choices, `sf:` elements), already escaped. */
  datosPropios?: string | undefined;
  /** OtrosDatosEvento (≤ 100 characters). */
  otrosDatos?: string | undefined;
}

export interface CamposHuellaEvento {
  nifSistema: string;
  idSistemaInformatico: string;
  version: string;
  numeroInstalacion: string;
  nifObligado: string;
  tipoEvento: string;
  huellaAnterior: string | null;
  fechaHoraHusoGenEvento: string;
}

/** The string hashed for a RegistroEvento (hash spec 3.c; ID is empty: the system has a NIF). */
export function cadenaHuellaEvento(c: CamposHuellaEvento): string {
  const v = (s: string | null) => (s ?? '').trim();
  return (
    'NIF=' + v(c.nifSistema) + '&ID=&IdSistemaInformatico=' + v(c.idSistemaInformatico) + '&Version=' + v(c.version) +
    '&NumeroInstalacion=' + v(c.numeroInstalacion) + '&NIF=' + v(c.nifObligado) + '&TipoEvento=' + v(c.tipoEvento) +
    '&HuellaEvento=' + v(c.huellaAnterior) + '&FechaHoraHusoGenEvento=' + v(c.fechaHoraHusoGenEvento)
  );
}

export function huellaEvento(c: CamposHuellaEvento): string {
  return huellaDeCadena(cadenaHuellaEvento(c));
}

const e = escapeXml;
const el = (name: string, value: string) => '<sf:' + name + '>' + e(value) + '</sf:' + name + '>';

function sistemaXml(s: SistemaInformatico): string {
  return (
    '<sf:SistemaInformatico>' + el('NombreRazon', s.nombreRazon) + el('NIF', s.nif) +
    el('NombreSistemaInformatico', s.nombreSistemaInformatico) + el('IdSistemaInformatico', s.idSistemaInformatico) +
    el('Version', s.version) + el('NumeroInstalacion', s.numeroInstalacion) +
    el('TipoUsoPosibleSoloVerifactu', s.tipoUsoPosibleSoloVerifactu) + el('TipoUsoPosibleMultiOT', s.tipoUsoPosibleMultiOT) +
    el('IndicadorMultiplesOT', s.indicadorMultiplesOT) + '</sf:SistemaInformatico>'
  );
}

export interface EventoConstruido {
  xml: string;
  huella: string;
  fechaHoraHusoGenEvento: string;
}

/** An unsigned RegistroEvento and its huella. */
export function buildRegistroEvento(input: {
  sistema: SistemaInformatico;
  obligado: { nif: string; nombre: string };
  evento: NuevoEvento;
  anterior: Pick<SifEventosCabezaTable, 'tipoEvento' | 'fechaHoraHusoGenEvento' | 'huella'> | null;
  generadoEn: Date;
}): EventoConstruido {
  const { sistema, obligado, evento, anterior } = input;
  const fechaHora = fechaHoraHusoGenRegistro(input.generadoEn);
  const huella = huellaEvento({
    nifSistema: sistema.nif,
    idSistemaInformatico: sistema.idSistemaInformatico,
    version: sistema.version,
    numeroInstalacion: sistema.numeroInstalacion,
    nifObligado: obligado.nif,
    tipoEvento: evento.tipoEvento,
    huellaAnterior: anterior?.huella ?? null,
    fechaHoraHusoGenEvento: fechaHora,
  });
  const xml =
    '<sf:RegistroEvento xmlns:sf="' + NS_EVENTOS + '"><sf:IDVersion>1.0</sf:IDVersion><sf:Evento>' +
    sistemaXml(sistema) +
    '<sf:ObligadoEmision>' + el('NombreRazon', obligado.nombre) + el('NIF', obligado.nif) + '</sf:ObligadoEmision>' +
    el('FechaHoraHusoGenEvento', fechaHora) + el('TipoEvento', evento.tipoEvento) +
    (evento.datosPropios !== undefined ? '<sf:DatosPropiosEvento>' + evento.datosPropios + '</sf:DatosPropiosEvento>' : '') +
    (evento.otrosDatos !== undefined ? el('OtrosDatosEvento', evento.otrosDatos.slice(0, 100)) : '') +
    '<sf:Encadenamiento>' +
    (anterior === null
      ? '<sf:PrimerEvento>S</sf:PrimerEvento>'
      : '<sf:EventoAnterior>' + el('TipoEvento', anterior.tipoEvento) + el('FechaHoraHusoGenEvento', anterior.fechaHoraHusoGenEvento) +
        el('HuellaEvento', anterior.huella) + '</sf:EventoAnterior>') +
    '</sf:Encadenamiento><sf:TipoHuella>01</sf:TipoHuella>' + el('HuellaEvento', huella) + '</sf:Evento></sf:RegistroEvento>';
  return { xml, huella, fechaHoraHusoGenEvento: fechaHora };
}

/** The signed event log of every «NO VERI*FACTU» installation of this engine. */
export class RegistroEventos {
  constructor(
    private readonly deps: {
      db: Database;
      store: NoVerifactuStore;
      clock: Clock;
      ids: IdGenerator;
      /** The SIF as the event records name it (NumeroInstalacion of this install). */
      sistema: SistemaInformatico;
      identidad: (entorno: Entorno) => IdentidadFirma;
    },
  ) {}

  cabeza(entorno: Entorno, nif: string): SifEventosCabezaTable | undefined {
    return this.deps.store.cabezaEventos(entorno, nif);
  }

  /**
   * Appends a signed event to the installation's chain. Runs in the caller's transaction (or its
   * own): the event and what it records commit together.
   */
  anotar(entorno: Entorno, obligado: { nif: string; nombre: string }, evento: NuevoEvento): SifEventosTable {
    const { db, store, clock, ids, sistema } = this.deps;
    return db.transaction(() => {
      const now = clock.now();
      const cabeza = this.cabeza(entorno, obligado.nif);
      const built = buildRegistroEvento({ sistema, obligado, evento, anterior: cabeza ?? null, generadoEn: now });
      const row: SifEventosTable = {
        id: ids.next('evt'),
        entorno,
        nif: obligado.nif,
        seq: (cabeza?.seq ?? 0) + 1,
        tipoEvento: evento.tipoEvento,
        fechaHoraHusoGenEvento: built.fechaHoraHusoGenEvento,
        huella: built.huella,
        huellaAnterior: cabeza?.huella ?? null,
        xml: firmarRegistro(built.xml, this.deps.identidad(entorno), now),
        creadoEn: now.toISOString(),
      };
      store.anotarEvento(row);
      return row;
    });
  }

  /** The installation's events in chain order. */
  todos(entorno: Entorno, nif: string): SifEventosTable[] {
    return this.deps.store.eventos(entorno, nif);
  }

  /** A page, newest first: events with seq below `antesDe`. */
  pagina(entorno: Entorno, nif: string, antesDe: number | undefined, limite: number): SifEventosTable[] {
    return this.deps.store.paginaEventos(entorno, nif, antesDe, limite);
  }
}
