// VeriFactu rules: rates (§15.1, §15.3), IVA and S1 only.
import {
  FIN_2012,
  IVA_2_Y_7_5_DESDE,
  IVA_2_Y_7_5_HASTA,
  IVA_5_DESDE,
  IVA_5_HASTA,
  RECARGO_HASTA_2012,
  TIPOS_IVA,
  TIPOS_IVA_HASTA_2012,
} from '../reglas-limites';
import { TIPOS_RECARGO, fmtTipo, recargosPermitidos, type Regla } from './vista';

export const REGLAS_TIPOS_IMPOSITIVOS: readonly Regla[] = [
  {
    codigo: '1124',
    gravedad: 'error',
    regla: 'Con IVA y S1 solo se permiten TipoImpositivo 0, 2, 4, 5, 7,5, 10 y 21',
    comprobar(v, report) {
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.calificacionOperacion !== 'S1' || l.tipo === undefined) continue;
        // 7, 8, 16 and 18 % existed up to 2012: 1132 judges them by date.
        if (!TIPOS_IVA.has(l.tipo) && !TIPOS_IVA_HASTA_2012.has(l.tipo)) {
          report(`${l.campo}.tipoImpositivo`, `IVA rate ${fmtTipo(l.tipo)} % does not exist (0, 2, 4, 5, 7.5, 10, 21)`);
        }
      }
    },
  },
  {
    codigo: '1132',
    gravedad: 'error',
    regla: 'TipoImpositivo 7, 8, 16 y 18 solo para FechaOperacion (o expedición) hasta el año 2012',
    comprobar(v, report) {
      if (v.fechaRef <= FIN_2012) return;
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.calificacionOperacion === 'S1' && l.tipo !== undefined && TIPOS_IVA_HASTA_2012.has(l.tipo)) {
          report(`${l.campo}.tipoImpositivo`, `IVA ${fmtTipo(l.tipo)} % applies only to operations up to 31-12-2012`);
        }
      }
    },
  },
  {
    codigo: '1194',
    gravedad: 'error',
    regla: 'TipoImpositivo 5 solo para FechaOperacion (o expedición) entre 1-7-2022 y 30-9-2024',
    comprobar(v, report) {
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.calificacionOperacion === 'S1' && l.tipo === 500 && (v.fechaRef < IVA_5_DESDE || v.fechaRef > IVA_5_HASTA)) {
          report(`${l.campo}.tipoImpositivo`, 'IVA 5 % applies only to operations from 01-07-2022 to 30-09-2024');
        }
      }
    },
  },
  {
    codigo: '1235/1236',
    gravedad: 'error',
    regla: 'TipoImpositivo 2 y 7,5 solo para FechaOperacion (o expedición) entre 1-10-2024 y 31-12-2024',
    comprobar(v, report) {
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.calificacionOperacion !== 'S1' || (l.tipo !== 200 && l.tipo !== 750)) continue;
        if (v.fechaRef < IVA_2_Y_7_5_DESDE || v.fechaRef > IVA_2_Y_7_5_HASTA) {
          report(`${l.campo}.tipoImpositivo`, `IVA ${fmtTipo(l.tipo)} % applies only to operations from 01-10-2024 to 31-12-2024`);
        }
      }
    },
  },
  {
    codigo: '1127',
    gravedad: 'error',
    regla: 'Con IVA y S1 solo se permiten TipoRecargoEquivalencia 0, 0,26, 0,5, 0,62, 1, 1,4, 1,75 y 5,2',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.calificacionOperacion !== 'S1' || l.tipoRecargo === undefined) continue;
        if (TIPOS_RECARGO.has(l.tipoRecargo)) continue;
        // 4 %, a recargo of up to 2012: after 2012 1135 says so; up to 2012 it goes with a rate of
        // then (7, 8, 16, 18 %), not with today's, whose pairs (1160–1170) it is not in.
        if (l.tipoRecargo === RECARGO_HASTA_2012 && (v.fechaRef > FIN_2012 || (l.tipo !== undefined && TIPOS_IVA_HASTA_2012.has(l.tipo)))) continue;
        report(`${l.campo}.tipoRecargoEquivalencia`, `recargo rate ${fmtTipo(l.tipoRecargo)} % does not exist`);
      }
    },
  },
  {
    codigo: '1135',
    gravedad: 'error',
    regla: 'TipoRecargoEquivalencia 4 solo para FechaOperacion (o expedición) hasta el año 2012',
    comprobar(v, report) {
      if (!v.conRecargo || v.fechaRef <= FIN_2012) return;
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.calificacionOperacion === 'S1' && l.tipoRecargo === RECARGO_HASTA_2012) {
          report(`${l.campo}.tipoRecargoEquivalencia`, `recargo rate ${fmtTipo(l.tipoRecargo)} % applies only to operations up to 31-12-2012`);
        }
      }
    },
  },
  {
    codigo: '1160–1170',
    gravedad: 'error',
    regla: 'TipoRecargoEquivalencia según TipoImpositivo: 21→5,2 ó 1,75; 10→1,4; 7,5→1; 5→0,5 (≤2022) ó 0,62 (2023–30-9-2024); 4→0,5; 2→0,26; 0→0 (2023–30-9-2024) ó 0,26 (desde 1-10-2024)',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.calificacionOperacion !== 'S1' || l.tipo === undefined || l.tipoRecargo === undefined) continue;
        const permitidos = recargosPermitidos(l.tipo, v.fechaRef);
        if (permitidos !== null && !permitidos.codes.includes(l.tipoRecargo)) {
          report(
            `${l.campo}.tipoRecargoEquivalencia`,
            `with tipoImpositivo ${fmtTipo(l.tipo)} the recargo must be ${permitidos.codes.map(fmtTipo).join(' or ')}`,
            permitidos.codigo,
          );
        }
      }
    },
  },
];
