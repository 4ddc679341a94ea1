// VeriFactu rules: accepted with errors (§3.1.3.16–17).
import { avisoCuotaTotal, avisoImporteTotal, avisoSimplificadaSobre400, LIMITE_F2, LIMITE_F2_RD } from '../reglas-limites';
import { SIN_CONTROL_IMPORTE_TOTAL, type Regla } from './vista';

export const REGLAS_AVISOS: readonly Regla[] = [
  {
    codigo: '2005',
    gravedad: 'aviso',
    regla: 'ImporteTotal = Σ(BaseImponibleOimporteNoSujeto + CuotaRepercutida + CuotaRecargoEquivalencia) ± 10,00 € (no aplica a claves 03, 05, 06, 08, 09)',
    comprobar(v, report) {
      for (const k of SIN_CONTROL_IMPORTE_TOTAL) if (v.claves.has(k)) return;
      const delta = v.importeTotal - v.sumaTotal;
      if (delta !== 0n) report('totales.importeTotal', avisoImporteTotal(v.f.totales.importeTotal, delta, v.sumaTotal));
    },
  },
  {
    codigo: '2006',
    gravedad: 'aviso',
    regla: 'CuotaTotal = Σ(CuotaRepercutida + CuotaRecargoEquivalencia) ± 10,00 €',
    comprobar(v, report) {
      const delta = v.cuotaTotal - v.sumaCuotas;
      if (delta !== 0n) report('totales.cuotaTotal', avisoCuotaTotal(v.f.totales.cuotaTotal, delta, v.sumaCuotas));
    },
  },
  {
    codigo: 'RD 1619/2012 art. 4',
    gravedad: 'aviso',
    regla: 'Factura simplificada: importe no superior a 400 € (IVA incluido), o 3.000 € en las actividades del art. 4.1.b)',
    comprobar(v, report) {
      if (v.tipo !== 'F2' || v.f.especial?.facturaSinIdentifDestinatarioArt61d === true) return;
      if (v.importeTotal > LIMITE_F2_RD && v.importeTotal <= LIMITE_F2) {
        report('totales.importeTotal', avisoSimplificadaSobre400(v.f.totales.importeTotal));
      }
    },
  },
];
