// VeriFactu rules: simplified invoices (§15.8).
import { textoCentimos } from '../centimos';
import { LIMITE_F2_AEAT } from '../reglas-limites';
import type { Regla } from './vista';

export const REGLAS_SIMPLIFICADAS: readonly Regla[] = [
  {
    codigo: '1150',
    gravedad: 'error',
    regla: 'F2: Σ(BaseImponibleOimporteNoSujeto + CuotaRepercutida) no superior a 3.000,00 € (+10,00), salvo acuerdo de facturación o Art61d',
    comprobar(v, report) {
      if (v.tipo !== 'F2') return;
      const e = v.f.especial;
      if (e?.numRegistroAcuerdoFacturacion !== undefined || e?.facturaSinIdentifDestinatarioArt61d === true) return;
      const suma = v.sumaBaseCuota;
      if (suma > LIMITE_F2_AEAT) {
        report('totales.importeTotal', `a simplified invoice (F2) cannot exceed 3000.00; its lines add up to ${textoCentimos(suma)}`);
      }
    },
  },
];
