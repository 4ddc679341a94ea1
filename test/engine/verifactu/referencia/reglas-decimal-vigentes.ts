// The decimal.js reference (reglas-decimal.ts, frozen) plus the AEAT codes added after the rewrite it
// checks — errores.properties codes newer than v1.1.2, in reglas-caracteres.ts and reglas-recientes.ts,
// tested on their own (reglas-recientes.test.ts) — joined to it as validarAltaGeneral joins them.
import type { FacturaVerifactu } from '../../../../src-shared/api/verifactu';
import type { ContextoReglas, ResultadoReglas } from '../../../../engine/src/regimes/verifactu/reglas';
import { erroresCaracteres } from '../../../../engine/src/regimes/verifactu/reglas-caracteres';
import { conErroresPrevios, conReglasRecientes } from '../../../../engine/src/regimes/verifactu/reglas-recientes';
import { validarAltaDecimal as tablaDecimal } from './reglas-decimal';

export function validarAltaDecimal(f: FacturaVerifactu, ctx: ContextoReglas): ResultadoReglas {
  return conErroresPrevios(erroresCaracteres(f), conReglasRecientes(f, tablaDecimal(f, ctx)));
}
