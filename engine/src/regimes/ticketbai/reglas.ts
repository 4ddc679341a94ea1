// Local checks of a TicketBAI invoice before it is signed and chained, in VeriFactu's two outcomes
// (engine/src/regimes/verifactu/reglas.ts):
//   - errors → 400 naming `campo`: what the treasuries refuse or what cannot be a real sale.
//     The treasuries publish no content rules beyond the XSD and their codes 003/004/011 (the
//     schema in src-shared/api/ticketbai.ts covers those); the issue date must be a date the
//     invoice can have been issued on: not after today (the treasuries' reception checks the
//     issue date against the reception), not more than 20 years back (the limit AEAT applies to
//     the same field, code 1133; TicketBAI did not exist before).
//   - avisos: sums that contradict each other. The treasuries register such an invoice as sent,
//     so the till is told and can correct the sale before it is filed: ImporteTotalFactura against
//     the breakdown (Σ base + cuota + cuota de recargo), and the detail lines (their totals with
//     VAT) against the breakdown. As AEAT's rule 2005, the total is not compared for the regimes
//     whose total legitimately differs from the breakdown (03 REBU, 05/09 travel agencies, 06 VAT
//     groups, 08 IPSI/IGIC).
import { Decimal } from 'decimal.js';
import type { FacturaTicketbai } from '../../../../src-shared/api/ticketbai';
import type { ErrorRegla, ResultadoReglas } from '../../issuing/reglas-resultado';

export interface ContextoReglasTbai {
  /** Today's date in the issuer's zone, `dd-mm-aaaa`. */
  hoy: string;
}

const SIN_CONTROL_IMPORTE_TOTAL = new Set(['03', '05', '06', '08', '09']);

/** `dd-mm-aaaa` → yyyymmdd, so dates compare as integers. */
function ymd(fecha: string): number {
  return Number(fecha.slice(6, 10)) * 10000 + Number(fecha.slice(3, 5)) * 100 + Number(fecha.slice(0, 2));
}

function comprobarFecha(campo: string, fecha: string, hoy: number, hoyTexto: string, errors: ErrorRegla[]): void {
  const f = ymd(fecha);
  if (f > hoy) {
    errors.push({ campo, codigo: 'fecha', message: `${campo} ${fecha} is after today (${hoyTexto})` });
  } else if (f < hoy - 200000) {
    errors.push({ campo, codigo: 'fecha', message: `${campo} ${fecha} is more than 20 years ago` });
  }
}

export function validarAltaTbai(factura: FacturaTicketbai, ctx: ContextoReglasTbai): ResultadoReglas {
  const errors: ErrorRegla[] = [];
  const avisos: string[] = [];
  const hoy = ymd(ctx.hoy);
  comprobarFecha('fechaExpedicion', factura.fechaExpedicion, hoy, ctx.hoy, errors);
  factura.facturasRectificadas?.forEach((r, i) =>
    comprobarFecha(`facturasRectificadas[${i}].fechaExpedicion`, r.fechaExpedicion, hoy, ctx.hoy, errors),
  );
  factura.facturasSustituidas?.forEach((r, i) =>
    comprobarFecha(`facturasSustituidas[${i}].fechaExpedicion`, r.fechaExpedicion, hoy, ctx.hoy, errors),
  );

  let desglose = new Decimal(0);
  for (const d of factura.desglose) {
    desglose = desglose.plus(d.baseImponible);
    if (d.cuota !== undefined) desglose = desglose.plus(d.cuota);
    if (d.cuotaRecargoEquivalencia !== undefined) desglose = desglose.plus(d.cuotaRecargoEquivalencia);
  }
  const sinControl = factura.clavesRegimen?.some((c) => SIN_CONTROL_IMPORTE_TOTAL.has(c)) ?? false;
  if (!sinControl) {
    const total = new Decimal(factura.importeTotal);
    if (!total.equals(desglose)) {
      avisos.push(
        `importeTotal: importeTotal ${factura.importeTotal} differs by ${total.minus(desglose).abs().toFixed(2)} from the sum of the desglose ` +
          `(base + cuota + recargo = ${desglose.toFixed(2)}); the treasury registers it as sent: correct the sale before it is filed`,
      );
    }
  }
  if (factura.lineas !== undefined) {
    let lineas = new Decimal(0);
    for (const l of factura.lineas) lineas = lineas.plus(l.importeTotal);
    // Line totals carry up to 8 decimals; the breakdown has 2: compare in cents.
    const redondeado = lineas.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    if (!redondeado.equals(desglose)) {
      avisos.push(
        `lineas: the lines add up to ${redondeado.toFixed(2)} (importeTotal with VAT of each line), ` +
          `the desglose to ${desglose.toFixed(2)}; correct the sale before it is filed`,
      );
    }
  }
  return { errors, avisos };
}
