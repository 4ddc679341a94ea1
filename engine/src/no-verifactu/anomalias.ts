// Anomaly detection of a «NO VERI*FACTU» installation (issue 32): every billing record's huella,
// signature and link recomputed from the stored XML (the chain verifier of issue 15, which also
// verifies signatures), and every event's HuellaEvento, signature and link to the previous event,
// plus the event chain's continuity (a deleted event leaves a gap, or a head that names it). The
// run and each anomaly are then written as events (03/04 for billing records, 05/06 for events),
// in one transaction.
import type { Element as XElement } from '@xmldom/xmldom';
import type { Entorno } from '../../../src-shared/api/common';
import type { ProblemaCadena } from '../../../src-shared/api/verificacion';
import type { Issuer } from '../clients/store';
import type { Database } from '../db/database';
import type { Clock } from '../platform/clock';
import type { SifEventosTable } from '../db/schema/no-verifactu';
import { parsearXml } from '../regimes/ticketbai/record/xades';
import { VerificadorCadena } from '../verification/cadenas';
import { escapeXml } from '../regimes/verifactu/record/xml-escape';
import { huellaEvento, TIPOS_EVENTO, type RegistroEventos } from './eventos';
import { verificarFirma } from './firma';
import type { NoVerifactuStore } from './store';

/** TipoAnomaliaType of EventosSIF.xsd (the ones this check can tell apart). */
export const TIPOS_ANOMALIA = {
  integridadHuella: '01',
  integridadFirma: '02',
  integridadOtros: '03',
  anteriorInexistente: '04',
  posteriorInexistente: '05',
  cadenaRegistroOtros: '06',
  huellaAnteriorNoCoincide: '08',
  cadenaOtros: '10',
  fechaAnteriorALaPrevia: '11',
  fechaFutura: '13',
} as const;

export interface Anomalia {
  ambito: 'registro' | 'evento';
  tipoAnomalia: string;
  /** The record's or event's id (for a missing event: the sequence position it should hold). */
  id: string;
  detalle: string;
}

export interface ResultadoDeteccion {
  nif: string;
  entorno: Entorno;
  registrosAnalizados: number;
  eventosAnalizados: number;
  anomalias: Anomalia[];
  /** The events this run wrote (launches and anomalies), in order. */
  eventosAnotados: { id: string; tipoEvento: string; huella: string }[];
}

const ANOMALIA_DE_PROBLEMA: Record<ProblemaCadena['tipo'], string> = {
  rotura: TIPOS_ANOMALIA.integridadHuella,
  firma_invalida: TIPOS_ANOMALIA.integridadFirma,
  enlace_colgante: TIPOS_ANOMALIA.anteriorInexistente,
  bifurcacion: TIPOS_ANOMALIA.cadenaRegistroOtros,
  fuera_de_cadena: TIPOS_ANOMALIA.cadenaOtros,
};

function hijo(e: XElement | undefined, local: string): XElement | undefined {
  for (let n = e?.firstChild ?? null; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as XElement).localName === local) return n as XElement;
  }
  return undefined;
}
const texto = (e: XElement | undefined, ...ruta: string[]) => {
  let cur = e;
  for (const local of ruta) cur = hijo(cur, local);
  return (cur?.textContent ?? '').trim();
};

const el = (name: string, value: string) => '<sf:' + name + '>' + escapeXml(value) + '</sf:' + name + '>';

/**
 * A detection run's launch block (EventosSIF.xsd): the four checks — hashes, signatures, chain,
 * dates — each done over `n` billing records (`Facturacion`) or events (`Evento`).
 */
function lanzamiento(de: 'Facturacion' | 'Evento', n: string): string {
  const checks = ['IntegridadHuellas', 'IntegridadFirmas', 'TrazabilidadCadena', 'TrazabilidadFechas']
    .map((c) => el(`RealizadoProcesoSobre${c}Reg${de}`, 'S') + el(`NumeroDeRegistros${de}ProcesadosSobre${c}`, n))
    .join('');
  return `<sf:LanzamientoProcesoDeteccionAnomaliasReg${de}>${checks}</sf:LanzamientoProcesoDeteccionAnomaliasReg${de}>`;
}

export class DeteccionAnomalias {
  constructor(private readonly deps: { db: Database; store: NoVerifactuStore; eventos: RegistroEventos; clock: Clock }) {}

  /** Date traceability (TipoAnomalia 11, 13): not before the chain's previous one, not after now. */
  private fechas(ambito: Anomalia['ambito'], id: string, fecha: string, previa: number | undefined, ahora: number, anomalias: Anomalia[]): number | undefined {
    const t = Date.parse(fecha);
    if (Number.isNaN(t)) return previa;
    if (t > ahora) anomalias.push({ ambito, tipoAnomalia: TIPOS_ANOMALIA.fechaFutura, id, detalle: `generado ${fecha}, posterior a la hora del sistema` });
    if (previa !== undefined && t < previa) anomalias.push({ ambito, tipoAnomalia: TIPOS_ANOMALIA.fechaAnteriorALaPrevia, id, detalle: `generado ${fecha}, antes que el anterior` });
    return t;
  }

  /** Runs the check for one installation and records it (and what it found) as events. */
  ejecutar(issuer: Issuer): ResultadoDeteccion {
    const { db, eventos } = this.deps;
    return db.transaction(() => {
      const registros = this.registros(issuer.entorno, issuer.nif);
      const anomaliasRegistros = registros.anomalias;
      const evs = eventos.todos(issuer.entorno, issuer.nif);
      const anomaliasEventos = this.eventos(issuer.entorno, issuer.nif, evs);
      const obligado = { nif: issuer.nif, nombre: issuer.nombre };
      const anotados: SifEventosTable[] = [];
      const n = String(Math.min(registros.total, 9_999_999));
      anotados.push(
        eventos.anotar(issuer.entorno, obligado, {
          tipoEvento: TIPOS_EVENTO.lanzamientoAnomaliasFacturacion,
          datosPropios: lanzamiento('Facturacion', n),
        }),
      );
      for (const a of anomaliasRegistros) {
        const factura = registros.facturas.get(a.id);
        anotados.push(
          eventos.anotar(issuer.entorno, obligado, {
            tipoEvento: TIPOS_EVENTO.anomaliaFacturacion,
            datosPropios:
              '<sf:DeteccionAnomaliasRegFacturacion>' + el('TipoAnomalia', a.tipoAnomalia) + el('OtrosDatosAnomalia', a.detalle.slice(0, 100)) +
              (factura
                ? '<sf:RegistroFacturacionAnomalo>' + el('IDEmisorFactura', issuer.nif) + el('NumSerieFactura', factura.numeroFactura) +
                  el('FechaExpedicionFactura', factura.fechaExpedicion) + '</sf:RegistroFacturacionAnomalo>'
                : '') +
              '</sf:DeteccionAnomaliasRegFacturacion>',
          }),
        );
      }
      const m = String(Math.min(evs.length, 99_999));
      anotados.push(
        eventos.anotar(issuer.entorno, obligado, {
          tipoEvento: TIPOS_EVENTO.lanzamientoAnomaliasEventos,
          datosPropios: lanzamiento('Evento', m),
        }),
      );
      const porId = new Map(evs.map((e) => [e.id, e]));
      for (const a of anomaliasEventos) {
        const ev = porId.get(a.id);
        anotados.push(
          eventos.anotar(issuer.entorno, obligado, {
            tipoEvento: TIPOS_EVENTO.anomaliaEvento,
            datosPropios:
              '<sf:DeteccionAnomaliasRegEvento>' + el('TipoAnomalia', a.tipoAnomalia) + el('OtrosDatosAnomalia', a.detalle.slice(0, 100)) +
              (ev
                ? '<sf:RegEventoAnomalo>' + el('TipoEvento', ev.tipoEvento) + el('FechaHoraHusoEvento', ev.fechaHoraHusoGenEvento) +
                  el('HuellaEvento', ev.huella) + '</sf:RegEventoAnomalo>'
                : '') +
              '</sf:DeteccionAnomaliasRegEvento>',
          }),
        );
      }
      return {
        nif: issuer.nif,
        entorno: issuer.entorno,
        registrosAnalizados: registros.total,
        eventosAnalizados: evs.length,
        anomalias: [...anomaliasRegistros, ...anomaliasEventos],
        eventosAnotados: anotados.map((e) => ({ id: e.id, tipoEvento: e.tipoEvento, huella: e.huella })),
      };
    });
  }

  /** The issuer's VeriFactu chains through the chain verifier; an unsigned «no_remitida» record is an anomaly too. */
  private registros(entorno: Entorno, nif: string) {
    const { store } = this.deps;
    const rows = store.registrosEnCadena(entorno, nif);
    const anomalias: Anomalia[] = [];
    const facturas = new Map<string, { numeroFactura: string; fechaExpedicion: string }>();
    const verificadores = new Map<string, VerificadorCadena>();
    const ultimaFecha = new Map<string, number | undefined>();
    const ahora = this.deps.clock.now().getTime();
    for (const r of rows) {
      const fecha = r.xml === null ? undefined : /<(?:[\w.-]+:)?FechaHoraHusoGenRegistro>([^<]+)</.exec(r.xml)?.[1];
      if (fecha !== undefined) ultimaFecha.set(r.chainKey, this.fechas('registro', r.id, fecha, ultimaFecha.get(r.chainKey), ahora, anomalias));
      facturas.set(r.id, { numeroFactura: r.numeroFactura, fechaExpedicion: r.fechaExpedicion });
      let v = verificadores.get(r.chainKey);
      if (v === undefined) verificadores.set(r.chainKey, (v = new VerificadorCadena(r.chainKey)));
      v.add({ ...r, xml: r.xml ?? null });
      if (r.estadoEnvio === 'no_remitida' && r.xml !== null && !r.xml.includes('<ds:Signature')) {
        anomalias.push({ ambito: 'registro', tipoAnomalia: TIPOS_ANOMALIA.integridadFirma, id: r.id, detalle: 'registro NO VERI*FACTU sin firma' });
      }
    }
    for (const [clave, v] of verificadores) {
      const head = store.cabezaCadena(clave);
      for (const p of v.terminar(head ? { length: head.length, lastRegistroId: head.lastRegistroId } : undefined).problemas) {
        anomalias.push({
          ambito: 'registro',
          tipoAnomalia: ANOMALIA_DE_PROBLEMA[p.tipo],
          id: p.idRegistro,
          detalle: `${p.tipo}${p.esperado !== undefined ? ` esperado ${p.esperado}` : ''}`,
        });
      }
    }
    return { total: rows.length, anomalias, facturas };
  }

  /** Every event recomputed from its own XML, its signature verified, and the chain followed. */
  private eventos(entorno: Entorno, nif: string, evs: SifEventosTable[]): Anomalia[] {
    const anomalias: Anomalia[] = [];
    let anterior: { seq: number; huella: string } | undefined;
    let fechaPrevia: number | undefined;
    const ahora = this.deps.clock.now().getTime();
    for (const ev of evs) {
      fechaPrevia = this.fechas('evento', ev.id, ev.fechaHoraHusoGenEvento, fechaPrevia, ahora, anomalias);
      const { doc } = parsearXml(ev.xml);
      const evento = hijo(doc?.documentElement ?? undefined, 'Evento');
      if (evento === undefined) {
        anomalias.push({ ambito: 'evento', tipoAnomalia: TIPOS_ANOMALIA.integridadOtros, id: ev.id, detalle: 'XML ilegible' });
        anterior = { seq: ev.seq, huella: ev.huella };
        continue;
      }
      const previa = texto(evento, 'Encadenamiento', 'EventoAnterior', 'HuellaEvento');
      const almacenada = texto(evento, 'HuellaEvento');
      const calculada = huellaEvento({
        nifSistema: texto(evento, 'SistemaInformatico', 'NIF'),
        idSistemaInformatico: texto(evento, 'SistemaInformatico', 'IdSistemaInformatico'),
        version: texto(evento, 'SistemaInformatico', 'Version'),
        numeroInstalacion: texto(evento, 'SistemaInformatico', 'NumeroInstalacion'),
        nifObligado: texto(evento, 'ObligadoEmision', 'NIF'),
        tipoEvento: texto(evento, 'TipoEvento'),
        huellaAnterior: previa === '' ? null : previa,
        fechaHoraHusoGenEvento: texto(evento, 'FechaHoraHusoGenEvento'),
      });
      if (calculada !== almacenada || almacenada !== ev.huella) {
        anomalias.push({ ambito: 'evento', tipoAnomalia: TIPOS_ANOMALIA.integridadHuella, id: ev.id, detalle: `huella esperada ${calculada}` });
      }
      if (!verificarFirma(ev.xml).valid) {
        anomalias.push({ ambito: 'evento', tipoAnomalia: TIPOS_ANOMALIA.integridadFirma, id: ev.id, detalle: 'la firma no se verifica' });
      }
      const esperadaSeq = (anterior?.seq ?? 0) + 1;
      if (ev.seq !== esperadaSeq) {
        anomalias.push({
          ambito: 'evento',
          tipoAnomalia: TIPOS_ANOMALIA.anteriorInexistente,
          id: ev.id,
          detalle: `faltan los eventos ${esperadaSeq} a ${ev.seq - 1} de la cadena`,
        });
      } else if (anterior !== undefined && previa !== anterior.huella) {
        anomalias.push({ ambito: 'evento', tipoAnomalia: TIPOS_ANOMALIA.huellaAnteriorNoCoincide, id: ev.id, detalle: 'no enlaza con el evento anterior' });
      } else if (anterior === undefined && texto(evento, 'Encadenamiento', 'PrimerEvento') !== 'S') {
        anomalias.push({ ambito: 'evento', tipoAnomalia: TIPOS_ANOMALIA.anteriorInexistente, id: ev.id, detalle: 'el primer evento guardado no es el primero de la cadena' });
      }
      anterior = { seq: ev.seq, huella: almacenada };
    }
    const cabeza = this.deps.eventos.cabeza(entorno, nif);
    if (cabeza !== undefined && (anterior === undefined || cabeza.seq !== anterior.seq)) {
      anomalias.push({
        ambito: 'evento',
        tipoAnomalia: TIPOS_ANOMALIA.posteriorInexistente,
        id: `seq-${cabeza.seq}`,
        detalle: `el último evento anotado (${cabeza.seq}) no está guardado`,
      });
    }
    return anomalias;
  }
}
