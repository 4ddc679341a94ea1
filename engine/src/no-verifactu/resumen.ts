// The periodic summary event (10, ResumenEventos) and the background work of «NO VERI*FACTU»
// installations (issue 32). The summary counts, per type, the events since the previous summary
// (or since the installation started in this mode) and sums the billing records generated
// meanwhile; it is written once six hours have passed since the previous one — the interval
// public implementations and the AEAT's event-log notes use (not verified here against the
// Orden's text). On the engine's first pass after a start, anomaly detection runs for every
// installation in this mode.
import type { Issuer, IssuerStore } from '../clients/store';
import type { Database } from '../db/database';
import type { SifEventosTable } from '../db/schema/no-verifactu';
import type { Clock } from '../platform/clock';
import { escapeXml } from '../regimes/verifactu/record/xml-escape';
import type { DeteccionAnomalias } from './anomalias';
import { TIPOS_EVENTO, type RegistroEventos } from './eventos';
import { extremosPeriodoXml, sumasPeriodo } from './periodo';
import type { NoVerifactuStore } from './store';

export const PERIODO_RESUMEN_MS = 6 * 60 * 60 * 1000;
/**
 * Detection also runs again a day after this engine last ran it for an installation: the AEAT's
 * developers' FAQ (registro de eventos, 5) asks only that it can be launched at will and
 * recommends running it often; a day keeps its cost (every signature verified again) out of the
 * minute's pass.
 */
export const PERIODO_DETECCION_MS = 24 * 60 * 60 * 1000;

const el = (name: string, value: string) => '<sf:' + name + '>' + escapeXml(value) + '</sf:' + name + '>';

export class ResumenesNoVerifactu {
  private arrancado = false;
  /** When this engine last ran detection per installation (`entorno|nif`); every start runs it anew. */
  private readonly detectadoEn = new Map<string, number>();

  constructor(
    private readonly deps: { db: Database; store: NoVerifactuStore; clock: Clock; issuers: IssuerStore; eventos: RegistroEventos; anomalias: DeteccionAnomalias },
  ) {}

  /** Installations in «NO VERI*FACTU» mode now. */
  private instalaciones(): Issuer[] {
    const { store, issuers } = this.deps;
    return store.instalacionesNoVerifactu().map((r) => issuers.find(r.entorno, r.nif)).filter((i): i is Issuer => i !== undefined && i.estado !== 'eliminado');
  }

  /** One background pass: detection after a start, then every summary that is due. */
  pasada(): { deteccion: string[]; resumenes: string[] } {
    const deteccion: string[] = [];
    const resumenes: string[] = [];
    const primera = !this.arrancado;
    this.arrancado = true;
    const ahora = this.deps.clock.now().getTime();
    for (const issuer of this.instalaciones()) {
      const clave = `${issuer.entorno}|${issuer.nif}`;
      const antes = this.detectadoEn.get(clave);
      // After a start, for an installation that entered the mode since, and once a day.
      if (primera || antes === undefined || ahora - antes >= PERIODO_DETECCION_MS) {
        this.deps.anomalias.ejecutar(issuer);
        this.detectadoEn.set(clave, ahora);
        deteccion.push(clave);
      }
      if (this.siToca(issuer) !== undefined) resumenes.push(`${issuer.entorno}|${issuer.nif}`);
    }
    return { deteccion, resumenes };
  }

  /** Writes the summary when six hours have passed since the previous one (or the start in this mode). */
  siToca(issuer: Issuer): SifEventosTable | undefined {
    const { db, eventos, clock } = this.deps;
    return db.transaction(() => {
      const todos = eventos.todos(issuer.entorno, issuer.nif);
      let desde = -1;
      for (let i = todos.length - 1; i >= 0; i--) {
        const t = todos[i]?.tipoEvento;
        if (t === TIPOS_EVENTO.resumen || t === TIPOS_EVENTO.inicioNoVerifactu) {
          desde = i;
          break;
        }
      }
      const ancla = todos[desde];
      if (ancla === undefined || clock.now().getTime() - Date.parse(ancla.creadoEn) < PERIODO_RESUMEN_MS) return undefined;
      const tras = ancla.tipoEvento === TIPOS_EVENTO.resumen;
      return this.generar(issuer, todos.slice(tras ? desde + 1 : desde), { desde: ancla.creadoEn, incluido: !tras });
    });
  }

  /** `desde`: the anchor's time; records at that instant belong to the period after a start (01), to the previous one after a summary. */
  private generar(issuer: Issuer, periodo: SifEventosTable[], desde: { desde: string; incluido: boolean }): SifEventosTable {
    const { store, eventos } = this.deps;
    const porTipo = new Map<string, number>();
    for (const e of periodo) porTipo.set(e.tipoEvento, (porTipo.get(e.tipoEvento) ?? 0) + 1);
    const registros = store.registrosDesde(issuer.entorno, issuer.nif, desde);
    const { altas, anulaciones, sumaCuotaTotalAlta: cuota, sumaImporteTotalAlta: importe } = sumasPeriodo(registros);
    const primero = registros[0];
    const ultimo = registros[registros.length - 1];
    const tipos = [...porTipo].sort(([a], [b]) => (a < b ? -1 : 1)).slice(0, 20);
    // ResumenEventos needs at least one TipoEvento: a period with none counts the summary's own type.
    const tiposXml = (tipos.length > 0 ? tipos : [[TIPOS_EVENTO.resumen, 0] as const])
      .map(([t, n]) => '<sf:TipoEvento>' + el('TipoEvento', t) + el('NumeroDeEventos', String(Math.min(n, 9999))) + '</sf:TipoEvento>')
      .join('');
    return eventos.anotar(issuer.entorno, { nif: issuer.nif, nombre: issuer.nombre }, {
      tipoEvento: TIPOS_EVENTO.resumen,
      datosPropios:
        '<sf:ResumenEventos>' + tiposXml +
        (primero && ultimo ? extremosPeriodoXml(issuer.nif, primero, ultimo) : '') +
        el('NumeroDeRegistrosFacturacionAltaGenerados', String(Math.min(altas, 999_999))) + el('SumaCuotaTotalAlta', cuota.toFixed(2)) +
        el('SumaImporteTotalAlta', importe.toFixed(2)) + el('NumeroDeRegistrosFacturacionAnulacionGenerados', String(Math.min(anulaciones, 999_999))) +
        '</sf:ResumenEventos>',
    });
  }
}
