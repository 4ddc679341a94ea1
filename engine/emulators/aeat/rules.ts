import { validNif, validPersonNif } from './nif';
import type { AltaRecord, AnulacionRecord, DesgloseLine, IdOtroRef, ParsedRecord } from './parse';
import { cents, dayNumber } from './values';

// The AEAT's business validations of a record (Validaciones y errores §3.1.3 and §15, with the
// codes of errores.properties, assets/reference/verifactu/validaciones/): what the real service
// rejects (one code per record, the first rule that fails, as a RespuestaLinea carries one) and
// what it accepts with errors. Written from the AEAT's texts, independently of the engine's rule
// table (engine/src/verifactu/reglas*.ts): the differential test holds the two against each other.
// Hot path: every record of every request. Most rules look at one field and return at once; the
// desglose is walked once, amounts read as integer cents without building strings.

/** Twenty years in YYYYMMDD units (1134). */
const TWENTY_YEARS = 200_000;
/** Rates in hundredths of a percent (cents() reads "21" as 2100, "7.5" as 750). */
const IVA_RATES = new Set([0, 200, 400, 500, 750, 1000, 2100]);
const RECARGO_RATES = new Set([0, 26, 50, 62, 100, 140, 175, 520]);
/** Rates of IVA and recargo in force up to 2012 only (16/7 % to 06-2010, 18/8 % to 08-2012; recargo 4 %): 1132/1135. */
const IVA_RATES_TO_2012 = new Set([700, 800, 1600, 1800]);
const RECARGO_RATES_TO_2012 = new Set([400]);
const END_OF_2012 = 20121231;
/** 10,00 € tolerance of 1142 in cents × hundredths of a percent (cuota × 10 000 vs base × tipo). */
const CUOTA_TOLERANCE = 10_000_000;
/** 3.000,00 € + 10,00 € (§15.8), in cents. */
const F2_LIMIT = 301_000;
/** ±100.000.000,00 €, in cents (1138/1139). */
const MACRODATO = 10_000_000_000;

const WITH_RECIPIENT = new Set(['F1', 'F3', 'R1', 'R2', 'R3', 'R4']);
const WITHOUT_RECIPIENT = new Set(['F2', 'R5']);

/** Characters AEAT refuses in IDFactura (1287; #208: the check was kept for IDFactura only). */
export function forbiddenCharacter(s: string): string | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // < > " ' =
    if (c === 60 || c === 62 || c === 34 || c === 39 || c === 61) return s[i] as string;
  }
  return null;
}

export interface RuleVerdict {
  /** Rejection code (record Incorrecto), null when the rules accept the record. */
  reject: number | null;
  /** Text for the rejection when the AEAT fills in a field name (1287). */
  detail?: string;
  /** Admissible codes the rules add (AceptadoConErrores). */
  warnings: number[];
}

const OK: RuleVerdict = Object.freeze({ reject: null, warnings: [] as number[] }) as RuleVerdict;
const rejectWith = (code: number, detail?: string): RuleVerdict =>
  detail === undefined ? { reject: code, warnings: [] } : { reject: code, detail, warnings: [] };

/** IVA (01) or absent, as the document scopes most desglose rules. */
const isIva = (l: DesgloseLine): boolean => l.impuesto === undefined || l.impuesto === '01';
/** IVA, IGIC (03) or absent. */
const isIvaOrIgic = (l: DesgloseLine): boolean => isIva(l) || l.impuesto === '03';

/** NIF-IVA of Northern Ireland / Great Britain by date (1254/1255; Validaciones nota (1)). */
function nifIvaDateRule(o: IdOtroRef, refDay: number): number | null {
  if (o.idType !== '02') return null;
  if (refDay < 20210101 && o.id.startsWith('XI')) return 1254;
  if (refDay >= 20210201 && o.id.startsWith('GB')) return 1255;
  return null;
}

function idOtroRule(o: IdOtroRef, tipoFactura: string, refDay: number): number | null {
  if (o.idType !== '02' && o.codigoPais === undefined) return 1111;
  if (o.idType === '07' && o.codigoPais !== 'ES') return 1126;
  if (o.codigoPais === 'ES' && o.idType !== '03' && o.idType !== '07') return 1126;
  if (o.idType === '07') {
    // "No censado": the ID must be a Spanish NIF, and a natural person's.
    if (!validNif(o.id)) return 1290;
    if (!validPersonNif(o.id)) return 1131;
  }
  if (o.idType === '02') {
    if (!WITH_RECIPIENT.has(tipoFactura)) return 1156;
    if (o.codigoPais !== undefined) {
      const prefix = o.codigoPais === 'GR' ? 'EL' : o.codigoPais;
      if (!o.id.startsWith(prefix) && !(o.codigoPais === 'GB' && o.id.startsWith('XI'))) return 1122;
    }
  }
  return nifIvaDateRule(o, refDay);
}

/** §3.1.3 blocks and types: which blocks go with which TipoFactura. */
function blockRule(r: AltaRecord, obligado: string, refDay: number): number | null {
  const t = r.tipoFactura;
  const rect = t.charCodeAt(0) === 82; // R
  if (rect && r.tipoRectificativa === undefined) return 1114;
  if (!rect && r.tipoRectificativa !== undefined) return 1115;
  if (r.conSustituidas && t !== 'F3') return 1116;
  if (r.conRectificadas && !rect) return 1117;
  if (r.tipoRectificativa === 'S' && !r.conImporteRectificacion) return 1118;
  if (r.tipoRectificativa !== 'S' && r.conImporteRectificacion) return 1119;
  if (r.simplificada7273 === 'S' && !WITH_RECIPIENT.has(t)) return 1183;
  if (r.sinIdentif61d === 'S' && !WITHOUT_RECIPIENT.has(t)) return 1185;
  if (r.cupon === 'S' && t !== 'R1' && t !== 'R5') return 1157;
  if (r.conTercero && r.emitidaPor === undefined) return 1155;
  if (r.conTercero && r.emitidaPor === 'D') return 1159;
  if (r.emitidaPor === 'T' && !r.conTercero) return 1186;
  if (r.emitidaPor === 'D' && !r.conDestinatarios) return 1158;
  if (r.terceroNif !== undefined && r.terceroNif === obligado) return 1188;
  if (r.terceroNif !== undefined && !validNif(r.terceroNif)) return 1123;
  if (r.terceroOtro?.idType === '07') return 1211;
  if (r.terceroOtro?.codigoPais === 'ES' && r.terceroOtro.idType !== '03') return 1232;
  if (WITH_RECIPIENT.has(t) && !r.conDestinatarios) return 1189;
  if (WITHOUT_RECIPIENT.has(t) && r.conDestinatarios) return 1190;
  if (r.terceroOtro !== undefined) {
    const code = nifIvaDateRule(r.terceroOtro, refDay);
    if (code !== null) return code;
  }
  for (const n of r.destinatarioNifs) if (!validNif(n)) return 1123;
  for (const o of r.destinatariosOtro) {
    const code = idOtroRule(o, t, refDay);
    if (code !== null) return code;
  }
  if (t === 'R3' && r.destinatariosOtro.some((o) => o.idType !== '07')) return 1191;
  if (t === 'R2' && r.destinatariosOtro.some((o) => o.idType !== '07' && o.idType !== '02')) return 1192;
  return null;
}

/** §3.1.3.1 and §3.1.3.7: FechaOperacion against today and the issue date. */
function dateRule(r: AltaRecord, todayDay: number, issueDay: number): number | null {
  if (r.fechaOperacion === undefined) {
    if (r.lines.some((l) => isIvaOrIgic(l) && l.claveRegimen === '14')) return 1147;
    return null;
  }
  const op = dayNumber(r.fechaOperacion);
  if (op === null) return 1100;
  if (op < todayDay - TWENTY_YEARS) return 1134;
  // Not after the end of next year (§3.1.3.1), whatever the regime.
  if (op > (Math.floor(todayDay / 10_000) + 1) * 10_000 + 1231) return 1125;
  const only14or15 = r.lines.every((l) => !isIvaOrIgic(l) || l.claveRegimen === '14' || l.claveRegimen === '15');
  if (op > todayDay && !only14or15) return 1173;
  if (op > issueDay && !only14or15) return 1146;
  if (r.lines.some((l) => isIvaOrIgic(l) && l.claveRegimen === '14') && op <= issueDay) return 1147;
  return null;
}

/** §15 for one line (rates in hundredths, amounts in cents); `refDay` is FechaOperacion or the issue date. */
function lineRule(r: AltaRecord, l: DesgloseLine, refDay: number): number | null {
  const ivaOrIgic = isIvaOrIgic(l);
  const iva = isIva(l);
  const clave = l.claveRegimen;
  const cal = l.calificacion;
  // §15.6: ClaveRegimen with IVA/IGIC (IPSI without it is admissible, 2009).
  if (ivaOrIgic && clave === undefined) return 1245;
  if (!ivaOrIgic && l.impuesto !== '02' && clave !== undefined) return 1260;
  if (clave === '21' && iva) return 1246;
  if (l.baseACoste !== undefined && clave !== '06' && l.impuesto !== '02' && l.impuesto !== '05') return 1257;
  if (ivaOrIgic) {
    if (clave === '02' && cal !== undefined) return 1286;
    if (clave === '03' && cal !== undefined && cal !== 'S1') return 1200;
    if (clave === '04' && cal !== undefined && cal !== 'S2') return 1201;
    if (clave === '06' && (r.tipoFactura === 'F2' || r.tipoFactura === 'F3' || r.tipoFactura === 'R5' || l.baseACoste === undefined)) return 1202;
    if (clave === '07' && (cal === 'S2' || cal === 'N1' || cal === 'N2' || l.exenta === 'E2' || l.exenta === 'E3' || l.exenta === 'E4' || l.exenta === 'E5')) return 1203;
    if (clave === '08' && cal !== 'N2') return 1252;
    if (clave === '20' && cal !== 'N2') return 1293;
    if (clave === '10' && (cal !== 'N1' || r.tipoFactura !== 'F1' || r.destinatariosOtro.length > 0)) return 1205;
    if (clave === '14') {
      if (r.tipoFactura !== 'F1' && !(r.tipoFactura.charCodeAt(0) === 82 && r.tipoFactura !== 'R5')) return 1148;
      if (r.destinatariosOtro.length > 0 || r.destinatarioNifs.some((n) => !'PQSV'.includes(n.charAt(0)))) return 1149;
    }
    if (clave === '01' && (l.exenta === 'E2' || l.exenta === 'E3')) return 1199;
  }
  if ((l.exenta === 'E7' || l.exenta === 'E8') && l.impuesto !== '03') return 1182;
  if (iva && l.exenta === 'E5' && r.destinatarioNifs.length > 0) return 1289;
  // §15.4 CalificacionOperacion.
  if (cal === 'S2' && !WITH_RECIPIENT.has(r.tipoFactura)) return 1197;
  const tipo = l.tipo === undefined ? undefined : cents(l.tipo);
  const cuota = l.cuota === undefined ? undefined : cents(l.cuota);
  if (cal === 'S2' && (tipo !== 0 || cuota !== 0)) return 1198;
  const hasTaxFields = l.tipo !== undefined || l.cuota !== undefined || l.tipoRecargo !== undefined || l.recargo !== undefined;
  if ((cal === 'N1' || cal === 'N2') && iva && hasTaxFields) return 1237;
  if (l.exenta !== undefined && hasTaxFields) return 1238;
  const conRecargo = l.tipoRecargo !== undefined || l.recargo !== undefined;
  if (conRecargo && cal !== 'S1') return 1281;
  if ((l.tipoRecargo === undefined) !== (l.recargo === undefined)) return 1284;
  // §15.7 CuotaRepercutida.
  if (cuota !== undefined && cuota !== 0 && cal !== 'S1') return 1207;
  if (cal !== 'S1') return null;
  if (l.baseACoste === undefined && (tipo === undefined || cuota === undefined)) return 1208;
  if (clave === '06' && (tipo === undefined || cuota === undefined)) return 1209;
  if (tipo === undefined || cuota === undefined) return null;
  const checkCuota = r.tipoRectificativa !== 'I' && r.tipoFactura !== 'R2' && r.tipoFactura !== 'R3';
  if (checkCuota) {
    const base = cents(l.baseACoste ?? l.base);
    if ((cuota < 0 && base > 0) || (cuota > 0 && base < 0)) return l.baseACoste === undefined ? 1143 : 1140;
    const diff = cuota * 10_000 - base * tipo;
    if (diff > CUOTA_TOLERANCE || diff < -CUOTA_TOLERANCE) return l.baseACoste === undefined ? 1142 : 1144;
  }
  // §15.1 TipoImpositivo and §15.3 TipoRecargoEquivalencia, IVA with S1.
  if (!iva) return null;
  if (!IVA_RATES.has(tipo)) {
    if (!IVA_RATES_TO_2012.has(tipo)) return 1124;
    if (refDay > END_OF_2012) return 1132;
    // A rate of then: its recargo is one of then or of now, unpaired (the pairs below are today's).
    if (l.tipoRecargo === undefined) return null;
    const rec = cents(l.tipoRecargo);
    return RECARGO_RATES.has(rec) || RECARGO_RATES_TO_2012.has(rec) ? null : 1127;
  }
  if (tipo === 500 && (refDay < 20220701 || refDay > 20240930)) return 1194;
  if (tipo === 200 && (refDay < 20241001 || refDay > 20241231)) return 1235;
  if (tipo === 750 && (refDay < 20241001 || refDay > 20241231)) return 1236;
  if (clave === '11' && tipo !== 2100) return 1206;
  if (l.tipoRecargo !== undefined) {
    const rec = cents(l.tipoRecargo);
    if (!RECARGO_RATES.has(rec)) return RECARGO_RATES_TO_2012.has(rec) && refDay > END_OF_2012 ? 1135 : 1127;
    const pair = recargoRule(tipo, rec, refDay);
    if (pair !== null) return pair;
  }
  return null;
}

/** §15.3: the recargo a rate allows (1160–1170). */
function recargoRule(tipo: number, rec: number, day: number): number | null {
  switch (tipo) {
    case 2100:
      return rec === 520 || rec === 175 ? null : 1162;
    case 1000:
      return rec === 140 ? null : 1163;
    case 750:
      return rec === 100 ? null : 1169;
    case 400:
      return rec === 50 ? null : 1164;
    case 200:
      return rec === 26 ? null : 1166;
    case 500:
      if (day <= 20221231) return rec === 50 ? null : 1167;
      if (day <= 20240930) return rec === 62 ? null : 1168;
      return rec === 50 || rec === 62 ? null : 1160;
    case 0:
      if (day >= 20230101 && day <= 20240930) return rec === 0 ? null : 1165;
      if (day >= 20241001) return rec === 26 ? null : 1170;
      return null;
    default:
      return null;
  }
}

/** §3.1.4.2–3: GeneradoPor and the Generador of a cancellation (1224–1231, 1123 on its NIF). */
function generadorRule(r: AnulacionRecord): number | null {
  const por = r.generadoPor;
  if ((por !== undefined) !== r.conGenerador) return 1224;
  if (por === undefined) return null;
  if (por !== 'E' && por !== 'D' && por !== 'T') return 1225;
  const nif = r.generadorNif;
  const otro = r.generadorOtro;
  if ((nif === undefined) === (otro === undefined)) return 1228;
  if (por === 'E' && nif === undefined) return 1227;
  if (nif !== undefined) return validNif(nif) ? null : 1123;
  if (otro === undefined) return null;
  if (otro.idType < '02' || otro.idType > '07') return 1231;
  if (por === 'T' && otro.idType === '07') return 1229;
  if (por === 'D' && otro.codigoPais === 'ES' && otro.idType !== '03' && otro.idType !== '07') return 1230;
  if (por === 'T' && otro.codigoPais === 'ES' && otro.idType !== '03') return 1231;
  return null;
}

/**
 * The business rules of a record the format checks have accepted (dates parsed, emisor = obligado).
 * `issueDay` is the record's FechaExpedicionFactura as YYYYMMDD.
 */
export function businessRules(r: ParsedRecord, obligado: string, todayDay: number, issueDay: number): RuleVerdict {
  const bad = forbiddenCharacter(r.numSerie);
  if (bad !== null) {
    const campo = r.tipo === 'alta' ? 'NumSerieFactura' : 'NumSerieFacturaAnulada';
    return rejectWith(1287, `El valor del campo ${campo} contiene carácteres no validos (<, >, ", ', =).`);
  }
  if (r.tipo !== 'alta') {
    const code = generadorRule(r);
    return code === null ? OK : rejectWith(code);
  }

  const refDay = (r.fechaOperacion === undefined ? null : dayNumber(r.fechaOperacion)) ?? issueDay;
  const block = blockRule(r, obligado, refDay);
  if (block !== null) return rejectWith(block);
  const date = dateRule(r, todayDay, issueDay);
  if (date !== null) return rejectWith(date);

  const importe = cents(r.importeTotal);
  const big = importe >= MACRODATO || importe <= -MACRODATO;
  if (r.macrodato === 'S' && !big) return rejectWith(1138);
  if (r.macrodato !== 'S' && big) return rejectWith(1139);

  let warnings: number[] | null = null;
  let baseCuota = 0;
  for (const l of r.lines) {
    const code = lineRule(r, l, refDay);
    if (code !== null) return rejectWith(code);
    if (l.impuesto === '02' && l.claveRegimen === undefined) (warnings ??= []).push(2009);
    baseCuota += cents(l.base) + cents(l.cuota);
  }
  // §15.8: a simplified invoice is at most 3.000,00 € (+10,00), unless agreed or art. 61.d.
  if (r.tipoFactura === 'F2' && !r.conAcuerdo && r.sinIdentif61d !== 'S' && baseCuota > F2_LIMIT) return rejectWith(1150);
  return warnings === null ? OK : { reject: null, warnings };
}
