// VeriFactu rules: ClaveRegimen (§15.6).
import type { Regla } from './vista';

export const REGLAS_CLAVE_REGIMEN: readonly Regla[] = [
  {
    codigo: '1245',
    gravedad: 'error',
    regla: 'Si Impuesto está vacío o es 01 o 03, ClaveRegimen debe estar cumplimentado',
    comprobar(v, report) {
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        if (l.d.claveRegimen === undefined) report(`${l.campo}.claveRegimen`, 'claveRegimen is required for IVA and IGIC');
      }
    },
  },
  {
    codigo: '1260',
    gravedad: 'error',
    regla: 'ClaveRegimen solo debe estar cumplimentado si Impuesto está vacío o es 01 o 03',
    comprobar(v, report) {
      if (!v.conOtroImpuesto) return;
      for (const l of v.lineas) {
        // IPSI (02) may carry one since errores.properties added 2009 (it warns when IPSI has none).
        if (!l.ivaOIgic && l.d.impuesto !== '02' && l.d.claveRegimen !== undefined) {
          report(`${l.campo}.claveRegimen`, `claveRegimen is not allowed for impuesto ${l.d.impuesto ?? ''}`);
        }
      }
    },
  },
  {
    codigo: '1246',
    gravedad: 'error',
    regla: 'ClaveRegimen 21 (régimen simplificado) solo existe para IGIC (lista L8B)',
    comprobar(v, report) {
      if (!v.claves.has('21')) return;
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.claveRegimen === '21') report(`${l.campo}.claveRegimen`, 'claveRegimen 21 is only valid for IGIC (impuesto 03)');
      }
    },
  },
  {
    codigo: '1286',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 02 (exportación), solo puede estar cumplimentado OperacionExenta',
    comprobar(v, report) {
      if (!v.claves.has('02')) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        if (l.d.claveRegimen === '02' && l.d.calificacionOperacion !== undefined) {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 02 (export) needs operacionExenta, not calificacionOperacion');
        }
      }
    },
  },
  {
    codigo: '1200',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 03, CalificacionOperacion sólo puede ser S1',
    comprobar(v, report) {
      if (!v.claves.has('03')) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        const c = l.d.calificacionOperacion;
        if (l.d.claveRegimen === '03' && c !== undefined && c !== 'S1') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 03 (REBU) only allows S1');
        }
      }
    },
  },
  {
    codigo: '1201',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 04, CalificacionOperacion sólo puede ser S2 o bien OperacionExenta',
    comprobar(v, report) {
      if (!v.claves.has('04')) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        const c = l.d.calificacionOperacion;
        if (l.d.claveRegimen === '04' && c !== undefined && c !== 'S2') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 04 (investment gold) only allows S2 or operacionExenta');
        }
      }
    },
  },
  {
    codigo: '1202',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 06, TipoFactura no puede ser F2, F3, R5 y BaseImponibleACoste debe estar cumplimentado',
    comprobar(v, report) {
      if (!v.claves.has('06')) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        if (l.d.claveRegimen !== '06') continue;
        if (v.tipo === 'F2' || v.tipo === 'F3' || v.tipo === 'R5') {
          report(`${l.campo}.claveRegimen`, `claveRegimen 06 is not allowed for tipoFactura ${v.tipo}`);
        } else {
          // The contract carries no BaseImponibleACoste, which AEAT requires with this key.
          report(`${l.campo}.claveRegimen`, 'claveRegimen 06 needs BaseImponibleACoste, which this API does not carry');
        }
      }
    },
  },
  {
    codigo: '1203',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 07, OperacionExenta no puede ser E2–E5 y CalificacionOperacion no puede ser S2, N1, N2',
    comprobar(v, report) {
      if (!v.claves.has('07')) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        if (l.d.claveRegimen !== '07') continue;
        const c = l.d.calificacionOperacion;
        const e = l.d.operacionExenta;
        if (c !== undefined && c !== 'S1') report(`${l.campo}.calificacionOperacion`, `claveRegimen 07 (cash basis) does not allow ${c}`);
        if (e === 'E2' || e === 'E3' || e === 'E4' || e === 'E5') {
          report(`${l.campo}.operacionExenta`, `claveRegimen 07 (cash basis) does not allow ${e}`);
        }
      }
    },
  },
  {
    codigo: '1252',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 08, CalificacionOperacion tiene que ser N2 e ir siempre informado',
    comprobar(v, report) {
      if (!v.claves.has('08')) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        if (l.d.claveRegimen === '08' && l.d.calificacionOperacion !== 'N2') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 08 needs calificacionOperacion N2');
        }
      }
    },
  },
  {
    codigo: '1205',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 10, CalificacionOperacion N1, TipoFactura F1 y destinatarios identificados por NIF',
    comprobar(v, report) {
      if (!v.claves.has('10')) return;
      for (const l of v.lineas) {
        if (!l.ivaOIgic) continue;
        if (l.d.claveRegimen !== '10') continue;
        if (l.d.calificacionOperacion !== 'N1') {
          report(`${l.campo}.calificacionOperacion`, 'claveRegimen 10 needs calificacionOperacion N1');
        } else if (v.tipo !== 'F1') {
          report('cabecera.tipoFactura', 'claveRegimen 10 needs tipoFactura F1');
        } else if (v.f.destinatario !== undefined && v.f.destinatario.nif === undefined) {
          report('destinatario.nif', 'claveRegimen 10 needs a destinatario identified by NIF');
        }
      }
    },
  },
  {
    codigo: '1206',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 11, TipoImpositivo ha de ser 21%',
    comprobar(v, report) {
      if (!v.claves.has('11')) return;
      for (const l of v.lineas) {
        if (!l.iva) continue;
        if (l.d.claveRegimen === '11' && l.tipo !== undefined && l.tipo !== 2100) {
          report(`${l.campo}.tipoImpositivo`, 'claveRegimen 11 (business premises rental) needs tipoImpositivo 21');
        }
      }
    },
  },
  {
    codigo: '1148',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 14, TipoFactura debe ser F1, R1, R2, R3 o R4',
    comprobar(v, report) {
      if (!v.claves.has('14')) return;
      const ok = v.tipo === 'F1' || v.tipo === 'R1' || v.tipo === 'R2' || v.tipo === 'R3' || v.tipo === 'R4';
      if (!ok && v.lineas.some((l) => l.ivaOIgic && l.d.claveRegimen === '14')) {
        report('cabecera.tipoFactura', `claveRegimen 14 is not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1149',
    gravedad: 'error',
    regla: 'Si ClaveRegimen es 14, los destinatarios se identifican por NIF que comienza por P, Q, S o V',
    comprobar(v, report) {
      if (!v.claves.has('14')) return;
      if (!v.lineas.some((l) => l.ivaOIgic && l.d.claveRegimen === '14')) return;
      const d = v.f.destinatario;
      if (d !== undefined && (d.nif === undefined || !'PQSV'.includes(d.nif.charAt(0)))) {
        report('destinatario.nif', 'claveRegimen 14 needs a public-administration NIF (starting with P, Q, S or V)');
      }
    },
  },
];
