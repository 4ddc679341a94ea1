// REFERENCE ONLY (tests): the AEAT local rules as they were before the integer-cent rewrite of
// engine/src/regimes/verifactu/reglas.ts, on decimal.js. The differential property test
// (reglas-diferencial.test.ts) asserts the production rules give exactly these results.
// Do not "fix" this copy: it is the oracle. The one kind of change it takes is the AEAT's own: when
// the AEAT changes a rule, both change (issue 31: 1260 lets IPSI carry a ClaveRegimen, §15.6.1 got
// its code 1286). Nor does the engine closing a gap against the AEAT's rules: both take the rule,
// each in its own words (1132 1135 1170 1254/1255 1290/1131, docs/aeat-codes.md).
// AEAT business validations of a RegistroAlta that can be checked locally, before anything is
// chained or signed (docs/verifactu/Validaciones_Errores_Veri-Factu.txt v1.1.2, §3.1.3, and the
// codes of AEAT's errores.properties). Two outcomes:
//   - errors: AEAT would REJECT the record (codes 1xxx) → the API answers 400 naming `campo`;
//   - avisos: AEAT would ACCEPT it WITH ERRORS (codes 2xxx), or a legal limit AEAT does not check.
//
// Codes covered (errors):
//   dates        1112 1133 1152 1134 1125 1173 1146 1147
//   type/blocks  1114 1115 1183 1185 1157 1155 1159 1186 1158 1188 1211 1232 1189 1190 1148 1149
//   parties      1111 1122 1126 1156 1191 1192 1205
//   desglose     1245 1260 1246 1182 1199 1197 1198 1237 1238 1281 1284 1207 1208 1143 1142
//                1124 1194 1235 1236 1127 1160 1162 1163 1164 1165 1166 1167 1168 1169
//                1206 1200 1201 1202 1203 1252 §15.6.1 (clave 02, no code published)
//   totals       1150
//   subsanación  1153 1161
// In src-shared/api/verifactu.ts (schema): 1116 1117 1118 1119 1195 1196 1104/1130 (ASCII
// NumSerieFactura) and the XSD enumerations. Built into registro.ts: Macrodato (1138/1139).
// Avisos: 2005 2006 (totals off by more than 10,00 €); also, without an AEAT code, totals off
// within AEAT's tolerance and F2 above 400 € (RD 1619/2012 art. 4.1).
// Not checkable locally: census (1109 1110 1121 1154 2001), agreements (1128), chain and hash
// (2000 2002 2003 2007 2008), AEAT clock (2004), duplicates (3000–3002).
import { Decimal } from 'decimal.js';
import type { DetalleDesglose, FacturaVerifactu, IdOtro, Persona, TipoFactura } from '../../../../src-shared/api/verifactu';
import { classifyNif, validateNif } from '../../../../src-shared/nif';

function dec(value: string): Decimal {
  return new Decimal(value);
}

export interface ErrorRegla {
  /** API JSON path of the offending field, e.g. `detalleDesglose[0].cuotaRepercutida`. */
  campo: string;
  message: string;
  /** AEAT error code (or section of the validations document when AEAT publishes no code). */
  codigo: string;
}

export interface ResultadoReglas {
  errors: ErrorRegla[];
  avisos: string[];
}

export interface ContextoReglas {
  /** Today's date in the issuer's zone, `dd-mm-aaaa` (see fechaLocalDdMmAaaa). */
  hoy: string;
  /** Present on PUT /subsanar. */
  subsanacion?: boolean;
  rechazoPrevio?: 'N' | 'S' | 'X' | undefined;
}

// ---------------------------------------------------------------- prepared view

interface Linea {
  d: DetalleDesglose;
  campo: string;
  /** Impuesto 01 or absent (IVA). */
  iva: boolean;
  /** Impuesto 01, 03 or absent: the rules AEAT scopes to "IVA, IGIC o no se cumplimenta". */
  ivaOIgic: boolean;
  base: Decimal;
  cuota: Decimal | undefined;
  cuotaRecargo: Decimal | undefined;
  /** Rates in hundredths of a percent (21 % → 2100), so they compare as integers. */
  tipo: number | undefined;
  tipoRecargo: number | undefined;
}

interface Vista {
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
  /** Σ(BaseImponibleOimporteNoSujeto + CuotaRepercutida), the F2 limit's sum (1150). */
  sumaBaseCuota: Decimal;
  /** Σ(CuotaRepercutida + CuotaRecargoEquivalencia), CuotaTotal's sum (2006). */
  sumaCuotas: Decimal;
  /** Σ(Base + CuotaRepercutida + CuotaRecargoEquivalencia), ImporteTotal's sum (2005). */
  sumaTotal: Decimal;
}

/** `dd-mm-aaaa` → yyyymmdd as an integer, so dates compare with < and >. */
function ymd(fecha: string): number {
  const d = (i: number) => fecha.charCodeAt(i) - 48;
  return (d(6) * 1000 + d(7) * 100 + d(8) * 10 + d(9)) * 10000 + (d(3) * 10 + d(4)) * 100 + d(0) * 10 + d(1);
}

/** '7.5' → 750 (hundredths). Input is a validated Tipo2.2 string. */
function centesimas(tipo: string): number {
  const dot = tipo.indexOf('.');
  if (dot < 0) return Number(tipo) * 100;
  const frac = tipo.slice(dot + 1);
  return Number(tipo.slice(0, dot)) * 100 + Number(frac.length === 1 ? frac + '0' : frac);
}

function vista(f: FacturaVerifactu, ctx: ContextoReglas): Vista {
  const expedicion = ymd(f.cabecera.fechaExpedicion);
  const operacion = f.cabecera.fechaOperacion === undefined ? undefined : ymd(f.cabecera.fechaOperacion);
  const claves = new Set<string>();
  let conS2 = false;
  let conNoSujeta = false;
  let conExenta = false;
  let conRecargo = false;
  let conOtroImpuesto = false;
  // Sums start from the first value (not from zero): decimal.js work is the bulk of this module.
  let bases: Decimal | undefined;
  let cuotas: Decimal | undefined;
  let recargos: Decimal | undefined;
  const lineas = f.detalleDesglose.map((d, i): Linea => {
    if (d.claveRegimen !== undefined) claves.add(d.claveRegimen);
    const c = d.calificacionOperacion;
    if (c === 'S2') conS2 = true;
    else if (c === 'N1' || c === 'N2') conNoSujeta = true;
    if (d.operacionExenta !== undefined) conExenta = true;
    if (d.tipoRecargoEquivalencia !== undefined || d.cuotaRecargoEquivalencia !== undefined) conRecargo = true;
    if (d.impuesto === '02' || d.impuesto === '05') conOtroImpuesto = true;
    const l: Linea = {
      d,
      campo: 'detalleDesglose[' + i + ']',
      iva: d.impuesto === undefined || d.impuesto === '01',
      ivaOIgic: d.impuesto === undefined || d.impuesto === '01' || d.impuesto === '03',
      base: dec(d.baseImponible),
      cuota: d.cuotaRepercutida === undefined ? undefined : dec(d.cuotaRepercutida),
      cuotaRecargo: d.cuotaRecargoEquivalencia === undefined ? undefined : dec(d.cuotaRecargoEquivalencia),
      tipo: d.tipoImpositivo === undefined ? undefined : centesimas(d.tipoImpositivo),
      tipoRecargo: d.tipoRecargoEquivalencia === undefined ? undefined : centesimas(d.tipoRecargoEquivalencia),
    };
    bases = bases === undefined ? l.base : bases.plus(l.base);
    if (l.cuota !== undefined) cuotas = cuotas === undefined ? l.cuota : cuotas.plus(l.cuota);
    if (l.cuotaRecargo !== undefined) recargos = recargos === undefined ? l.cuotaRecargo : recargos.plus(l.cuotaRecargo);
    return l;
  });
  const sumaBases = bases ?? CERO; // detalleDesglose has at least one line; this is for the types
  const sumaBaseCuota = cuotas === undefined ? sumaBases : sumaBases.plus(cuotas);
  const sumaCuotas = recargos === undefined ? (cuotas ?? CERO) : cuotas === undefined ? recargos : cuotas.plus(recargos);
  return {
    sumaBaseCuota,
    sumaCuotas,
    sumaTotal: recargos === undefined ? sumaBaseCuota : sumaBaseCuota.plus(recargos),
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
type Report = (campo: string, detalle: string, codigo?: string) => void;

interface Regla {
  codigo: string;
  gravedad: 'error' | 'aviso';
  /** The rule in the words of the AEAT document. */
  regla: string;
  comprobar(v: Vista, report: Report): void;
}

const CON_DESTINATARIO: ReadonlySet<TipoFactura> = new Set(['F1', 'F3', 'R1', 'R2', 'R3', 'R4']);
const SIN_DESTINATARIO: ReadonlySet<TipoFactura> = new Set(['F2', 'R5']);
const DIEZ_EUROS = dec('10');
/** 10.00 € scaled by 10 000: 1142 compares cuota × 10 000 with base × rate in hundredths. */
const DIEZ_EUROS_X10000 = dec('100000');
const MENOS_DIEZ_EUROS_X10000 = dec('-100000');
const DIEZ_MIL = dec('10000');
// Rates take a handful of values: keep their Decimal (in hundredths) instead of converting each time.
const tiposDecimal = new Map<number, Decimal>();
function tipoDecimal(centesimasTipo: number): Decimal {
  let d = tiposDecimal.get(centesimasTipo);
  if (d === undefined) {
    d = dec(String(centesimasTipo));
    if (tiposDecimal.size < 1000) tiposDecimal.set(centesimasTipo, d);
  }
  return d;
}
const TIPOS_IVA = new Set([0, 200, 400, 500, 750, 1000, 2100]);
const TIPOS_RECARGO = new Set([0, 26, 50, 62, 100, 140, 175, 520]);
/** 7, 8, 16 and 18 % IVA and the 4 % recargo: operations of 2012 or before only (1132, 1135). */
const TIPOS_IVA_ANTIGUOS = new Set([700, 800, 1600, 1800]);
const ULTIMO_DIA_2012 = 20121231;
/** Keys for which AEAT does not check ImporteTotal against the desglose (§3.1.3.17). */
const SIN_CONTROL_IMPORTE_TOTAL = ['03', '05', '06', '08', '09'] as const;
const CAMPOS_CUOTA = ['tipoImpositivo', 'cuotaRepercutida', 'tipoRecargoEquivalencia', 'cuotaRecargoEquivalencia'] as const;
const CERO = dec('0');
const LIMITE_F2_RD = dec('400');
const LIMITE_F2 = dec('3000');
const LIMITE_F2_AEAT = dec('3010'); // 3000.00 plus AEAT's 10.00 margin

function fmtFecha(n: number): string {
  const s = String(n);
  return `${s.slice(6, 8)}-${s.slice(4, 6)}-${s.slice(0, 4)}`;
}

function fmtTipo(c: number): string {
  return (c / 100).toString();
}

function isRectificativa(t: TipoFactura): boolean {
  return t.charCodeAt(0) === 82; // 'R'
}

function lineas(v: Vista, scope: 'iva' | 'ivaOIgic' | 'todas', fn: (l: Linea) => void): void {
  for (const l of v.lineas) {
    if (scope === 'todas' || l[scope]) fn(l);
  }
}

/** CuotaRepercutida is validated against base × tipo except for incremental, R2 and R3 invoices. */
function cuotaSeValida(v: Vista): boolean {
  return v.f.rectificativa?.tipo !== 'I' && v.tipo !== 'R2' && v.tipo !== 'R3';
}

/** Country prefix of an EU VAT number (NIF-IVA) for an ISO code: Greece writes EL. */
function prefijosNifIva(codigoPais: string): readonly string[] {
  if (codigoPais === 'GR') return ['EL'];
  if (codigoPais === 'GB') return ['GB', 'XI'];
  return [codigoPais];
}

/** Checks common to every IDOtro (destinatario and tercero). */
function comprobarIdOtro(otro: IdOtro, campo: string, report: Report, codigo: '1111' | '1122'): void {
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

function partes(v: Vista): Array<{ p: Persona; campo: string }> {
  const out: Array<{ p: Persona; campo: string }> = [];
  if (v.f.destinatario !== undefined) out.push({ p: v.f.destinatario, campo: 'destinatario' });
  const t = v.f.especial?.tercero;
  if (t !== undefined) out.push({ p: t, campo: 'especial.tercero' });
  return out;
}

// ---------------------------------------------------------------- the rules

const VIGOR_VERIFACTU = 20241028; // 28-10-2024, entry into force of the Order

const REGLAS: readonly Regla[] = [
  // ---- dates (§3.1.3.1, §3.1.3.7)
  {
    codigo: '1112',
    gravedad: 'error',
    regla: 'La FechaExpedicionFactura no podrá ser superior a la fecha actual',
    comprobar(v, report) {
      if (v.expedicion > v.hoy) report('cabecera.fechaExpedicion', `fechaExpedicion is after today (${v.ctx.hoy})`);
    },
  },
  {
    codigo: '1152',
    gravedad: 'error',
    regla: 'La FechaExpedicionFactura no debe ser inferior a 28/10/2024',
    comprobar(v, report) {
      if (v.expedicion < VIGOR_VERIFACTU) report('cabecera.fechaExpedicion', 'fechaExpedicion is before 28-10-2024');
    },
  },
  {
    codigo: '1133',
    gravedad: 'error',
    regla: 'FechaExpedicionFactura no debe ser inferior a la fecha actual menos veinte años',
    comprobar(v, report) {
      if (v.expedicion < v.hoy - 200000) report('cabecera.fechaExpedicion', 'fechaExpedicion is more than 20 years ago');
    },
  },
  {
    codigo: '1134',
    gravedad: 'error',
    regla: 'La FechaOperacion no debe ser inferior a la fecha actual menos veinte años',
    comprobar(v, report) {
      if (v.operacion !== undefined && v.operacion < v.hoy - 200000) {
        report('cabecera.fechaOperacion', 'fechaOperacion is more than 20 years ago');
      }
    },
  },
  {
    codigo: '1125',
    gravedad: 'error',
    regla: 'La FechaOperacion no debe ser superior al año siguiente de la fecha actual',
    comprobar(v, report) {
      const limite = (Math.floor(v.hoy / 10000) + 1) * 10000 + 1231;
      if (v.operacion !== undefined && v.operacion > limite) {
        report('cabecera.fechaOperacion', `fechaOperacion is after ${fmtFecha(limite)}`);
      }
    },
  },
  {
    codigo: '1173',
    gravedad: 'error',
    regla: 'FechaOperacion solo podrá ser superior a la fecha actual si ClaveRegimen = 14 o 15 (IVA/IGIC)',
    comprobar(v, report) {
      if (v.operacion === undefined || v.operacion <= v.hoy) return;
      if (v.lineas.some((l) => l.ivaOIgic && l.d.claveRegimen !== '14' && l.d.claveRegimen !== '15')) {
        report('cabecera.fechaOperacion', 'fechaOperacion after today is only allowed with claveRegimen 14 or 15');
      }
    },
  },
  {
    codigo: '1146',
    gravedad: 'error',
    regla: 'FechaExpedicionFactura solo puede ser anterior a la FechaOperacion si ClaveRegimen = 14 o 15 (IVA/IGIC)',
    comprobar(v, report) {
      if (v.operacion === undefined || v.expedicion >= v.operacion) return;
      if (v.lineas.some((l) => l.ivaOIgic && l.d.claveRegimen !== '14' && l.d.claveRegimen !== '15')) {
        report('cabecera.fechaOperacion', 'fechaOperacion after fechaExpedicion is only allowed with claveRegimen 14 or 15');
      }
    },
  },
  {
    codigo: '1147',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 14, FechaOperacion es obligatoria y posterior a la fecha de expedición',
    comprobar(v, report) {
      if (!v.claves.has('14')) return;
      if (!v.lineas.some((l) => l.ivaOIgic && l.d.claveRegimen === '14')) return;
      if (v.operacion === undefined || v.operacion <= v.expedicion) {
        report('cabecera.fechaOperacion', 'claveRegimen 14 needs a fechaOperacion after fechaExpedicion');
      }
    },
  },

  // ---- invoice type and blocks (§3.1.3.3–14)
  {
    codigo: '1114',
    gravedad: 'error',
    regla: 'TipoRectificativa es obligatorio si TipoFactura es R1, R2, R3, R4 o R5',
    comprobar(v, report) {
      if (isRectificativa(v.tipo) && v.f.rectificativa === undefined) {
        report('rectificativa.tipo', `tipoFactura ${v.tipo} needs rectificativa.tipo (S or I)`);
      }
    },
  },
  {
    codigo: '1115',
    gravedad: 'error',
    regla: 'TipoRectificativa solo podrá incluirse si TipoFactura es R1–R5',
    comprobar(v, report) {
      if (!isRectificativa(v.tipo) && v.f.rectificativa !== undefined) {
        report('rectificativa', `rectificativa is only allowed when tipoFactura is R1–R5, not ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1183',
    gravedad: 'error',
    regla: 'FacturaSimplificadaArt7273 solo se podrá rellenar con S si TipoFactura es F1, F3, R1, R2, R3 o R4',
    comprobar(v, report) {
      if (v.f.especial?.facturaSimplificadaArt7273 === true && !CON_DESTINATARIO.has(v.tipo)) {
        report('especial.facturaSimplificadaArt7273', `not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1185',
    gravedad: 'error',
    regla: 'FacturaSinIdentifDestinatarioArt61d solo se podrá rellenar con S si TipoFactura es F2 o R5',
    comprobar(v, report) {
      if (v.f.especial?.facturaSinIdentifDestinatarioArt61d === true && !SIN_DESTINATARIO.has(v.tipo)) {
        report('especial.facturaSinIdentifDestinatarioArt61d', `not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1157',
    gravedad: 'error',
    regla: 'Cupon solo se podrá rellenar con S si TipoFactura es R1 o R5',
    comprobar(v, report) {
      if (v.f.especial?.cupon === true && v.tipo !== 'R1' && v.tipo !== 'R5') {
        report('especial.cupon', `cupon is only allowed for tipoFactura R1 or R5, not ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1155',
    gravedad: 'error',
    regla: 'Se está informando el bloque Tercero sin estar informado EmitidaPorTerceroODestinatario',
    comprobar(v, report) {
      const e = v.f.especial;
      if (e?.tercero !== undefined && e.emitidaPor === undefined) {
        report('especial.tercero', 'tercero needs especial.emitidaPor = "T"');
      }
    },
  },
  {
    codigo: '1159',
    gravedad: 'error',
    regla: 'Se está informando el bloque Tercero cuando se indica que se va a informar de Destinatario',
    comprobar(v, report) {
      const e = v.f.especial;
      if (e?.tercero !== undefined && e.emitidaPor === 'D') {
        report('especial.tercero', 'tercero is not allowed when emitidaPor is "D"');
      }
    },
  },
  {
    codigo: '1186',
    gravedad: 'error',
    regla: 'Si EmitidaPorTerceroODestinatario es T, el bloque Tercero es obligatorio',
    comprobar(v, report) {
      const e = v.f.especial;
      if (e?.emitidaPor === 'T' && e.tercero === undefined) report('especial.tercero', 'emitidaPor "T" needs especial.tercero');
    },
  },
  {
    codigo: '1158',
    gravedad: 'error',
    regla: 'Si EmitidaPorTerceroODestinatario es D, el bloque Destinatarios es obligatorio',
    comprobar(v, report) {
      if (v.f.especial?.emitidaPor === 'D' && v.f.destinatario === undefined) {
        report('destinatario', 'emitidaPor "D" needs a destinatario');
      }
    },
  },
  {
    codigo: '1188',
    gravedad: 'error',
    regla: 'El NIF del bloque Tercero debe ser diferente al NIF del emisor',
    comprobar(v, report) {
      const t = v.f.especial?.tercero;
      if (t?.nif !== undefined && t.nif === v.f.emisor.nif) report('especial.tercero.nif', 'tercero cannot be the issuer itself');
    },
  },
  {
    codigo: '1211',
    gravedad: 'error',
    regla: 'El bloque Tercero no puede estar identificado con IDType No Censado (07)',
    comprobar(v, report) {
      if (v.f.especial?.tercero?.idOtro?.idType === '07') report('especial.tercero.idOtro.idType', 'idType 07 is not allowed for tercero');
    },
  },
  {
    codigo: '1232',
    gravedad: 'error',
    regla: 'Tercero identificado por IDOtro con CodigoPais ES: IDType debe ser Pasaporte (03)',
    comprobar(v, report) {
      const o = v.f.especial?.tercero?.idOtro;
      if (o?.codigoPais === 'ES' && o.idType !== '03' && o.idType !== '07') {
        report('especial.tercero.idOtro.idType', 'with codigoPais ES, a tercero idType must be 03 (passport)');
      }
    },
  },
  {
    codigo: '1189',
    gravedad: 'error',
    regla: 'Si TipoFactura es F1, F3, R1, R2, R3 o R4, Destinatarios tiene que estar cumplimentado',
    comprobar(v, report) {
      if (CON_DESTINATARIO.has(v.tipo) && v.f.destinatario === undefined) {
        report('destinatario', `tipoFactura ${v.tipo} needs a destinatario`);
      }
    },
  },
  {
    codigo: '1190',
    gravedad: 'error',
    regla: 'Si TipoFactura es F2 o R5, Destinatarios no puede estar cumplimentado',
    comprobar(v, report) {
      if (SIN_DESTINATARIO.has(v.tipo) && v.f.destinatario !== undefined) {
        report('destinatario', `tipoFactura ${v.tipo} (simplified) cannot have a destinatario`);
      }
    },
  },
  {
    codigo: '1111',
    gravedad: 'error',
    regla: 'El campo CodigoPais es obligatorio cuando IDType es distinto de 02',
    comprobar(v, report) {
      if (v.f.destinatario?.idOtro === undefined && v.f.especial?.tercero?.idOtro === undefined) return;
      for (const { p, campo } of partes(v)) if (p.idOtro) comprobarIdOtro(p.idOtro, `${campo}.idOtro`, report, '1111');
    },
  },
  {
    codigo: '1122',
    gravedad: 'error',
    regla: 'El campo CodigoPais indicado no coincide con los dos primeros dígitos del identificador',
    comprobar(v, report) {
      if (v.f.destinatario?.idOtro === undefined && v.f.especial?.tercero?.idOtro === undefined) return;
      for (const { p, campo } of partes(v)) if (p.idOtro) comprobarIdOtro(p.idOtro, `${campo}.idOtro`, report, '1122');
    },
  },
  {
    codigo: '1254/1255',
    gravedad: 'error',
    regla: "NIF-IVA (IDType 02): 'XI' no se permite con FechaOperacion (o expedición) anterior a 01/01/2021, ni 'GB' desde 01/02/2021",
    comprobar(v, report) {
      for (const { p, campo } of partes(v)) {
        if (p.idOtro === undefined || p.idOtro.idType !== '02') continue;
        const prefijo = p.idOtro.id.slice(0, 2);
        if (prefijo === 'XI' && v.fechaRef < 20210101) {
          report(`${campo}.idOtro.id`, 'a NIF-IVA starting with XI (Northern Ireland) applies only to operations from 01-01-2021', '1254');
        }
        if (prefijo === 'GB' && v.fechaRef >= 20210201) {
          report(`${campo}.idOtro.id`, 'a NIF-IVA starting with GB applies only to operations up to 31-01-2021 (Northern Ireland: XI)', '1255');
        }
      }
    },
  },
  {
    codigo: '1290/1131',
    gravedad: 'error',
    regla: 'Con IDType No Censado (07) el ID debe ser un NIF con formato correcto (1290), el de una persona física (1131)',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (o === undefined || o.idType !== '07') return;
      const r = validateNif(o.id);
      if (!r.valid) {
        report('destinatario.idOtro.id', `idType 07 (not in census) needs a Spanish NIF with its check character: ${r.reason}`, '1290');
      } else if (r.normalized !== o.id) {
        report('destinatario.idOtro.id', `idType 07 (not in census): write the NIF as AEAT reads it, ${r.normalized}`, '1290');
      } else if (classifyNif(o.id) === 'cif') {
        report('destinatario.idOtro.id', "idType 07 (not in census) needs a natural person's NIF (DNI, NIE or K/L/M), not a legal entity's", '1131');
      }
    },
  },
  {
    codigo: '1126',
    gravedad: 'error',
    regla: 'CodigoPais solo puede ser ES cuando IDType sea 03 o 07; si IDType es 07, CodigoPais debe ser ES',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (o === undefined) return;
      if (o.codigoPais === 'ES' && o.idType !== '03' && o.idType !== '07') {
        report('destinatario.idOtro.idType', 'with codigoPais ES, idType must be 03 (passport) or 07 (not in census)');
      } else if (o.idType === '07' && o.codigoPais !== 'ES') {
        report('destinatario.idOtro.codigoPais', 'idType 07 (not in census) needs codigoPais ES');
      }
    },
  },
  {
    codigo: '1156',
    gravedad: 'error',
    regla: 'Destinatario por IDOtro con IDType 02: TipoFactura debe ser F1, F3, R1, R2, R3 o R4',
    comprobar(v, report) {
      if (v.f.destinatario?.idOtro?.idType === '02' && !CON_DESTINATARIO.has(v.tipo)) {
        report('destinatario.idOtro.idType', `idType 02 is not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1191',
    gravedad: 'error',
    regla: 'Si TipoFactura es R3 sólo se admitirá NIF o IDType No Censado (07)',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (v.tipo === 'R3' && o !== undefined && o.idType !== '07') {
        report('destinatario.idOtro.idType', 'R3 accepts a destinatario by NIF or idType 07 only');
      }
    },
  },
  {
    codigo: '1192',
    gravedad: 'error',
    regla: 'Si TipoFactura es R2 sólo se admitirá NIF o IDType No Censado (07) o NIF-IVA (02)',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (v.tipo === 'R2' && o !== undefined && o.idType !== '07' && o.idType !== '02') {
        report('destinatario.idOtro.idType', 'R2 accepts a destinatario by NIF or idType 02 or 07 only');
      }
    },
  },

  // ---- ClaveRegimen (§15.6)
  {
    codigo: '1245',
    gravedad: 'error',
    regla: 'Si Impuesto está vacío o es 01 o 03, ClaveRegimen debe estar cumplimentado',
    comprobar(v, report) {
      lineas(v, 'ivaOIgic', (l) => {
        if (l.d.claveRegimen === undefined) report(`${l.campo}.claveRegimen`, 'claveRegimen is required for IVA and IGIC');
      });
    },
  },
  {
    codigo: '1260',
    gravedad: 'error',
    regla: 'ClaveRegimen solo debe estar cumplimentado si Impuesto está vacío o es 01 o 03',
    comprobar(v, report) {
      if (!v.conOtroImpuesto) return;
      lineas(v, 'todas', (l) => {
        if (!l.ivaOIgic && l.d.impuesto !== '02' && l.d.claveRegimen !== undefined) {
          report(`${l.campo}.claveRegimen`, `claveRegimen is not allowed for impuesto ${l.d.impuesto ?? ''}`);
        }
      });
    },
  },
  {
    codigo: '1246',
    gravedad: 'error',
    regla: 'ClaveRegimen 21 (régimen simplificado) solo existe para IGIC (lista L8B)',
    comprobar(v, report) {
      if (!v.claves.has('21')) return;
      lineas(v, 'iva', (l) => {
        if (l.d.claveRegimen === '21') report(`${l.campo}.claveRegimen`, 'claveRegimen 21 is only valid for IGIC (impuesto 03)');
      });
    },
  },
  {
    codigo: '1286',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 02 (exportación), solo puede estar cumplimentado OperacionExenta',
    comprobar(v, report) {
      if (!v.claves.has('02')) return;
      lineas(v, 'ivaOIgic', (l) => {
        if (l.d.claveRegimen === '02' && l.d.calificacionOperacion !== undefined) {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 02 (export) needs operacionExenta, not calificacionOperacion');
        }
      });
    },
  },
  {
    codigo: '1200',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 03, CalificacionOperacion sólo puede ser S1',
    comprobar(v, report) {
      if (!v.claves.has('03')) return;
      lineas(v, 'ivaOIgic', (l) => {
        const c = l.d.calificacionOperacion;
        if (l.d.claveRegimen === '03' && c !== undefined && c !== 'S1') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 03 (REBU) only allows S1');
        }
      });
    },
  },
  {
    codigo: '1201',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 04, CalificacionOperacion sólo puede ser S2 o bien OperacionExenta',
    comprobar(v, report) {
      if (!v.claves.has('04')) return;
      lineas(v, 'ivaOIgic', (l) => {
        const c = l.d.calificacionOperacion;
        if (l.d.claveRegimen === '04' && c !== undefined && c !== 'S2') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 04 (investment gold) only allows S2 or operacionExenta');
        }
      });
    },
  },
  {
    codigo: '1202',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 06, TipoFactura no puede ser F2, F3, R5 y BaseImponibleACoste debe estar cumplimentado',
    comprobar(v, report) {
      if (!v.claves.has('06')) return;
      lineas(v, 'ivaOIgic', (l) => {
        if (l.d.claveRegimen !== '06') return;
        if (v.tipo === 'F2' || v.tipo === 'F3' || v.tipo === 'R5') {
          report(`${l.campo}.claveRegimen`, `claveRegimen 06 is not allowed for tipoFactura ${v.tipo}`);
        } else {
          // The contract carries no BaseImponibleACoste, which AEAT requires with this key.
          report(`${l.campo}.claveRegimen`, 'claveRegimen 06 needs BaseImponibleACoste, which this API does not carry');
        }
      });
    },
  },
  {
    codigo: '1203',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 07, OperacionExenta no puede ser E2–E5 y CalificacionOperacion no puede ser S2, N1, N2',
    comprobar(v, report) {
      if (!v.claves.has('07')) return;
      lineas(v, 'ivaOIgic', (l) => {
        if (l.d.claveRegimen !== '07') return;
        const c = l.d.calificacionOperacion;
        const e = l.d.operacionExenta;
        if (c !== undefined && c !== 'S1') report(`${l.campo}.calificacionOperacion`, `claveRegimen 07 (cash basis) does not allow ${c}`);
        if (e === 'E2' || e === 'E3' || e === 'E4' || e === 'E5') {
          report(`${l.campo}.operacionExenta`, `claveRegimen 07 (cash basis) does not allow ${e}`);
        }
      });
    },
  },
  {
    codigo: '1252',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 08, CalificacionOperacion tiene que ser N2 e ir siempre informado',
    comprobar(v, report) {
      if (!v.claves.has('08')) return;
      lineas(v, 'ivaOIgic', (l) => {
        if (l.d.claveRegimen === '08' && l.d.calificacionOperacion !== 'N2') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 08 needs calificacionOperacion N2');
        }
      });
    },
  },
  {
    codigo: '1205',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 10, CalificacionOperacion N1, TipoFactura F1 y destinatarios identificados por NIF',
    comprobar(v, report) {
      if (!v.claves.has('10')) return;
      lineas(v, 'ivaOIgic', (l) => {
        if (l.d.claveRegimen !== '10') return;
        if (l.d.calificacionOperacion !== 'N1') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 10 needs calificacionOperacion N1');
        } else if (v.tipo !== 'F1') {
          report('cabecera.tipoFactura', 'claveRegimen 10 needs tipoFactura F1');
        } else if (v.f.destinatario !== undefined && v.f.destinatario.nif === undefined) {
          report('destinatario.nif', 'claveRegimen 10 needs a destinatario identified by NIF');
        }
      });
    },
  },
  {
    codigo: '1206',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 11, TipoImpositivo ha de ser 21%',
    comprobar(v, report) {
      if (!v.claves.has('11')) return;
      lineas(v, 'iva', (l) => {
        if (l.d.claveRegimen === '11' && l.tipo !== undefined && l.tipo !== 2100) {
          report(`${l.campo}.tipoImpositivo`, 'claveRegimen 11 (business premises rental) needs tipoImpositivo 21');
        }
      });
    },
  },
  {
    codigo: '1148',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 14, TipoFactura debe ser F1, R1, R2, R3 o R4',
    comprobar(v, report) {
      if (!v.claves.has('14')) return;
      const ok = v.tipo === 'F1' || v.tipo === 'R1' || v.tipo === 'R2' || v.tipo === 'R3' || v.tipo === 'R4';
      if (!ok && v.lineas.some((l) => l.ivaOIgic && l.d.claveRegimen === '14')) {
        report('cabecera.tipoFactura', `claveRegimen 14 is not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1149',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 14, los destinatarios se identifican por NIF que comienza por P, Q, S o V',
    comprobar(v, report) {
      if (!v.claves.has('14')) return;
      if (!v.lineas.some((l) => l.ivaOIgic && l.d.claveRegimen === '14')) return;
      const d = v.f.destinatario;
      if (d !== undefined && (d.nif === undefined || !'PQSV'.includes(d.nif.charAt(0)))) {
        report('destinatario.nif', 'claveRegimen 14 needs a public-administration NIF (starting with P, Q, S or V)');
      }
    },
  },

  // ---- CalificacionOperacion / OperacionExenta (§15.4, §15.5)
  {
    codigo: '1182',
    gravedad: 'error',
    regla: 'Con IVA, OperacionExenta debe estar en la lista L10 (E1–E6); E7 y E8 solo con IGIC',
    comprobar(v, report) {
      if (!v.conExenta) return;
      lineas(v, 'todas', (l) => {
        const e = l.d.operacionExenta;
        if ((e === 'E7' || e === 'E8') && l.d.impuesto !== '03') {
          report(`${l.campo}.operacionExenta`, `${e} is only valid for IGIC (impuesto 03)`);
        }
      });
    },
  },
  {
    codigo: '1199',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 01 no pueden marcarse las OperacionExenta E2, E3',
    comprobar(v, report) {
      if (!v.conExenta) return;
      lineas(v, 'ivaOIgic', (l) => {
        const e = l.d.operacionExenta;
        if (l.d.claveRegimen === '01' && (e === 'E2' || e === 'E3')) {
          report(`${l.campo}.operacionExenta`, `${e} (exports) is not allowed with claveRegimen 01`);
        }
      });
    },
  },
  {
    codigo: '1197',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es S2, TipoFactura solo puede ser F1, F3, R1, R2, R3 y R4',
    comprobar(v, report) {
      if (!v.conS2) return;
      lineas(v, 'todas', (l) => {
        if (l.d.calificacionOperacion === 'S2' && !CON_DESTINATARIO.has(v.tipo)) {
          report(`${l.campo}.calificacionOperacion`, `S2 (reverse charge) is not allowed for tipoFactura ${v.tipo}`);
        }
      });
    },
  },
  {
    codigo: '1198',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es S2, TipoImpositivo y CuotaRepercutida deberán tener valor 0',
    comprobar(v, report) {
      if (!v.conS2) return;
      lineas(v, 'todas', (l) => {
        if (l.d.calificacionOperacion !== 'S2') return;
        if (l.tipo !== 0) report(`${l.campo}.tipoImpositivo`, 'S2 (reverse charge) needs tipoImpositivo "0"');
        if (l.cuota === undefined || !l.cuota.isZero()) {
          report(`${l.campo}.cuotaRepercutida`, 'S2 (reverse charge) needs cuotaRepercutida "0"');
        }
      });
    },
  },
  {
    codigo: '1237',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es N1/N2 e Impuesto IVA, no se informan TipoImpositivo, CuotaRepercutida, TipoRecargoEquivalencia ni CuotaRecargoEquivalencia',
    comprobar(v, report) {
      if (!v.conNoSujeta) return;
      lineas(v, 'iva', (l) => {
        const c = l.d.calificacionOperacion;
        if (c !== 'N1' && c !== 'N2') return;
        for (const k of CAMPOS_CUOTA) {
          if (l.d[k] !== undefined) report(`${l.campo}.${k}`, `${k} must be absent on a ${c} (not subject) line`);
        }
      });
    },
  },
  {
    codigo: '1238',
    gravedad: 'error',
    regla: 'Si la operación es exenta no se puede informar TipoImpositivo, CuotaRepercutida, TipoRecargoEquivalencia ni CuotaRecargoEquivalencia',
    comprobar(v, report) {
      if (!v.conExenta) return;
      lineas(v, 'todas', (l) => {
        if (l.d.operacionExenta === undefined) return;
        for (const k of CAMPOS_CUOTA) {
          if (l.d[k] !== undefined) report(`${l.campo}.${k}`, `${k} must be absent on an exempt (${l.d.operacionExenta}) line`);
        }
      });
    },
  },
  {
    codigo: '1281',
    gravedad: 'error',
    regla: 'Solo se puede cumplimentar TipoRecargoEquivalencia y CuotaRecargoEquivalencia cuando CalificacionOperacion es S1',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      lineas(v, 'todas', (l) => {
        const c = l.d.calificacionOperacion;
        if (c === undefined || c === 'S1') return;
        if (l.d.tipoRecargoEquivalencia !== undefined) report(`${l.campo}.tipoRecargoEquivalencia`, `recargo de equivalencia needs S1, not ${c}`);
        if (l.d.cuotaRecargoEquivalencia !== undefined) report(`${l.campo}.cuotaRecargoEquivalencia`, `recargo de equivalencia needs S1, not ${c}`);
      });
    },
  },
  {
    codigo: '1284',
    gravedad: 'error',
    regla: 'Si se informa TipoRecargoEquivalencia también se debe informar CuotaRecargoEquivalencia y viceversa',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      lineas(v, 'todas', (l) => {
        if (l.d.tipoRecargoEquivalencia !== undefined && l.d.cuotaRecargoEquivalencia === undefined) {
          report(`${l.campo}.cuotaRecargoEquivalencia`, 'tipoRecargoEquivalencia needs cuotaRecargoEquivalencia');
        } else if (l.d.tipoRecargoEquivalencia === undefined && l.d.cuotaRecargoEquivalencia !== undefined) {
          report(`${l.campo}.tipoRecargoEquivalencia`, 'cuotaRecargoEquivalencia needs tipoRecargoEquivalencia');
        }
      });
    },
  },
  {
    codigo: '1207',
    gravedad: 'error',
    regla: 'La CuotaRepercutida solo podrá ser distinta de 0 si CalificacionOperacion es S1',
    comprobar(v, report) {
      lineas(v, 'todas', (l) => {
        if (l.d.calificacionOperacion !== 'S1' && l.cuota !== undefined && !l.cuota.isZero()) {
          report(`${l.campo}.cuotaRepercutida`, 'a non-zero cuotaRepercutida needs calificacionOperacion S1');
        }
      });
    },
  },
  {
    codigo: '1208',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es S1, TipoImpositivo y CuotaRepercutida son obligatorios',
    comprobar(v, report) {
      lineas(v, 'todas', (l) => {
        if (l.d.calificacionOperacion !== 'S1') return;
        if (l.d.tipoImpositivo === undefined) report(`${l.campo}.tipoImpositivo`, 'S1 needs tipoImpositivo');
        if (l.d.cuotaRepercutida === undefined) report(`${l.campo}.cuotaRepercutida`, 'S1 needs cuotaRepercutida');
      });
    },
  },
  {
    codigo: '1143',
    gravedad: 'error',
    regla: 'CuotaRepercutida y BaseImponibleOimporteNoSujeto deben tener el mismo signo (salvo TipoRectificativa I, R2, R3)',
    comprobar(v, report) {
      if (!cuotaSeValida(v)) return;
      lineas(v, 'todas', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || l.cuota === undefined) return;
        // Zero has no sign here: a zero cuota or base never conflicts.
        if (!l.cuota.isZero() && !l.base.isZero() && l.cuota.isNegative() !== l.base.isNegative()) {
          report(`${l.campo}.cuotaRepercutida`, 'cuotaRepercutida and baseImponible must have the same sign');
        }
      });
    },
  },
  {
    codigo: '1142',
    gravedad: 'error',
    regla: 'CuotaRepercutida = BaseImponibleOimporteNoSujeto × TipoImpositivo / 100 ± 10,00 € (salvo TipoRectificativa I, R2, R3)',
    comprobar(v, report) {
      if (!cuotaSeValida(v)) return;
      lineas(v, 'todas', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || l.cuota === undefined || l.tipo === undefined) return;
        // |cuota − base × tipo / 100| > 10, scaled by 10 000 to stay in exact products (tipo in hundredths).
        const diff = l.cuota.times(DIEZ_MIL).minus(l.base.times(tipoDecimal(l.tipo)));
        if (diff.greaterThan(DIEZ_EUROS_X10000) || diff.lessThan(MENOS_DIEZ_EUROS_X10000)) {
          const esperada = l.base.times(tipoDecimal(l.tipo)).dividedBy(DIEZ_MIL);
          report(
            `${l.campo}.cuotaRepercutida`,
            `cuotaRepercutida ${l.d.cuotaRepercutida ?? ''} differs by more than 10.00 from base × tipo = ${esperada.toFixed(2)}`,
          );
        }
      });
    },
  },

  // ---- rates (§15.1, §15.3), IVA and S1 only
  {
    codigo: '1124',
    gravedad: 'error',
    regla: 'Con IVA y S1 solo se permiten TipoImpositivo 0, 2, 4, 5, 7,5, 10 y 21',
    comprobar(v, report) {
      lineas(v, 'iva', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || l.tipo === undefined) return;
        if (!TIPOS_IVA.has(l.tipo) && !TIPOS_IVA_ANTIGUOS.has(l.tipo)) {
          report(`${l.campo}.tipoImpositivo`, `IVA rate ${fmtTipo(l.tipo)} % does not exist (0, 2, 4, 5, 7.5, 10, 21)`);
        }
      });
    },
  },
  {
    codigo: '1132',
    gravedad: 'error',
    regla: 'TipoImpositivo 7, 8, 16 y 18 solo para FechaOperacion (o expedición) hasta el año 2012',
    comprobar(v, report) {
      lineas(v, 'iva', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || l.tipo === undefined || !TIPOS_IVA_ANTIGUOS.has(l.tipo)) return;
        if (v.fechaRef > ULTIMO_DIA_2012) report(`${l.campo}.tipoImpositivo`, `IVA ${fmtTipo(l.tipo)} % applies only to operations up to 31-12-2012`);
      });
    },
  },
  {
    codigo: '1194',
    gravedad: 'error',
    regla: 'TipoImpositivo 5 solo para FechaOperacion (o expedición) entre 1-7-2022 y 30-9-2024',
    comprobar(v, report) {
      lineas(v, 'iva', (l) => {
        if (l.d.calificacionOperacion === 'S1' && l.tipo === 500 && (v.fechaRef < 20220701 || v.fechaRef > 20240930)) {
          report(`${l.campo}.tipoImpositivo`, 'IVA 5 % applies only to operations from 01-07-2022 to 30-09-2024');
        }
      });
    },
  },
  {
    codigo: '1235/1236',
    gravedad: 'error',
    regla: 'TipoImpositivo 2 y 7,5 solo para FechaOperacion (o expedición) entre 1-10-2024 y 31-12-2024',
    comprobar(v, report) {
      lineas(v, 'iva', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || (l.tipo !== 200 && l.tipo !== 750)) return;
        if (v.fechaRef < 20241001 || v.fechaRef > 20241231) {
          report(`${l.campo}.tipoImpositivo`, `IVA ${fmtTipo(l.tipo)} % applies only to operations from 01-10-2024 to 31-12-2024`);
        }
      });
    },
  },
  {
    codigo: '1127',
    gravedad: 'error',
    regla: 'Con IVA y S1 solo se permiten TipoRecargoEquivalencia 0, 0,26, 0,5, 0,62, 1, 1,4, 1,75 y 5,2',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      lineas(v, 'iva', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || l.tipoRecargo === undefined) return;
        if (TIPOS_RECARGO.has(l.tipoRecargo)) return;
        // 4 %: after 2012 it is 1135's; up to 2012 only beside a rate of then.
        if (l.tipoRecargo === 400) {
          if (v.fechaRef > ULTIMO_DIA_2012) return;
          if (l.tipo !== undefined && TIPOS_IVA_ANTIGUOS.has(l.tipo)) return;
        }
        report(`${l.campo}.tipoRecargoEquivalencia`, `recargo rate ${fmtTipo(l.tipoRecargo)} % does not exist`);
      });
    },
  },
  {
    codigo: '1135',
    gravedad: 'error',
    regla: 'TipoRecargoEquivalencia 4 solo para FechaOperacion (o expedición) hasta el año 2012',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      lineas(v, 'iva', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || l.tipoRecargo !== 400) return;
        if (v.fechaRef > ULTIMO_DIA_2012) report(`${l.campo}.tipoRecargoEquivalencia`, 'recargo rate 4 % applies only to operations up to 31-12-2012');
      });
    },
  },
  {
    codigo: '1160–1170',
    gravedad: 'error',
    regla: 'TipoRecargoEquivalencia según TipoImpositivo: 21→5,2 ó 1,75; 10→1,4; 7,5→1; 5→0,5 (≤2022) ó 0,62 (2023–30-9-2024); 4→0,5; 2→0,26; 0→0 (2023–30-9-2024) ó 0,26 (desde 1-10-2024)',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      lineas(v, 'iva', (l) => {
        if (l.d.calificacionOperacion !== 'S1' || l.tipo === undefined || l.tipoRecargo === undefined) return;
        const permitidos = recargosPermitidos(l.tipo, v.fechaRef);
        if (permitidos !== null && !permitidos.codes.includes(l.tipoRecargo)) {
          report(
            `${l.campo}.tipoRecargoEquivalencia`,
            `with tipoImpositivo ${fmtTipo(l.tipo)} the recargo must be ${permitidos.codes.map(fmtTipo).join(' or ')}`,
            permitidos.codigo,
          );
        }
      });
    },
  },

  // ---- simplified invoices (§15.8)
  {
    codigo: '1150',
    gravedad: 'error',
    regla: 'F2: Σ(BaseImponibleOimporteNoSujeto + CuotaRepercutida) no superior a 3.000,00 € (+10,00), salvo acuerdo de facturación o Art61d',
    comprobar(v, report) {
      if (v.tipo !== 'F2') return;
      const e = v.f.especial;
      if (e?.numRegistroAcuerdoFacturacion !== undefined || e?.facturaSinIdentifDestinatarioArt61d === true) return;
      const suma = v.sumaBaseCuota;
      if (suma.greaterThan(LIMITE_F2_AEAT)) {
        report('totales.importeTotal', `a simplified invoice (F2) cannot exceed 3000.00; its lines add up to ${suma.toFixed(2)}`);
      }
    },
  },

  // ---- subsanación (§3.1.3.2)
  {
    codigo: '1153',
    gravedad: 'error',
    regla: 'Solo podrá incluirse RechazoPrevio con valor X si Subsanacion tiene el valor S',
    comprobar(v, report) {
      if (v.ctx.rechazoPrevio === 'X' && v.ctx.subsanacion !== true) report('rechazoPrevio', 'rechazoPrevio "X" needs subsanacion');
    },
  },
  {
    codigo: '1161',
    gravedad: 'error',
    regla: 'No podrá informarse RechazoPrevio S si no se informa Subsanacion o tiene el valor N',
    comprobar(v, report) {
      if (v.ctx.rechazoPrevio === 'S' && v.ctx.subsanacion !== true) report('rechazoPrevio', 'rechazoPrevio "S" needs subsanacion');
    },
  },

  // ---- accepted with errors (§3.1.3.16–17)
  {
    codigo: '2005',
    gravedad: 'aviso',
    regla: 'ImporteTotal = Σ(BaseImponibleOimporteNoSujeto + CuotaRepercutida + CuotaRecargoEquivalencia) ± 10,00 € (no aplica a claves 03, 05, 06, 08, 09)',
    comprobar(v, report) {
      for (const k of SIN_CONTROL_IMPORTE_TOTAL) if (v.claves.has(k)) return;
      const suma = v.sumaTotal;
      const delta = dec(v.f.totales.importeTotal).minus(suma);
      if (delta.isZero()) return;
      const diff = delta.abs();
      if (diff.greaterThan(DIEZ_EUROS)) {
        report(
          'totales.importeTotal',
          `AEAT 2005: importeTotal ${v.f.totales.importeTotal} differs by ${diff.toFixed(2)} from the sum of the desglose (${suma.toFixed(2)}); AEAT accepts the record with errors and it must be corrected (subsanar)`,
        );
      } else {
        report(
          'totales.importeTotal',
          `importeTotal ${v.f.totales.importeTotal} differs by ${diff.toFixed(2)} from the sum of the desglose (${suma.toFixed(2)}); within AEAT's 10.00 tolerance (code 2005 beyond it)`,
        );
      }
    },
  },
  {
    codigo: '2006',
    gravedad: 'aviso',
    regla: 'CuotaTotal = Σ(CuotaRepercutida + CuotaRecargoEquivalencia) ± 10,00 €',
    comprobar(v, report) {
      const suma = v.sumaCuotas;
      const delta = dec(v.f.totales.cuotaTotal).minus(suma);
      if (delta.isZero()) return;
      const diff = delta.abs();
      if (diff.greaterThan(DIEZ_EUROS)) {
        report(
          'totales.cuotaTotal',
          `AEAT 2006: cuotaTotal ${v.f.totales.cuotaTotal} differs by ${diff.toFixed(2)} from the sum of the cuotas (${suma.toFixed(2)}); AEAT accepts the record with errors and it must be corrected (subsanar)`,
        );
      } else {
        report(
          'totales.cuotaTotal',
          `cuotaTotal ${v.f.totales.cuotaTotal} differs by ${diff.toFixed(2)} from the sum of the cuotas (${suma.toFixed(2)}); within AEAT's 10.00 tolerance (code 2006 beyond it)`,
        );
      }
    },
  },
  {
    codigo: 'RD 1619/2012 art. 4',
    gravedad: 'aviso',
    regla: 'Factura simplificada: importe no superior a 400 € (IVA incluido), o 3.000 € en las actividades del art. 4.1.b)',
    comprobar(v, report) {
      if (v.tipo !== 'F2' || v.f.especial?.facturaSinIdentifDestinatarioArt61d === true) return;
      const total = dec(v.f.totales.importeTotal);
      if (total.greaterThan(LIMITE_F2_RD) && total.lessThanOrEqualTo(LIMITE_F2)) {
        report(
          'totales.importeTotal',
          `simplified invoice (F2) of ${v.f.totales.importeTotal}: above 400.00 it is only allowed for the activities of RD 1619/2012 art. 4.1.b (limit 3000.00, AEAT code 1150); AEAT does not check the 400.00 limit`,
        );
      }
    },
  },
];

/** Allowed recargo rates (hundredths) for an IVA rate on a date, or null when AEAT sets none. */
function recargosPermitidos(tipo: number, fecha: number): { codigo: string; codes: number[] } | null {
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
      if (fecha >= 20230101 && fecha <= 20240930) return { codigo: '1165', codes: [0] };
      return fecha >= 20241001 ? { codigo: '1170', codes: [26] } : null;
    default:
      return null;
  }
}

/** The rules, for documentation and tests: code, severity and the rule in AEAT's words. */
export const REGLAS_VERIFACTU: ReadonlyArray<Pick<Regla, 'codigo' | 'gravedad' | 'regla'>> = REGLAS.map(
  ({ codigo, gravedad, regla }) => ({ codigo, gravedad, regla }),
);

/**
 * Runs every local AEAT validation of a RegistroAlta. One error per field (the first rule that
 * fails it, in table order); avisos are independent of errors.
 */
export function validarAltaDecimal(factura: FacturaVerifactu, ctx: ContextoReglas): ResultadoReglas {
  const v = vista(factura, ctx);
  const errors: ErrorRegla[] = [];
  const avisos: string[] = [];
  const camposConError = new Set<string>();
  let regla = REGLAS[0] as Regla;
  // One report function for the whole run (hot path): it reads the rule being checked.
  const report: Report = (campo, detalle, codigo = regla.codigo) => {
    if (regla.gravedad === 'aviso') {
      // Aviso texts name their AEAT code (or legal reference) themselves.
      avisos.push(campo + ': ' + detalle);
    } else if (!camposConError.has(campo)) {
      camposConError.add(campo);
      errors.push({ campo, codigo, message: `${detalle} (AEAT ${codigo})` });
    }
  };
  for (const r of REGLAS) {
    regla = r;
    r.comprobar(v, report);
  }
  return { errors, avisos };
}
