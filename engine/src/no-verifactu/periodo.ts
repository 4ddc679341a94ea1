// What the export (08) and the summary (10) events both say of a period's billing records: how
// many altas and anulaciones, the sums of the altas' CuotaTotal and ImporteTotal (decimal.js, from
// the amounts each record stored), and the identity of a record as EventosSIF.xsd names it.
import { Decimal } from 'decimal.js';
import { validation } from '../core/errors';
import { escapeXml } from '../regimes/verifactu/record/xml-escape';

export interface SumasPeriodo {
  altas: number;
  anulaciones: number;
  sumaCuotaTotalAlta: Decimal;
  sumaImporteTotalAlta: Decimal;
}

/** A period given by its bounds: 400 naming `desde` when it ends before it starts. */
export function comprobarPeriodo(periodo: { desde: Date; hasta: Date }): void {
  if (!(periodo.desde.getTime() <= periodo.hasta.getTime())) throw validation('desde', 'desde debe ser anterior o igual a hasta', ['desde: after hasta']);
}

/** Altas and anulaciones counted, the altas' amounts summed. */
export function sumasPeriodo(registros: readonly { tipo: string; extra: string }[]): SumasPeriodo {
  let cuota = new Decimal(0);
  let importe = new Decimal(0);
  let altas = 0;
  for (const r of registros) {
    if (r.tipo === 'anulacion') continue;
    altas++;
    const extra = JSON.parse(r.extra) as { cuotaTotal?: string; importeTotal?: string };
    cuota = cuota.plus(extra.cuotaTotal ?? '0');
    importe = importe.plus(extra.importeTotal ?? '0');
  }
  return { altas, anulaciones: registros.length - altas, sumaCuotaTotalAlta: cuota, sumaImporteTotalAlta: importe };
}

const el = (name: string, value: string) => '<sf:' + name + '>' + escapeXml(value) + '</sf:' + name + '>';

type RegistroDelPeriodo = { numeroFactura: string; fechaExpedicion: string; huella: string | null };

/** A record's identity in an event (IDEmisorFactura, NumSerieFactura, FechaExpedicionFactura, Huella). */
function registroFacturacionXml(nifEmisor: string, r: RegistroDelPeriodo): string {
  return el('IDEmisorFactura', nifEmisor) + el('NumSerieFactura', r.numeroFactura) + el('FechaExpedicionFactura', r.fechaExpedicion) + el('Huella', r.huella ?? '');
}

/** The period's first and last records: RegistroFacturacionInicialPeriodo and RegistroFacturacionFinalPeriodo. */
export function extremosPeriodoXml(nifEmisor: string, primero: RegistroDelPeriodo, ultimo: RegistroDelPeriodo): string {
  return (
    '<sf:RegistroFacturacionInicialPeriodo>' + registroFacturacionXml(nifEmisor, primero) + '</sf:RegistroFacturacionInicialPeriodo>' +
    '<sf:RegistroFacturacionFinalPeriodo>' + registroFacturacionXml(nifEmisor, ultimo) + '</sf:RegistroFacturacionFinalPeriodo>'
  );
}
