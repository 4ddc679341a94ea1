// VeriFactu rules: subsanación (§3.1.3.2).
import type { Regla } from './vista';

export const REGLAS_SUBSANACION: readonly Regla[] = [
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
];
