// VeriFactu rules: dates (§3.1.3.1, §3.1.3.7).
import { VEINTE_ANOS, VIGOR_VERIFACTU } from '../reglas-limites';
import { fmtFecha, type Regla } from './vista';

export const REGLAS_FECHAS: readonly Regla[] = [
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
      if (v.expedicion < v.hoy - VEINTE_ANOS) report('cabecera.fechaExpedicion', 'fechaExpedicion is more than 20 years ago');
    },
  },
  {
    codigo: '1134',
    gravedad: 'error',
    regla: 'La FechaOperacion no debe ser inferior a la fecha actual menos veinte años',
    comprobar(v, report) {
      if (v.operacion !== undefined && v.operacion < v.hoy - VEINTE_ANOS) {
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
];
