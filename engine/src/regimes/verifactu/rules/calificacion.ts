// VeriFactu rules: CalificacionOperacion / OperacionExenta (§15.4, §15.5).
import { excesoCuota, textoCuotaEsperada } from '../centimos';
import { CON_DESTINATARIO, CAMPOS_CUOTA, cuotaSeValida, type Regla } from './vista';

export const REGLAS_CALIFICACION: readonly Regla[] = [
  {
    codigo: '1182',
    gravedad: 'error',
    regla: 'Con IVA, OperacionExenta debe estar en la lista L10 (E1–E6); E7 y E8 solo con IGIC',
    comprobar(v, report) {
      if (!v.conExenta) return;
      for (const l of v.lineas) {
        const e = l.d.operacionExenta;
        if ((e === 'E7' || e === 'E8') && l.d.impuesto !== '03') {
          report(`${l.campo}.operacionExenta`, `${e} is only valid for IGIC (impuesto 03)`);
        }
      }
    },
  },
  {
    codigo: '1199',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 01 no pueden marcarse las OperacionExenta E2, E3',
    comprobar(v, report) {
      if (!v.conExenta) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        const e = l.d.operacionExenta;
        if (l.d.claveRegimen === '01' && (e === 'E2' || e === 'E3')) {
          report(`${l.campo}.operacionExenta`, `${e} (exports) is not allowed with claveRegimen 01`);
        }
      }
    },
  },
  {
    codigo: '1197',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es S2, TipoFactura solo puede ser F1, F3, R1, R2, R3 y R4',
    comprobar(v, report) {
      if (!v.conS2) return;
      for (const l of v.lineas) {
        if (l.d.calificacionOperacion === 'S2' && !CON_DESTINATARIO.has(v.tipo)) {
          report(`${l.campo}.calificacionOperacion`, `S2 (reverse charge) is not allowed for tipoFactura ${v.tipo}`);
        }
      }
    },
  },
  {
    codigo: '1198',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es S2, TipoImpositivo y CuotaRepercutida deberán tener valor 0',
    comprobar(v, report) {
      if (!v.conS2) return;
      for (const l of v.lineas) {
        if (l.d.calificacionOperacion !== 'S2') continue;
        if (l.tipo !== 0) report(`${l.campo}.tipoImpositivo`, 'S2 (reverse charge) needs tipoImpositivo "0"');
        if (l.cuota !== 0n) {
          report(`${l.campo}.cuotaRepercutida`, 'S2 (reverse charge) needs cuotaRepercutida "0"');
        }
      }
    },
  },
  {
    codigo: '1237',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es N1/N2 e Impuesto IVA, no se informan TipoImpositivo, CuotaRepercutida, TipoRecargoEquivalencia ni CuotaRecargoEquivalencia',
    comprobar(v, report) {
      if (!v.conNoSujeta) return;
      for (const l of v.lineas) {
        if (!l.iva) continue;
        const c = l.d.calificacionOperacion;
        if (c !== 'N1' && c !== 'N2') continue;
        for (const k of CAMPOS_CUOTA) {
          if (l.d[k] !== undefined) report(`${l.campo}.${k}`, `${k} must be absent on a ${c} (not subject) line`);
        }
      }
    },
  },
  {
    codigo: '1238',
    gravedad: 'error',
    regla: 'Si la operación es exenta no se puede informar TipoImpositivo, CuotaRepercutida, TipoRecargoEquivalencia ni CuotaRecargoEquivalencia',
    comprobar(v, report) {
      if (!v.conExenta) return;
      for (const l of v.lineas) {
        if (l.d.operacionExenta === undefined) continue;
        for (const k of CAMPOS_CUOTA) {
          if (l.d[k] !== undefined) report(`${l.campo}.${k}`, `${k} must be absent on an exempt (${l.d.operacionExenta}) line`);
        }
      }
    },
  },
  {
    codigo: '1281',
    gravedad: 'error',
    regla: 'Solo se puede cumplimentar TipoRecargoEquivalencia y CuotaRecargoEquivalencia cuando CalificacionOperacion es S1',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      for (const l of v.lineas) {
        const c = l.d.calificacionOperacion;
        if (c === undefined || c === 'S1') continue;
        if (l.d.tipoRecargoEquivalencia !== undefined) report(`${l.campo}.tipoRecargoEquivalencia`, `recargo de equivalencia needs S1, not ${c}`);
        if (l.d.cuotaRecargoEquivalencia !== undefined) report(`${l.campo}.cuotaRecargoEquivalencia`, `recargo de equivalencia needs S1, not ${c}`);
      }
    },
  },
  {
    codigo: '1284',
    gravedad: 'error',
    regla: 'Si se informa TipoRecargoEquivalencia también se debe informar CuotaRecargoEquivalencia y viceversa',
    comprobar(v, report) {
      if (!v.conRecargo) return;
      for (const l of v.lineas) {
        if (l.d.tipoRecargoEquivalencia !== undefined && l.d.cuotaRecargoEquivalencia === undefined) {
          report(`${l.campo}.cuotaRecargoEquivalencia`, 'tipoRecargoEquivalencia needs cuotaRecargoEquivalencia');
        } else if (l.d.tipoRecargoEquivalencia === undefined && l.d.cuotaRecargoEquivalencia !== undefined) {
          report(`${l.campo}.tipoRecargoEquivalencia`, 'cuotaRecargoEquivalencia needs tipoRecargoEquivalencia');
        }
      }
    },
  },
  {
    codigo: '1207',
    gravedad: 'error',
    regla: 'La CuotaRepercutida solo podrá ser distinta de 0 si CalificacionOperacion es S1',
    comprobar(v, report) {
      for (const l of v.lineas) {
        if (l.d.calificacionOperacion !== 'S1' && l.cuota !== undefined && l.cuota !== 0n) {
          report(`${l.campo}.cuotaRepercutida`, 'a non-zero cuotaRepercutida needs calificacionOperacion S1');
        }
      }
    },
  },
  {
    codigo: '1208',
    gravedad: 'error',
    regla: 'Si CalificacionOperacion es S1, TipoImpositivo y CuotaRepercutida son obligatorios',
    comprobar(v, report) {
      for (const l of v.lineas) {
        if (l.d.calificacionOperacion !== 'S1') continue;
        if (l.d.tipoImpositivo === undefined) report(`${l.campo}.tipoImpositivo`, 'S1 needs tipoImpositivo');
        if (l.d.cuotaRepercutida === undefined) report(`${l.campo}.cuotaRepercutida`, 'S1 needs cuotaRepercutida');
      }
    },
  },
  {
    codigo: '1143',
    gravedad: 'error',
    regla: 'CuotaRepercutida y BaseImponibleOimporteNoSujeto deben tener el mismo signo (salvo TipoRectificativa I, R2, R3)',
    comprobar(v, report) {
      if (!cuotaSeValida(v)) return;
      for (const l of v.lineas) {
        if (l.d.calificacionOperacion !== 'S1' || l.cuota === undefined) continue;
        // Zero has no sign here: a zero cuota or base never conflicts.
        if ((l.cuota < 0n && l.base > 0n) || (l.cuota > 0n && l.base < 0n)) {
          report(`${l.campo}.cuotaRepercutida`, 'cuotaRepercutida and baseImponible must have the same sign');
        }
      }
    },
  },
  {
    codigo: '1142',
    gravedad: 'error',
    regla: 'CuotaRepercutida = BaseImponibleOimporteNoSujeto × TipoImpositivo / 100 ± 10,00 € (salvo TipoRectificativa I, R2, R3)',
    comprobar(v, report) {
      if (!cuotaSeValida(v)) return;
      for (const l of v.lineas) {
        if (l.d.calificacionOperacion !== 'S1' || l.cuota === undefined || l.tipo === undefined) continue;
        if (excesoCuota(l.cuota, l.base, l.tipo)) {
          report(
            `${l.campo}.cuotaRepercutida`,
            `cuotaRepercutida ${l.d.cuotaRepercutida ?? ''} differs by more than 10.00 from base × tipo = ${textoCuotaEsperada(l.base, l.tipo)}`,
          );
        }
      }
    },
  },
];
