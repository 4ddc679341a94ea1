// AEAT rules published after "Validaciones y errores" v1.1.2, which reglas.ts follows: the codes
// the AEAT's errores.properties has added since (assets/reference/verifactu/validaciones/) and the
// E5 rule of v1.1.5–1.1.7 (§15.5.1). They need an exemption, a regime key or a tax the everyday
// sale (reglas-comunes.ts) never has, so they run only where the whole table runs.
//   1289  IVA and OperacionExenta E5 (intra-EU delivery): the recipient only by IDOtro
//   1293  ClaveRegimen 20: CalificacionOperacion N2, always present
//   2009  (accepted with errors) IPSI (impuesto 02) without ClaveRegimen
import type { FacturaVerifactu } from '../../../../src-shared/api/verifactu';
import type { ErrorRegla, ResultadoReglas } from './reglas';

function errores(f: FacturaVerifactu): ErrorRegla[] {
  const out: ErrorRegla[] = [];
  const lineas = f.detalleDesglose;
  for (let i = 0; i < lineas.length; i++) {
    const d = lineas[i];
    if (d === undefined) continue;
    const iva = d.impuesto === undefined || d.impuesto === '01';
    if (iva && d.operacionExenta === 'E5' && f.destinatario?.nif !== undefined) {
      out.push({
        campo: `detalleDesglose[${i}].operacionExenta`,
        codigo: '1289',
        message: 'operacionExenta E5 (intra-EU delivery) needs the recipient identified by idOtro (its EU VAT number), not by a Spanish NIF (AEAT 1289)',
      });
    }
    const ivaOIgic = iva || d.impuesto === '03';
    if (ivaOIgic && d.claveRegimen === '20' && d.calificacionOperacion !== 'N2') {
      out.push({
        campo: `detalleDesglose[${i}].calificacionOperacion`,
        codigo: '1293',
        message: 'claveRegimen 20 needs calificacionOperacion N2 (AEAT 1293)',
      });
    }
  }
  return out;
}

function avisos(f: FacturaVerifactu): string[] {
  const out: string[] = [];
  f.detalleDesglose.forEach((d, i) => {
    if (d.impuesto === '02' && d.claveRegimen === undefined) {
      out.push(
        `detalleDesglose[${i}].claveRegimen: AEAT 2009: IPSI (impuesto 02) without claveRegimen; AEAT accepts the record with errors and it must be corrected (subsanar)`,
      );
    }
  });
  return out;
}

/** `result` (the table's) with these rules added: one error per field, as the table reports. */
export function conReglasRecientes(f: FacturaVerifactu, result: ResultadoReglas): ResultadoReglas {
  const nuevos = errores(f).filter((e) => !result.errors.some((x) => x.campo === e.campo));
  const nuevosAvisos = avisos(f);
  if (nuevos.length === 0 && nuevosAvisos.length === 0) return result;
  return { errors: [...result.errors, ...nuevos], avisos: [...result.avisos, ...nuevosAvisos] };
}

/** `result` with the 1287 errors of reglas-caracteres.ts added first (they concern the invoice's identity). */
export function conErroresPrevios(extra: ErrorRegla[], result: ResultadoReglas): ResultadoReglas {
  if (extra.length === 0) return result;
  return { errors: [...extra, ...result.errors.filter((e) => !extra.some((x) => x.campo === e.campo))], avisos: result.avisos };
}
