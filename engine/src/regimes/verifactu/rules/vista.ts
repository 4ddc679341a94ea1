// The prepared view every VeriFactu rule reads (one pass over the invoice, amounts in cents) and
// the helpers the rule families share (reglas.ts composes the families, in table order).
import type { DetalleDesglose, FacturaVerifactu, IdOtro, Persona, TipoFactura } from '../../../../../src-shared/api/verifactu';
import { centesimas, centimos } from '../centimos';
import { ymd } from '../reglas-limites';

export interface ContextoReglas {
  /** Today's date in the issuer's zone, `dd-mm-aaaa` (see fechaLocalDdMmAaaa). */
  hoy: string;
  /** Present on PUT /subsanar. */
  subsanacion?: boolean;
  rechazoPrevio?: 'N' | 'S' | 'X' | undefined;
}

// ---------------------------------------------------------------- prepared view

export interface Linea {
  d: DetalleDesglose;
  campo: string;
  /** Impuesto 01 or absent (IVA). */
  iva: boolean;
  /** Impuesto 01, 03 or absent: the rules AEAT scopes to "IVA, IGIC o no se cumplimenta". */
  ivaOIgic: boolean;
  /** Amounts in cents. */
  base: bigint;
  cuota: bigint | undefined;
  cuotaRecargo: bigint | undefined;
  /** Rates in hundredths of a percent (21 % → 2100), so they compare as integers. */
  tipo: number | undefined;
  tipoRecargo: number | undefined;
}

export interface Vista {
  f: FacturaVerifactu;
  tipo: TipoFactura;
  ctx: ContextoReglas;
  hoy: number;
  expedicion: number;
  operacion: number | undefined;
  /** FechaOperacion, or FechaExpedicionFactura when absent (AEAT's reference date for rates). */
  fechaRef: number;
  lineas: Linea[];
  claves: Set<string>;
  // What the desglose contains, so that rules about absent features return at once (hot path).
  conS2: boolean;
  conNoSujeta: boolean;
  conExenta: boolean;
  conRecargo: boolean;
  conOtroImpuesto: boolean;
  // Sums in cents.
  /** Σ(BaseImponibleOimporteNoSujeto + CuotaRepercutida), the F2 limit's sum (1150). */
  sumaBaseCuota: bigint;
  /** Σ(CuotaRepercutida + CuotaRecargoEquivalencia), CuotaTotal's sum (2006). */
  sumaCuotas: bigint;
  /** Σ(Base + CuotaRepercutida + CuotaRecargoEquivalencia), ImporteTotal's sum (2005). */
  sumaTotal: bigint;
  /** totales.cuotaTotal and totales.importeTotal in cents. */
  cuotaTotal: bigint;
  importeTotal: bigint;
}

/** `detalleDesglose[i]` for the 12 lines the schema allows, built once. */
export const CAMPOS_LINEA: readonly string[] = Array.from({ length: 12 }, (_, i) => `detalleDesglose[${i}]`);

export function vista(f: FacturaVerifactu, ctx: ContextoReglas): Vista {
  const expedicion = ymd(f.cabecera.fechaExpedicion);
  const operacion = f.cabecera.fechaOperacion === undefined ? undefined : ymd(f.cabecera.fechaOperacion);
  const claves = new Set<string>();
  let conS2 = false;
  let conNoSujeta = false;
  let conExenta = false;
  let conRecargo = false;
  let conOtroImpuesto = false;
  let bases = 0n;
  let cuotas = 0n;
  let recargos = 0n;
  const detalle = f.detalleDesglose;
  const lineas: Linea[] = [];
  for (let i = 0; i < detalle.length; i++) {
    const d = detalle[i] as DetalleDesglose;
    if (d.claveRegimen !== undefined) claves.add(d.claveRegimen);
    const c = d.calificacionOperacion;
    if (c === 'S2') conS2 = true;
    else if (c === 'N1' || c === 'N2') conNoSujeta = true;
    if (d.operacionExenta !== undefined) conExenta = true;
    if (d.tipoRecargoEquivalencia !== undefined || d.cuotaRecargoEquivalencia !== undefined) conRecargo = true;
    if (d.impuesto === '02' || d.impuesto === '05') conOtroImpuesto = true;
    const l: Linea = {
      d,
      campo: CAMPOS_LINEA[i] ?? 'detalleDesglose[' + i + ']',
      iva: d.impuesto === undefined || d.impuesto === '01',
      ivaOIgic: d.impuesto === undefined || d.impuesto === '01' || d.impuesto === '03',
      base: centimos(d.baseImponible),
      cuota: d.cuotaRepercutida === undefined ? undefined : centimos(d.cuotaRepercutida),
      cuotaRecargo: d.cuotaRecargoEquivalencia === undefined ? undefined : centimos(d.cuotaRecargoEquivalencia),
      tipo: d.tipoImpositivo === undefined ? undefined : centesimas(d.tipoImpositivo),
      tipoRecargo: d.tipoRecargoEquivalencia === undefined ? undefined : centesimas(d.tipoRecargoEquivalencia),
    };
    bases += l.base;
    if (l.cuota !== undefined) cuotas += l.cuota;
    if (l.cuotaRecargo !== undefined) recargos += l.cuotaRecargo;
    lineas.push(l);
  }
  const sumaBaseCuota = bases + cuotas;
  return {
    sumaBaseCuota,
    sumaCuotas: cuotas + recargos,
    sumaTotal: sumaBaseCuota + recargos,
    cuotaTotal: centimos(f.totales.cuotaTotal),
    importeTotal: centimos(f.totales.importeTotal),
    f,
    tipo: f.cabecera.tipoFactura,
    ctx,
    hoy: ymd(ctx.hoy),
    expedicion,
    operacion,
    fechaRef: operacion ?? expedicion,
    lineas,
    claves,
    conS2,
    conNoSujeta,
    conExenta,
    conRecargo,
    conOtroImpuesto,
  };
}

// ---------------------------------------------------------------- helpers

/** Reports a finding; `codigo` overrides the rule's own code for rules that group several. */
export type Report = (campo: string, detalle: string, codigo?: string) => void;

export interface Regla {
  codigo: string;
  gravedad: 'error' | 'aviso';
  /** The rule in the words of the AEAT document. */
  regla: string;
  comprobar(v: Vista, report: Report): void;
}

export const CON_DESTINATARIO: ReadonlySet<TipoFactura> = new Set(['F1', 'F3', 'R1', 'R2', 'R3', 'R4']);
export const SIN_DESTINATARIO: ReadonlySet<TipoFactura> = new Set(['F2', 'R5']);
export const TIPOS_RECARGO = new Set([0, 26, 50, 62, 100, 140, 175, 520]);
/** Keys for which AEAT does not check ImporteTotal against the desglose (§3.1.3.17). */
export const SIN_CONTROL_IMPORTE_TOTAL = ['03', '05', '06', '08', '09'] as const;
export const CAMPOS_CUOTA = ['tipoImpositivo', 'cuotaRepercutida', 'tipoRecargoEquivalencia', 'cuotaRecargoEquivalencia'] as const;

export function fmtFecha(n: number): string {
  const s = String(n);
  return `${s.slice(6, 8)}-${s.slice(4, 6)}-${s.slice(0, 4)}`;
}

export function fmtTipo(c: number): string {
  return (c / 100).toString();
}

export function isRectificativa(t: TipoFactura): boolean {
  return t.charCodeAt(0) === 82; // 'R'
}

/** CuotaRepercutida is validated against base × tipo except for incremental, R2 and R3 invoices. */
export function cuotaSeValida(v: Vista): boolean {
  return v.f.rectificativa?.tipo !== 'I' && v.tipo !== 'R2' && v.tipo !== 'R3';
}

/** Country prefix of an EU VAT number (NIF-IVA) for an ISO code: Greece writes EL. */
export function prefijosNifIva(codigoPais: string): readonly string[] {
  if (codigoPais === 'GR') return ['EL'];
  if (codigoPais === 'GB') return ['GB', 'XI'];
  return [codigoPais];
}

/** Checks common to every IDOtro (destinatario and tercero). */
export function comprobarIdOtro(otro: IdOtro, campo: string, report: Report, codigo: '1111' | '1122'): void {
  if (codigo === '1111' && otro.idType !== '02' && otro.codigoPais === undefined) {
    report(`${campo}.codigoPais`, `codigoPais is required when idType is not 02 (NIF-IVA)`);
  }
  if (codigo === '1122' && otro.idType === '02' && otro.codigoPais !== undefined) {
    const prefijos = prefijosNifIva(otro.codigoPais);
    if (!prefijos.some((p) => otro.id.startsWith(p))) {
      report(`${campo}.id`, `a NIF-IVA must start with its country code ${prefijos.join(' or ')}`);
    }
  }
}

export function partes(v: Vista): Array<{ p: Persona; campo: string }> {
  const out: Array<{ p: Persona; campo: string }> = [];
  if (v.f.destinatario !== undefined) out.push({ p: v.f.destinatario, campo: 'destinatario' });
  const t = v.f.especial?.tercero;
  if (t !== undefined) out.push({ p: t, campo: 'especial.tercero' });
  return out;
}


/** Allowed recargo rates (hundredths) for an IVA rate on a date, or null when AEAT sets none. */
export function recargosPermitidos(tipo: number, fecha: number): { codigo: string; codes: number[] } | null {
  switch (tipo) {
    case 2100: return { codigo: '1162', codes: [520, 175] };
    case 1000: return { codigo: '1163', codes: [140] };
    case 750: return { codigo: '1169', codes: [100] };
    case 400: return { codigo: '1164', codes: [50] };
    case 200: return { codigo: '1166', codes: [26] };
    case 500:
      if (fecha <= 20221231) return { codigo: '1167', codes: [50] };
      if (fecha <= 20240930) return { codigo: '1168', codes: [62] };
      return { codigo: '1160', codes: [50, 62] };
    case 0:
      if (fecha >= 20241001) return { codigo: '1170', codes: [26] };
      return fecha >= 20230101 ? { codigo: '1165', codes: [0] } : null;
    default:
      return null;
  }
}
