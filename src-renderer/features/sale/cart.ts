// Sale lines and totals, with decimal.js only (never a JS number for an amount). Prices are typed
// with VAT included, as shelf prices are: per VAT rate the lines add up to a total, whose base is
// total / (1 + rate) rounded to cents and whose VAT is the difference — so the customer pays
// exactly the prices on the shelf and base + cuota = total in every row of the breakdown.
import Decimal from 'decimal.js';
import type { TicketbaiCrearBody } from '../../../src-shared/api/ticketbai';
import type { VerifactuCrearBody } from '../../../src-shared/api/verifactu';

const D = Decimal.clone({ rounding: Decimal.ROUND_HALF_UP, precision: 40 });

/** VAT rates offered at the till (all valid AEAT IVA rates). */
export const TIPOS_IVA = ['21', '10', '5', '4', '0'] as const;
export const TIPO_IVA_POR_DEFECTO = '21';

export interface SaleLine {
  id: string;
  descripcion: string;
  /** Decimal strings with a dot. */
  cantidad: string;
  precio: string;
  tipoIva: string;
}

export interface DesgloseRow {
  tipoIva: string;
  base: string;
  cuota: string;
  total: string;
}

export interface Totals {
  desglose: DesgloseRow[];
  cuotaTotal: string;
  importeTotal: string;
}

/**
 * Reads an amount as typed at the till: comma or dot as decimal separator, optional minus.
 * Returns the canonical decimal string, or null when it is not a number with ≤ `decimals` decimals.
 */
export function parseInputAmount(raw: string, decimals = 2, allowNegative = false): string | null {
  const text = raw.trim().replace(',', '.');
  const re = allowNegative ? /^-?\d{1,9}(\.\d+)?$/ : /^\d{1,9}(\.\d+)?$/;
  if (!re.test(text)) return null;
  const frac = text.split('.')[1] ?? '';
  if (frac.length > decimals) return null;
  return new D(text).toFixed(Math.min(Math.max(frac.length, 0), decimals));
}

export function lineImporte(line: Pick<SaleLine, 'cantidad' | 'precio'>): string {
  return new D(line.cantidad).times(line.precio).toDecimalPlaces(2).toFixed(2);
}

export function computeTotals(lines: readonly SaleLine[]): Totals {
  const byRate = new Map<string, Decimal>();
  for (const line of lines) {
    const rate = new D(line.tipoIva).toFixed();
    byRate.set(rate, (byRate.get(rate) ?? new D(0)).plus(lineImporte(line)));
  }
  const desglose = [...byRate.entries()]
    .sort(([a], [b]) => new D(b).comparedTo(a))
    .map(([rate, total]) => {
      const base = total.dividedBy(new D(rate).dividedBy(100).plus(1)).toDecimalPlaces(2);
      const cuota = total.minus(base);
      return { tipoIva: rate, base: base.toFixed(2), cuota: cuota.toFixed(2), total: total.toFixed(2) };
    });
  const cuotaTotal = desglose.reduce((s, r) => s.plus(r.cuota), new D(0));
  const importeTotal = desglose.reduce((s, r) => s.plus(r.total), new D(0));
  return { desglose, cuotaTotal: cuotaTotal.toFixed(2), importeTotal: importeTotal.toFixed(2) };
}

/** Negates the lines (a refund): quantities change sign, prices stay. */
export function negateLines(lines: readonly SaleLine[]): SaleLine[] {
  return lines.map((l) => ({ ...l, id: `${l.id}-r`, cantidad: new D(l.cantidad).negated().toFixed() }));
}

/** "2× Café; 1× Tostada" — the invoice's description, within the 500 characters AEAT allows. */
export function describeSale(lines: readonly SaleLine[], prefix = 'Venta'): string {
  const parts = lines.map((l) => `${new D(l.cantidad).toFixed()}× ${l.descripcion.trim()}`);
  const text = `${prefix}: ${parts.join('; ')}`;
  return text.length <= 500 ? text : `${text.slice(0, 499)}…`;
}

export interface Referencia {
  serie?: string | undefined;
  numero: string;
  fechaExpedicion: string;
}

export interface SaleDocument {
  emisor: { nif: string; nombre: string };
  serie: string;
  numero: string;
  fechaExpedicion: string;
  tipoFactura: 'F1' | 'F2' | 'R5';
  lines: readonly SaleLine[];
  destinatario?: { nif: string; nombre: string } | undefined;
  idMaquina?: string | undefined;
  /** For R5: the simplified invoice being corrected (por diferencias). */
  rectificada?: Referencia | undefined;
}

/** The body of POST /v1/verifactu/crear for a till sale (typed by the shared contract). */
export function buildVerifactuBody(doc: SaleDocument): VerifactuCrearBody {
  const totals = computeTotals(doc.lines);
  const body: VerifactuCrearBody = {
    version: '1.0',
    emisor: doc.emisor,
    cabecera: {
      serie: doc.serie,
      numero: doc.numero,
      fechaExpedicion: doc.fechaExpedicion,
      tipoFactura: doc.tipoFactura,
      descripcion: describeSale(doc.lines, doc.tipoFactura === 'R5' ? 'Devolución' : 'Venta'),
    },
    detalleDesglose: totals.desglose.map((r) => ({
      impuesto: '01' as const,
      claveRegimen: '01' as const,
      calificacionOperacion: 'S1' as const,
      baseImponible: r.base,
      tipoImpositivo: r.tipoIva,
      cuotaRepercutida: r.cuota,
    })),
    totales: { cuotaTotal: totals.cuotaTotal, importeTotal: totals.importeTotal },
  };
  if (doc.tipoFactura === 'F1' && doc.destinatario) body.destinatario = doc.destinatario;
  if (doc.tipoFactura === 'R5' && doc.rectificada) {
    body.rectificativa = { tipo: 'I' };
    const { serie, numero, fechaExpedicion } = doc.rectificada;
    body.facturasRectificadas = [{ ...(serie ? { serie } : {}), numero, fechaExpedicion }];
  }
  if (doc.idMaquina) body.idMaquina = doc.idMaquina;
  return body;
}

/** The body of POST /v1/ticketbai/crear for a till sale in a Basque province. */
export function buildTicketbaiBody(doc: SaleDocument, provincia: TicketbaiCrearBody['provincia'], horaExpedicion: string): TicketbaiCrearBody {
  const totals = computeTotals(doc.lines);
  const body: TicketbaiCrearBody = {
    provincia,
    emisor: doc.emisor,
    serie: doc.serie,
    numero: doc.numero,
    fechaExpedicion: doc.fechaExpedicion,
    horaExpedicion,
    tipoFactura: doc.tipoFactura,
    importeTotal: totals.importeTotal,
    descripcion: describeSale(doc.lines, doc.tipoFactura === 'R5' ? 'Devolución' : 'Venta').slice(0, 250),
    desglose: totals.desglose.map((r) => ({ baseImponible: r.base, tipoImpositivo: r.tipoIva, cuota: r.cuota, calificacionOperacion: 'S1' as const })),
    lineas: doc.lines.map((l) => ({
      descripcion: l.descripcion.slice(0, 250),
      cantidad: l.cantidad,
      importeUnitario: new D(l.precio).dividedBy(new D(l.tipoIva).dividedBy(100).plus(1)).toDecimalPlaces(8).toFixed(),
      importeTotal: lineImporte(l),
    })),
  };
  if (doc.tipoFactura === 'F1' && doc.destinatario) body.destinatario = doc.destinatario;
  if (doc.tipoFactura === 'R5' && doc.rectificada) {
    body.rectificativa = { tipo: 'I' };
    const { serie, numero, fechaExpedicion } = doc.rectificada;
    body.facturasRectificadas = [{ ...(serie ? { serie } : {}), numero, fechaExpedicion }];
  }
  if (doc.idMaquina) body.idMaquina = doc.idMaquina;
  return body;
}
