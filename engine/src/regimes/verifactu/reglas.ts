// AEAT business validations of a RegistroAlta that can be checked locally, before anything is
// chained or signed (docs/verifactu/Validaciones_Errores_Veri-Factu.txt v1.1.2, §3.1.3, and the
// codes of AEAT's errores.properties). Two outcomes:
//   - errors: AEAT would REJECT the record (codes 1xxx) → the API answers 400 naming `campo`;
//   - avisos: AEAT would ACCEPT it WITH ERRORS (codes 2xxx), or a legal limit AEAT does not check.
//
// Codes covered (errors):
//   dates        1112 1133 1152 1134 1125 1173 1146 1147
//   type/blocks  1114 1115 1183 1185 1157 1155 1159 1186 1158 1188 1211 1232 1189 1190 1148 1149
//   parties      1111 1122 1254 1255 1290 1131 1126 1156 1191 1192 1205
//   desglose     1245 1260 1246 1182 1199 1197 1198 1237 1238 1281 1284 1207 1208 1143 1142
//                1124 1132 1194 1235 1236 1127 1135 1160 1162 1163 1164 1165 1166 1167 1168 1169 1170
//                1206 1200 1201 1202 1203 1252 1286 (clave 02, §15.6.1)
// Added after v1.1.2, in their own files: 1287 (reglas-caracteres.ts), 1289 1293 and the aviso 2009
// (reglas-recientes.ts).
//   totals       1150
//   subsanación  1153 1161
// In src-shared/api/verifactu.ts (schema): 1116 1117 1118 1119 1195 1196 1104/1130 (ASCII
// NumSerieFactura), 1123 (a recipient's or tercero's NIF check character) and the XSD enumerations. Built into registro.ts: Macrodato (1138/1139).
// Avisos: 2005 2006 (totals off by more than 10,00 €); also, without an AEAT code, totals off
// within AEAT's tolerance and F2 above 400 € (RD 1619/2012 art. 4.1).
// Not checkable locally: census (1109 1110 1121 1154 2001), agreements (1128), chain and hash
// (2000 2002 2003 2007 2008), AEAT clock (2004), duplicates (3000–3002).
//
// The rule table is split by family under rules/ (fechas, tipo-y-bloques, clave-regimen, calificacion,
// tipos-impositivos, simplificadas, subsanacion, avisos; rules/vista.ts is the view they all read);
// this file composes them in table order and runs them.
//
// Amounts are exact bigint cents (centimos.ts), never a JS number: the schema fixes their format,
// so sums and the base × tipo check are integer arithmetic.
import type { FacturaVerifactu } from '../../../../src-shared/api/verifactu';
import { erroresCaracteres } from './reglas-caracteres';
import { validarAltaComun } from './reglas-comunes';
import { conErroresPrevios, conReglasRecientes } from './reglas-recientes';
import { REGLAS_FECHAS } from './rules/fechas';
import { REGLAS_TIPO_Y_BLOQUES } from './rules/tipo-y-bloques';
import { REGLAS_CLAVE_REGIMEN } from './rules/clave-regimen';
import { REGLAS_CALIFICACION } from './rules/calificacion';
import { REGLAS_TIPOS_IMPOSITIVOS } from './rules/tipos-impositivos';
import { REGLAS_SIMPLIFICADAS } from './rules/simplificadas';
import { REGLAS_SUBSANACION } from './rules/subsanacion';
import { REGLAS_AVISOS } from './rules/avisos';
import { vista, type ContextoReglas, type Regla, type Report } from './rules/vista';

import type { ResultadoReglas } from '../../issuing/reglas-resultado';

export type { ErrorRegla, ResultadoReglas } from '../../issuing/reglas-resultado';

export type { ContextoReglas } from './rules/vista';

// ---------------------------------------------------------------- the rules

// The families in table order: within a field the first failing rule wins (one error per field).
const REGLAS: readonly Regla[] = [
  ...REGLAS_FECHAS,
  ...REGLAS_TIPO_Y_BLOQUES,
  ...REGLAS_CLAVE_REGIMEN,
  ...REGLAS_CALIFICACION,
  ...REGLAS_TIPOS_IMPOSITIVOS,
  ...REGLAS_SIMPLIFICADAS,
  ...REGLAS_SUBSANACION,
  ...REGLAS_AVISOS,
];

/** The rules, for documentation and tests: code, severity and the rule in AEAT's words. */
export const REGLAS_VERIFACTU: ReadonlyArray<Pick<Regla, 'codigo' | 'gravedad' | 'regla'>> = REGLAS.map(
  ({ codigo, gravedad, regla }) => ({ codigo, gravedad, regla }),
);

/**
 * Runs every local AEAT validation of a RegistroAlta. One error per field (the first rule that
 * fails it, in table order); avisos are independent of errors. The everyday sale (reglas-comunes.ts)
 * is checked in one pass; anything else, and every invoice with an error, by the whole table.
 */
export function validarAlta(factura: FacturaVerifactu, ctx: ContextoReglas): ResultadoReglas {
  return validarAltaComun(factura, ctx) ?? validarAltaGeneral(factura, ctx);
}

/**
 * Every rule of the table, one by one: the path of any invoice the common-case path does not
 * take, and the reference it is proven equal to (test/engine/verifactu/reglas-comunes-diferencial.test.ts).
 */
export function validarAltaGeneral(factura: FacturaVerifactu, ctx: ContextoReglas): ResultadoReglas {
  const v = vista(factura, ctx);
  const run: Run = { errors: [], avisos: [], regla: REGLAS[0] as Regla };
  const report = reporter(run);
  for (const r of REGLAS) {
    run.regla = r;
    r.comprobar(v, report);
  }
  // The codes added after v1.1.2 live in their own files (reglas-caracteres.ts, reglas-recientes.ts).
  return conErroresPrevios(erroresCaracteres(factura), conReglasRecientes(factura, { errors: run.errors, avisos: run.avisos }));
}

interface Run extends ResultadoReglas {
  /** The rule being checked. */
  regla: Regla;
}

/**
 * One report function per run (hot path), reading the rule being checked. Returned anonymous from
 * a factory: a closure bound to a name inside validarAlta would be renamed (Object.defineProperty)
 * on every call by the keepNames wrapper of tsx, which runs the engine.
 */
function reporter(run: Run): Report {
  return function (campo, detalle, codigo = run.regla.codigo) {
    if (run.regla.gravedad === 'aviso') {
      // Aviso texts name their AEAT code (or legal reference) themselves.
      run.avisos.push(campo + ': ' + detalle);
      return;
    }
    // One error per field: errors are few, a scan beats a Set built on every run.
    for (const e of run.errors) if (e.campo === campo) return;
    run.errors.push({ campo, codigo, message: `${detalle} (AEAT ${codigo})` });
  };
}
