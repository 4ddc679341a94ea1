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

/** Why a typed amount is refused (the sale screen says it next to the field). */
export type AmountProblem = 'numeroNoValido' | 'demasiadosDecimales' | 'demasiadoGrande';

export type AmountReading = { ok: true; value: string } | { ok: false; problem: AmountProblem };

/**
 * Reads an amount as typed at the till. The cashier's Spanish forms are accepted: comma decimals
 * ("2,50"), dots grouping thousands with a comma after them ("1.234,56") or in several groups
 * ("1.234.567"); a dot for decimals too ("2.50"), and the English grouping when both marks are
 * present ("1,234.56"). "1.234" alone is ambiguous and is read as decimals (so a price refuses it
 * for its three decimals, saying so). Nothing else: no exponent, no spaces inside.
 */
export function readAmount(raw: string, decimals = 2, allowNegative = false): AmountReading {
  let text = raw.trim();
  const negative = allowNegative && text.startsWith('-');
  if (negative) text = text.slice(1);
  if (/^\d{1,3}(\.\d{3})+,\d+$/.test(text) || /^\d{1,3}(\.\d{3}){2,}$/.test(text)) text = text.replaceAll('.', '').replace(',', '.');
  else if (/^\d{1,3}(,\d{3})+\.\d+$/.test(text)) text = text.replaceAll(',', '');
  else text = text.replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(text)) return { ok: false, problem: 'numeroNoValido' };
  const [int = '', frac = ''] = text.split('.');
  if (int.replace(/^0+(?=\d)/, '').length > 9) return { ok: false, problem: 'demasiadoGrande' };
  if (frac.length > decimals) return { ok: false, problem: 'demasiadosDecimales' };
  const value = new D(text).toFixed(frac.length);
  return { ok: true, value: negative && !new D(value).isZero() ? `-${value}` : value };
}

/** The canonical decimal string of a typed amount, or null when it is refused (readAmount). */
export function parseInputAmount(raw: string, decimals = 2, allowNegative = false): string | null {
  const r = readAmount(raw, decimals, allowNegative);
  return r.ok ? r.value : null;
}

/** The F2 limit (AEAT 1150): a simplified invoice adds up to 3,000.00 € at most. */
export const LIMITE_F2 = '3000.00';

export function superaLimiteF2(importeTotal: string): boolean {
  return new D(importeTotal).greaterThan(LIMITE_F2);
}

/** The longest line description the till keeps (receipts print 120 characters). */
export const DESCRIPCION_MAX = 120;

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
