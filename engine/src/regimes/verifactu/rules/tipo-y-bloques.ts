// VeriFactu rules: invoice type and blocks (§3.1.3.3–14).
import { validateNif } from '../../../../../src-shared/nif';
import { GB_HASTA, XI_DESDE } from '../reglas-limites';
import { CON_DESTINATARIO, SIN_DESTINATARIO, isRectificativa, comprobarIdOtro, partes, type Regla } from './vista';

export const REGLAS_TIPO_Y_BLOQUES: readonly Regla[] = [
  {
    codigo: '1114',
    gravedad: 'error',
    regla: 'TipoRectificativa es obligatorio si TipoFactura es R1, R2, R3, R4 o R5',
    comprobar(v, report) {
      if (isRectificativa(v.tipo) && v.f.rectificativa === undefined) {
        report('rectificativa.tipo', `tipoFactura ${v.tipo} needs rectificativa.tipo (S or I)`);
      }
    },
  },
  {
    codigo: '1115',
    gravedad: 'error',
    regla: 'TipoRectificativa solo podrá incluirse si TipoFactura es R1–R5',
    comprobar(v, report) {
      if (!isRectificativa(v.tipo) && v.f.rectificativa !== undefined) {
        report('rectificativa', `rectificativa is only allowed when tipoFactura is R1–R5, not ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1183',
    gravedad: 'error',
    regla: 'FacturaSimplificadaArt7273 solo se podrá rellenar con S si TipoFactura es F1, F3, R1, R2, R3 o R4',
    comprobar(v, report) {
      if (v.f.especial?.facturaSimplificadaArt7273 === true && !CON_DESTINATARIO.has(v.tipo)) {
        report('especial.facturaSimplificadaArt7273', `not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1185',
    gravedad: 'error',
    regla: 'FacturaSinIdentifDestinatarioArt61d solo se podrá rellenar con S si TipoFactura es F2 o R5',
    comprobar(v, report) {
      if (v.f.especial?.facturaSinIdentifDestinatarioArt61d === true && !SIN_DESTINATARIO.has(v.tipo)) {
        report('especial.facturaSinIdentifDestinatarioArt61d', `not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1157',
    gravedad: 'error',
    regla: 'Cupon solo se podrá rellenar con S si TipoFactura es R1 o R5',
    comprobar(v, report) {
      if (v.f.especial?.cupon === true && v.tipo !== 'R1' && v.tipo !== 'R5') {
        report('especial.cupon', `cupon is only allowed for tipoFactura R1 or R5, not ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1155',
    gravedad: 'error',
    regla: 'Se está informando el bloque Tercero sin estar informado EmitidaPorTerceroODestinatario',
    comprobar(v, report) {
      const e = v.f.especial;
      if (e?.tercero !== undefined && e.emitidaPor === undefined) {
        report('especial.tercero', 'tercero needs especial.emitidaPor = "T"');
      }
    },
  },
  {
    codigo: '1159',
    gravedad: 'error',
    regla: 'Se está informando el bloque Tercero cuando se indica que se va a informar de Destinatario',
    comprobar(v, report) {
      const e = v.f.especial;
      if (e?.tercero !== undefined && e.emitidaPor === 'D') {
        report('especial.tercero', 'tercero is not allowed when emitidaPor is "D"');
      }
    },
  },
  {
    codigo: '1186',
    gravedad: 'error',
    regla: 'Si EmitidaPorTerceroODestinatario es T, el bloque Tercero es obligatorio',
    comprobar(v, report) {
      const e = v.f.especial;
      if (e?.emitidaPor === 'T' && e.tercero === undefined) report('especial.tercero', 'emitidaPor "T" needs especial.tercero');
    },
  },
  {
    codigo: '1158',
    gravedad: 'error',
    regla: 'Si EmitidaPorTerceroODestinatario es D, el bloque Destinatarios es obligatorio',
    comprobar(v, report) {
      if (v.f.especial?.emitidaPor === 'D' && v.f.destinatario === undefined) {
        report('destinatario', 'emitidaPor "D" needs a destinatario');
      }
    },
  },
  {
    codigo: '1188',
    gravedad: 'error',
    regla: 'El NIF del bloque Tercero debe ser diferente al NIF del emisor',
    comprobar(v, report) {
      const t = v.f.especial?.tercero;
      if (t?.nif !== undefined && t.nif === v.f.emisor.nif) report('especial.tercero.nif', 'tercero cannot be the issuer itself');
    },
  },
  {
    codigo: '1211',
    gravedad: 'error',
    regla: 'El bloque Tercero no puede estar identificado con IDType No Censado (07)',
    comprobar(v, report) {
      if (v.f.especial?.tercero?.idOtro?.idType === '07') report('especial.tercero.idOtro.idType', 'idType 07 is not allowed for tercero');
    },
  },
  {
    codigo: '1232',
    gravedad: 'error',
    regla: 'Tercero identificado por IDOtro con CodigoPais ES: IDType debe ser Pasaporte (03)',
    comprobar(v, report) {
      const o = v.f.especial?.tercero?.idOtro;
      if (o?.codigoPais === 'ES' && o.idType !== '03' && o.idType !== '07') {
        report('especial.tercero.idOtro.idType', 'with codigoPais ES, a tercero idType must be 03 (passport)');
      }
    },
  },
  {
    codigo: '1189',
    gravedad: 'error',
    regla: 'Si TipoFactura es F1, F3, R1, R2, R3 o R4, Destinatarios tiene que estar cumplimentado',
    comprobar(v, report) {
      if (CON_DESTINATARIO.has(v.tipo) && v.f.destinatario === undefined) {
        report('destinatario', `tipoFactura ${v.tipo} needs a destinatario`);
      }
    },
  },
  {
    codigo: '1190',
    gravedad: 'error',
    regla: 'Si TipoFactura es F2 o R5, Destinatarios no puede estar cumplimentado',
    comprobar(v, report) {
      if (SIN_DESTINATARIO.has(v.tipo) && v.f.destinatario !== undefined) {
        report('destinatario', `tipoFactura ${v.tipo} (simplified) cannot have a destinatario`);
      }
    },
  },
  {
    codigo: '1111',
    gravedad: 'error',
    regla: 'El campo CodigoPais es obligatorio cuando IDType es distinto de 02',
    comprobar(v, report) {
      if (v.f.destinatario?.idOtro === undefined && v.f.especial?.tercero?.idOtro === undefined) return;
      for (const { p, campo } of partes(v)) if (p.idOtro) comprobarIdOtro(p.idOtro, `${campo}.idOtro`, report, '1111');
    },
  },
  {
    codigo: '1122',
    gravedad: 'error',
    regla: 'El campo CodigoPais indicado no coincide con los dos primeros dígitos del identificador',
    comprobar(v, report) {
      if (v.f.destinatario?.idOtro === undefined && v.f.especial?.tercero?.idOtro === undefined) return;
      for (const { p, campo } of partes(v)) if (p.idOtro) comprobarIdOtro(p.idOtro, `${campo}.idOtro`, report, '1122');
    },
  },
  {
    codigo: '1254/1255',
    gravedad: 'error',
    regla: "NIF-IVA (IDType 02): 'XI' no se permite con FechaOperacion (o expedición) anterior a 01/01/2021, ni 'GB' desde 01/02/2021",
    comprobar(v, report) {
      if (v.f.destinatario?.idOtro === undefined && v.f.especial?.tercero?.idOtro === undefined) return;
      for (const { p, campo } of partes(v)) {
        const o = p.idOtro;
        if (o?.idType !== '02') continue;
        // Brexit (Validaciones, NIF-IVA note (*)): Northern Ireland's XI from 2021, Great Britain's GB up to January 2021.
        if (v.fechaRef < XI_DESDE && o.id.startsWith('XI')) {
          report(`${campo}.idOtro.id`, 'a NIF-IVA starting with XI (Northern Ireland) applies only to operations from 01-01-2021', '1254');
        } else if (v.fechaRef > GB_HASTA && o.id.startsWith('GB')) {
          report(`${campo}.idOtro.id`, 'a NIF-IVA starting with GB applies only to operations up to 31-01-2021 (Northern Ireland: XI)', '1255');
        }
      }
    },
  },
  {
    codigo: '1290/1131',
    gravedad: 'error',
    regla: 'Con IDType No Censado (07) el ID debe ser un NIF con formato correcto (1290), el de una persona física (1131)',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (o?.idType !== '07') return;
      // The ID is written as sent: it must be a NIF as AEAT reads it, not one after normalising.
      const nif = validateNif(o.id);
      if (!nif.valid) {
        report('destinatario.idOtro.id', `idType 07 (not in census) needs a Spanish NIF with its check character: ${nif.reason}`, '1290');
      } else if (nif.normalized !== o.id) {
        report('destinatario.idOtro.id', `idType 07 (not in census): write the NIF as AEAT reads it, ${nif.normalized}`, '1290');
      } else if (nif.kind === 'cif') {
        report('destinatario.idOtro.id', "idType 07 (not in census) needs a natural person's NIF (DNI, NIE or K/L/M), not a legal entity's", '1131');
      }
    },
  },
  {
    codigo: '1126',
    gravedad: 'error',
    regla: 'CodigoPais solo puede ser ES cuando IDType sea 03 o 07; si IDType es 07, CodigoPais debe ser ES',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (o === undefined) return;
      if (o.codigoPais === 'ES' && o.idType !== '03' && o.idType !== '07') {
        report('destinatario.idOtro.idType', 'with codigoPais ES, idType must be 03 (passport) or 07 (not in census)');
      } else if (o.idType === '07' && o.codigoPais !== 'ES') {
        report('destinatario.idOtro.codigoPais', 'idType 07 (not in census) needs codigoPais ES');
      }
    },
  },
  {
    codigo: '1156',
    gravedad: 'error',
    regla: 'Destinatario por IDOtro con IDType 02: TipoFactura debe ser F1, F3, R1, R2, R3 o R4',
    comprobar(v, report) {
      if (v.f.destinatario?.idOtro?.idType === '02' && !CON_DESTINATARIO.has(v.tipo)) {
        report('destinatario.idOtro.idType', `idType 02 is not allowed for tipoFactura ${v.tipo}`);
      }
    },
  },
  {
    codigo: '1191',
    gravedad: 'error',
    regla: 'Si TipoFactura es R3 sólo se admitirá NIF o IDType No Censado (07)',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (v.tipo === 'R3' && o !== undefined && o.idType !== '07') {
        report('destinatario.idOtro.idType', 'R3 accepts a destinatario by NIF or idType 07 only');
      }
    },
  },
  {
    codigo: '1192',
    gravedad: 'error',
    regla: 'Si TipoFactura es R2 sólo se admitirá NIF o IDType No Censado (07) o NIF-IVA (02)',
    comprobar(v, report) {
      const o = v.f.destinatario?.idOtro;
      if (v.tipo === 'R2' && o !== undefined && o.idType !== '07' && o.idType !== '02') {
        report('destinatario.idOtro.idType', 'R2 accepts a destinatario by NIF or idType 02 or 07 only');
      }
    },
  },
];
