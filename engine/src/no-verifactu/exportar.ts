// Exports of a «NO VERI*FACTU» installation (issue 32): the billing records and the events of a
// period written as files, each export recorded as an event (08 ExportacionRegFacturacionPeriodo,
// 09 ExportacionRegEventoPeriodo) in one transaction after the files are on disk. No official file
// format exists for an export: each file is JSON Lines, one record or event a line with the
// stored signed XML byte for byte, so the chains recompute from the file alone.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Issuer } from '../clients/store';
import type { Database } from '../db/database';
import { EngineError } from '../core/errors';
import { fechaHoraHusoGenRegistro } from '../issuing/fecha-hora';
import { escapeXml } from '../regimes/verifactu/record/xml-escape';
import { TIPOS_EVENTO, type RegistroEventos } from './eventos';
import { comprobarPeriodo, extremosPeriodoXml, sumasPeriodo } from './periodo';
import type { NoVerifactuStore } from './store';

export interface ResultadoExportacion {
  registros: { fichero: string; altas: number; anulaciones: number; sumaCuotaTotalAlta: string; sumaImporteTotalAlta: string };
  eventos: { fichero: string; numero: number } | null;
  eventosAnotados: { id: string; tipoEvento: string; huella: string }[];
}

const el = (name: string, value: string) => '<sf:' + name + '>' + escapeXml(value) + '</sf:' + name + '>';

export class ExportacionesNoVerifactu {
  constructor(private readonly deps: { db: Database; store: NoVerifactuStore; eventos: RegistroEventos }) {}

  exportar(issuer: Issuer, periodo: { desde: Date; hasta: Date }, dir: string): ResultadoExportacion {
    const { db, store, eventos } = this.deps;
    comprobarPeriodo(periodo);
    const desde = periodo.desde.toISOString();
    const hasta = periodo.hasta.toISOString();
    const registros = store.registrosDelPeriodo(issuer.entorno, issuer.nif, desde, hasta);
    const primero = registros[0];
    const ultimo = registros[registros.length - 1];
    if (primero === undefined || ultimo === undefined) {
      throw new EngineError(404, 'NOT_FOUND', 'No hay registros de facturación en ese periodo', { campo: 'desde' });
    }
    const evs = eventos.todos(issuer.entorno, issuer.nif).filter((e) => e.creadoEn >= desde && e.creadoEn <= hasta);

    const { altas, anulaciones, sumaCuotaTotalAlta: cuota, sumaImporteTotalAlta: importe } = sumasPeriodo(registros);

    mkdirSync(dir, { recursive: true });
    const base = `${issuer.nif}-${issuer.entorno}-${desde.replace(/[:.]/g, '')}-${hasta.replace(/[:.]/g, '')}`;
    const ficheroRegistros = path.join(dir, `registros-${base}.jsonl`);
    writeFileSync(
      ficheroRegistros,
      registros.map((r) => JSON.stringify({ idRegistro: r.id, tipo: r.tipo, cadena: r.chainKey, secuencia: r.chainSeq, huella: r.huella, creadoEn: r.creadoEn, xml: r.xml })).join('\n') + '\n',
    );
    const ficheroEventos = evs.length > 0 ? path.join(dir, `eventos-${base}.jsonl`) : null;
    if (ficheroEventos !== null) {
      writeFileSync(
        ficheroEventos,
        evs.map((e) => JSON.stringify({ idEvento: e.id, secuencia: e.seq, tipoEvento: e.tipoEvento, huella: e.huella, creadoEn: e.creadoEn, xml: e.xml })).join('\n') + '\n',
      );
    }

    const obligado = { nif: issuer.nif, nombre: issuer.nombre };
    return db.transaction(() => {
      const anotados = [
        eventos.anotar(issuer.entorno, obligado, {
          tipoEvento: TIPOS_EVENTO.exportacionFacturacion,
          datosPropios:
            '<sf:ExportacionRegFacturacionPeriodo>' +
            el('FechaHoraHusoInicioPeriodoExport', fechaHoraHusoGenRegistro(periodo.desde)) + el('FechaHoraHusoFinPeriodoExport', fechaHoraHusoGenRegistro(periodo.hasta)) +
            extremosPeriodoXml(issuer.nif, primero, ultimo) +
            el('NumeroDeRegistrosFacturacionAltaExportados', String(altas)) + el('SumaCuotaTotalAlta', cuota.toFixed(2)) + el('SumaImporteTotalAlta', importe.toFixed(2)) +
            el('NumeroDeRegistrosFacturacionAnulacionExportados', String(anulaciones)) + el('RegistrosFacturacionExportadosDejanDeConservarse', 'N') +
            '</sf:ExportacionRegFacturacionPeriodo>',
        }),
      ];
      const primerEv = evs[0];
      const ultimoEv = evs[evs.length - 1];
      if (primerEv !== undefined && ultimoEv !== undefined) {
        const regEvento = (e: typeof primerEv) => el('TipoEvento', e.tipoEvento) + el('FechaHoraHusoEvento', e.fechaHoraHusoGenEvento) + el('HuellaEvento', e.huella);
        anotados.push(
          eventos.anotar(issuer.entorno, obligado, {
            tipoEvento: TIPOS_EVENTO.exportacionEventos,
            datosPropios:
              '<sf:ExportacionRegEventoPeriodo>' +
              el('FechaHoraHusoInicioPeriodoExport', fechaHoraHusoGenRegistro(periodo.desde)) + el('FechaHoraHusoFinPeriodoExport', fechaHoraHusoGenRegistro(periodo.hasta)) +
              '<sf:RegistroEventoInicialPeriodo>' + regEvento(primerEv) + '</sf:RegistroEventoInicialPeriodo>' +
              '<sf:RegistroEventoFinalPeriodo>' + regEvento(ultimoEv) + '</sf:RegistroEventoFinalPeriodo>' +
              el('NumeroDeRegEventoExportados', String(evs.length)) + el('RegEventoExportadosDejanDeConservarse', 'N') +
              '</sf:ExportacionRegEventoPeriodo>',
          }),
        );
      }
      return {
        registros: { fichero: ficheroRegistros, altas, anulaciones, sumaCuotaTotalAlta: cuota.toFixed(2), sumaImporteTotalAlta: importe.toFixed(2) },
        eventos: ficheroEventos === null ? null : { fichero: ficheroEventos, numero: evs.length },
        eventosAnotados: anotados.map((e) => ({ id: e.id, tipoEvento: e.tipoEvento, huella: e.huella })),
      };
    });
  }
}
