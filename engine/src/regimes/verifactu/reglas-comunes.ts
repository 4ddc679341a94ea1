// The AEAT rules of the everyday sale, in one pass: a ticket (F2) or an ordinary invoice to a
// recipient identified by NIF (F1), no special regime block, no rectification, no FechaOperacion,
// every line IVA, ClaveRegimen 01, S1 with its rate and cuota and no recargo. For such an invoice
// only these rules of reglas.ts can fire: 1112 1152 1133 (dates), 1189 1190 (destinatario), 1143
// 1142 1124 1194 1235/1236 (lines), 1150 (F2 limit), 1153 1161 (rechazoPrevio), and the avisos
// 2005 2006 and RD 1619/2012 art. 4; every other rule of the table needs a field, key or type this
// shape does not have (1132: a rate outside TIPOS_IVA; 1135 1170: recargo; 1254/1255 1290/1131:
// IDOtro; 1123: the recipient's NIF check character is the schema's, before any rule). The path only ever answers "no errors": on any other shape, and as soon as
// one of those rules would fail, it returns undefined and the whole table runs, which gives the
// errors in its order and wording. Proven equal to the table on generated invoices on both sides
// of every condition below: test/engine/verifactu/reglas-comunes-diferencial.test.ts.
import type { FacturaVerifactu } from '../../../../src-shared/api/verifactu';
import { centesimas, centimos, excesoCuota } from './centimos';
import { caracterNoValido } from './reglas-caracteres';
import {
  avisoCuotaTotal,
  avisoImporteTotal,
  avisoSimplificadaSobre400,
  IVA_2_Y_7_5_DESDE,
  IVA_2_Y_7_5_HASTA,
  IVA_5_DESDE,
  IVA_5_HASTA,
  LIMITE_F2,
  LIMITE_F2_AEAT,
  LIMITE_F2_RD,
  TIPOS_IVA,
  VEINTE_ANOS,
  VIGOR_VERIFACTU,
  ymd,
} from './reglas-limites';
import type { ContextoReglas, ResultadoReglas } from './reglas';

/** IVA rate (hundredths) AEAT accepts with S1 on an operation of `fecha` (1124, 1194, 1235/1236). */
function tipoIvaVigente(tipo: number, fecha: number): boolean {
  if (!TIPOS_IVA.has(tipo)) return false;
  if (tipo === 500) return fecha >= IVA_5_DESDE && fecha <= IVA_5_HASTA;
  if (tipo === 200 || tipo === 750) return fecha >= IVA_2_Y_7_5_DESDE && fecha <= IVA_2_Y_7_5_HASTA;
  return true;
}

/**
 * The rules' result for an everyday sale that passes every rule (avisos included), or undefined:
 * another shape, or an error to report (then run validarAltaGeneral).
 */
export function validarAltaComun(f: FacturaVerifactu, ctx: ContextoReglas): ResultadoReglas | undefined {
  const cab = f.cabecera;
  const simplificada = cab.tipoFactura === 'F2';
  if (!simplificada && cab.tipoFactura !== 'F1') return undefined;
  if (f.especial !== undefined || f.rectificativa !== undefined || cab.fechaOperacion !== undefined) return undefined;
  if (f.facturasRectificadas !== undefined || f.facturasSustituidas !== undefined) return undefined;
  // 1287 (reglas-caracteres.ts)
  if (caracterNoValido(cab.numero) !== null || (cab.serie !== undefined && caracterNoValido(cab.serie) !== null)) return undefined;
  // 1189 / 1190; a recipient by IDOtro brings its own rules (1111 1122 1126 1156).
  const dest = f.destinatario;
  if (simplificada ? dest !== undefined : dest === undefined || dest.idOtro !== undefined) return undefined;
  // 1153 / 1161
  const rechazo = ctx.rechazoPrevio;
  if ((rechazo === 'S' || rechazo === 'X') && ctx.subsanacion !== true) return undefined;
  // 1112 / 1152 / 1133. Without FechaOperacion the rates' reference date is the expedition date.
  const hoy = ymd(ctx.hoy);
  const expedicion = ymd(cab.fechaExpedicion);
  if (expedicion > hoy || expedicion < VIGOR_VERIFACTU || expedicion < hoy - VEINTE_ANOS) return undefined;

  let bases = 0n;
  let cuotas = 0n;
  const detalle = f.detalleDesglose;
  for (let i = 0; i < detalle.length; i++) {
    const d = detalle[i];
    if (d === undefined || d.claveRegimen !== '01' || d.calificacionOperacion !== 'S1') return undefined;
    if (d.impuesto !== undefined && d.impuesto !== '01') return undefined;
    if (d.operacionExenta !== undefined || d.tipoRecargoEquivalencia !== undefined || d.cuotaRecargoEquivalencia !== undefined) return undefined;
    // 1208: S1 needs both.
    if (d.tipoImpositivo === undefined || d.cuotaRepercutida === undefined) return undefined;
    const tipo = centesimas(d.tipoImpositivo);
    if (!tipoIvaVigente(tipo, expedicion)) return undefined;
    const base = centimos(d.baseImponible);
    const cuota = centimos(d.cuotaRepercutida);
    // 1143 (zero has no sign) and 1142.
    if ((cuota < 0n && base > 0n) || (cuota > 0n && base < 0n) || excesoCuota(cuota, base, tipo)) return undefined;
    bases += base;
    cuotas += cuota;
  }
  // Without recargo, Σ(base + cuota) is both the F2 limit's sum and ImporteTotal's.
  const suma = bases + cuotas;
  if (simplificada && suma > LIMITE_F2_AEAT) return undefined; // 1150

  // Avisos in the table's order: 2005, 2006, RD 1619/2012 art. 4.
  const avisos: string[] = [];
  const t = f.totales;
  const importeTotal = centimos(t.importeTotal);
  if (importeTotal !== suma) avisos.push('totales.importeTotal: ' + avisoImporteTotal(t.importeTotal, importeTotal - suma, suma));
  const cuotaTotal = centimos(t.cuotaTotal);
  if (cuotaTotal !== cuotas) avisos.push('totales.cuotaTotal: ' + avisoCuotaTotal(t.cuotaTotal, cuotaTotal - cuotas, cuotas));
  if (simplificada && importeTotal > LIMITE_F2_RD && importeTotal <= LIMITE_F2) {
    avisos.push('totales.importeTotal: ' + avisoSimplificadaSobre400(t.importeTotal));
  }
  return { errors: [], avisos };
}
