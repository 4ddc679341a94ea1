import { describe, expect, it } from 'vitest';
import type { DetalleDesglose, FacturaVerifactu, Persona } from '../../../src-shared/api/verifactu';
import { verifactuCrearBody } from '../../../src-shared/api/verifactu';
import { type ContextoReglas, REGLAS_VERIFACTU, validarAlta } from '../../../engine/src/regimes/verifactu/reglas';
import {
  aDestinatarioIdOtro,
  aDestinatarioNif,
  aDetalle,
  aFacturaF1,
  aFacturaF2,
  aFacturaF3,
  aFacturaR,
  EMISOR,
  HOY,
} from '../../fixtures/verifactu';

interface Caso {
  nombre: string;
  factura: FacturaVerifactu;
  ctx?: Partial<ContextoReglas>;
  /** For a failing case: the field the error must name. */
  campo?: string;
  /** For a rule grouping several AEAT codes: the specific code expected. */
  codigo?: string;
}

/** An F1 whose only desglose line is aDetalle(o). Totals are left as they are (avisos only). */
const f1Linea = (o: Partial<DetalleDesglose>, extra: Parameters<typeof aFacturaF1>[0] = {}) =>
  aFacturaF1({ detalleDesglose: [aDetalle(o)], ...extra });
const sinCuota = { tipoImpositivo: undefined, cuotaRepercutida: undefined } as const;
const exenta = (e: DetalleDesglose['operacionExenta'], o: Partial<DetalleDesglose> = {}) =>
  aDetalle({ calificacionOperacion: undefined, operacionExenta: e, ...sinCuota, ...o });
const aapp: Persona = { nif: 'Q2826000H', nombre: 'Ayuntamiento' };
const ok = (nombre: string, factura: FacturaVerifactu, ctx?: Partial<ContextoReglas>): Caso => ({ nombre, factura, ...(ctx ? { ctx } : {}) });
const ko = (nombre: string, campo: string, factura: FacturaVerifactu, ctx?: Partial<ContextoReglas>): Caso => ({
  nombre,
  campo,
  factura,
  ...(ctx ? { ctx } : {}),
});
const d0 = 'detalleDesglose[0]';

/** Failing and passing examples of every rule, keyed by its code. */
const CASOS: Record<string, { falla: Caso[]; pasa: Caso[] }> = {
  '1112': {
    falla: [ko('issued tomorrow', 'cabecera.fechaExpedicion', aFacturaF1({ cabecera: { fechaExpedicion: '03-03-2026' } }))],
    pasa: [ok('issued today', aFacturaF1())],
  },
  '1152': {
    falla: [ko('issued 27-10-2024', 'cabecera.fechaExpedicion', aFacturaF1({ cabecera: { fechaExpedicion: '27-10-2024' } }))],
    pasa: [ok('issued 28-10-2024', aFacturaF1({ cabecera: { fechaExpedicion: '28-10-2024' } }))],
  },
  '1133': {
    falla: [ko('issued 20 years and a day ago', 'cabecera.fechaExpedicion', aFacturaF1({ cabecera: { fechaExpedicion: '01-03-2026' } }), { hoy: '02-03-2046' })],
    pasa: [ok('issued exactly 20 years ago', aFacturaF1(), { hoy: '02-03-2046' })],
  },
  '1134': {
    falla: [ko('operation 20 years and a day ago', 'cabecera.fechaOperacion', aFacturaF1({ cabecera: { fechaOperacion: '01-03-2006' } }))],
    pasa: [ok('operation exactly 20 years ago', aFacturaF1({ cabecera: { fechaOperacion: '02-03-2006' } }))],
  },
  '1125': {
    falla: [ko('operation in 2028 (clave 15)', 'cabecera.fechaOperacion', f1Linea({ claveRegimen: '15' }, { cabecera: { fechaOperacion: '01-01-2028' } }))],
    pasa: [ok('operation on 31-12-2027 (clave 15)', f1Linea({ claveRegimen: '15' }, { cabecera: { fechaOperacion: '31-12-2027' } }))],
  },
  '1173': {
    falla: [ko('future operation with clave 01', 'cabecera.fechaOperacion', aFacturaF1({ cabecera: { fechaOperacion: '03-03-2026' } }))],
    pasa: [ok('future operation with clave 15', f1Linea({ claveRegimen: '15' }, { cabecera: { fechaOperacion: '03-03-2026' } }))],
  },
  '1146': {
    falla: [
      ko('operation after issue with clave 01', 'cabecera.fechaOperacion', aFacturaF1({ cabecera: { fechaExpedicion: '01-03-2026', fechaOperacion: HOY } })),
    ],
    pasa: [
      ok('operation after issue with clave 15', f1Linea({ claveRegimen: '15' }, { cabecera: { fechaExpedicion: '01-03-2026', fechaOperacion: HOY } })),
      ok('operation before issue', aFacturaF1({ cabecera: { fechaOperacion: '01-03-2026' } })),
    ],
  },
  '1147': {
    falla: [ko('clave 14 without fechaOperacion', 'cabecera.fechaOperacion', f1Linea({ claveRegimen: '14' }, { destinatario: aapp }))],
    pasa: [
      ok('clave 14 with a later fechaOperacion', f1Linea({ claveRegimen: '14' }, { destinatario: aapp, cabecera: { fechaExpedicion: '01-03-2026', fechaOperacion: HOY } })),
    ],
  },
  '1148': {
    falla: [
      ko(
        'clave 14 on an F3',
        'cabecera.tipoFactura',
        aFacturaF3({ destinatario: aapp, detalleDesglose: [aDetalle({ claveRegimen: '14' })], cabecera: { tipoFactura: 'F3', fechaExpedicion: '01-03-2026', fechaOperacion: HOY } }),
      ),
    ],
    pasa: [ok('clave 14 on an R1', aFacturaR('R1', 'S', { destinatario: aapp, detalleDesglose: [aDetalle({ claveRegimen: '14' })], cabecera: { tipoFactura: 'R1', fechaExpedicion: '01-03-2026', fechaOperacion: HOY } }))],
  },
  '1149': {
    falla: [
      ko('clave 14 to a private NIF', 'destinatario.nif', f1Linea({ claveRegimen: '14' }, { cabecera: { fechaExpedicion: '01-03-2026', fechaOperacion: HOY } })),
    ],
    pasa: [ok('clave 14 to a Q NIF', f1Linea({ claveRegimen: '14' }, { destinatario: aapp, cabecera: { fechaExpedicion: '01-03-2026', fechaOperacion: HOY } }))],
  },
  '1114': {
    falla: [ko('R1 without rectificativa', 'rectificativa.tipo', aFacturaR('R1', 'S', { rectificativa: undefined }))],
    pasa: [ok('R1 with rectificativa', aFacturaR('R1', 'I'))],
  },
  '1115': {
    falla: [ko('F1 with rectificativa', 'rectificativa', aFacturaF1({ rectificativa: { tipo: 'I' } }))],
    pasa: [ok('F1 without rectificativa', aFacturaF1())],
  },
  '1183': {
    falla: [ko('F2 marked art. 7.2/7.3', 'especial.facturaSimplificadaArt7273', aFacturaF2({ especial: { facturaSimplificadaArt7273: true } }))],
    pasa: [ok('F1 marked art. 7.2/7.3', aFacturaF1({ especial: { facturaSimplificadaArt7273: true } }))],
  },
  '1185': {
    falla: [ko('F1 marked art. 6.1.d', 'especial.facturaSinIdentifDestinatarioArt61d', aFacturaF1({ especial: { facturaSinIdentifDestinatarioArt61d: true } }))],
    pasa: [ok('F2 marked art. 6.1.d', aFacturaF2({ especial: { facturaSinIdentifDestinatarioArt61d: true } }))],
  },
  '1157': {
    falla: [ko('cupon on an F1', 'especial.cupon', aFacturaF1({ especial: { cupon: true } }))],
    pasa: [ok('cupon on an R1', aFacturaR('R1', 'I', { especial: { cupon: true } })), ok('cupon on an R5', aFacturaR('R5', 'I', { especial: { cupon: true } }))],
  },
  '1155': {
    falla: [ko('tercero without emitidaPor', 'especial.tercero', aFacturaF1({ especial: { tercero: { nif: 'B11111119', nombre: 'Tercero' } } }))],
    pasa: [ok('tercero with emitidaPor T', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nif: 'B11111119', nombre: 'Tercero' } } }))],
  },
  '1159': {
    falla: [ko('tercero with emitidaPor D', 'especial.tercero', aFacturaF1({ especial: { emitidaPor: 'D', tercero: { nif: 'B11111119', nombre: 'Tercero' } } }))],
    pasa: [ok('emitidaPor D alone', aFacturaF1({ especial: { emitidaPor: 'D' } }))],
  },
  '1186': {
    falla: [ko('emitidaPor T without tercero', 'especial.tercero', aFacturaF1({ especial: { emitidaPor: 'T' } }))],
    pasa: [ok('emitidaPor T with tercero', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nif: 'B11111119', nombre: 'Tercero' } } }))],
  },
  '1158': {
    falla: [ko('emitidaPor D on a ticket without destinatario', 'destinatario', aFacturaF2({ especial: { emitidaPor: 'D' } }))],
    pasa: [ok('emitidaPor D with destinatario', aFacturaF1({ especial: { emitidaPor: 'D' } }))],
  },
  '1188': {
    falla: [ko('tercero is the issuer', 'especial.tercero.nif', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nif: EMISOR.nif, nombre: 'Yo' } } }))],
    pasa: [ok('tercero is another NIF', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nif: 'B11111119', nombre: 'Otro' } } }))],
  },
  '1211': {
    falla: [
      ko('tercero not in census (07)', 'especial.tercero.idOtro.idType', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nombre: 'X', idOtro: { codigoPais: 'ES', idType: '07', id: '12345678Z' } } } })),
    ],
    pasa: [ok('tercero by passport', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nombre: 'X', idOtro: { codigoPais: 'ES', idType: '03', id: 'PAS123' } } } }))],
  },
  '1232': {
    falla: [
      ko('Spanish tercero by residence document', 'especial.tercero.idOtro.idType', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nombre: 'X', idOtro: { codigoPais: 'ES', idType: '04', id: 'ID1' } } } })),
    ],
    pasa: [ok('foreign tercero by residence document', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nombre: 'X', idOtro: { codigoPais: 'US', idType: '04', id: 'ID1' } } } }))],
  },
  '1189': {
    falla: [
      ko('F1 without destinatario', 'destinatario', aFacturaF1({ destinatario: undefined })),
      ko('R4 without destinatario', 'destinatario', aFacturaR('R4', 'I', { destinatario: undefined })),
    ],
    pasa: [ok('F3 with destinatario', aFacturaF3())],
  },
  '1190': {
    falla: [
      ko('F2 with destinatario', 'destinatario', aFacturaF2({ destinatario: aDestinatarioNif() })),
      ko('R5 with destinatario', 'destinatario', aFacturaR('R5', 'S', { destinatario: aDestinatarioNif() })),
    ],
    pasa: [ok('F2 without destinatario', aFacturaF2())],
  },
  '1111': {
    falla: [
      ko('destinatario by passport without country', 'destinatario.idOtro.codigoPais', aFacturaF1({ destinatario: { nombre: 'X', idOtro: { idType: '03', id: 'P1' } } })),
      ko('tercero by passport without country', 'especial.tercero.idOtro.codigoPais', aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nombre: 'X', idOtro: { idType: '03', id: 'P1' } } } })),
    ],
    pasa: [ok('NIF-IVA without country', aFacturaF1({ destinatario: { nombre: 'X', idOtro: { idType: '02', id: 'DE123456789' } } }))],
  },
  '1122': {
    falla: [ko('FR country with a DE VAT number', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'FR', id: 'DE123456789' }) }))],
    pasa: [
      ok('Greece writes EL', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GR', id: 'EL123456789' }) })),
      ok('Northern Ireland writes XI', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'XI123456789' }) })),
    ],
  },
  '1254/1255': {
    falla: [
      {
        ...ko('XI for an operation of 2020', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'XI123456789' }), cabecera: { fechaOperacion: '31-12-2020' } })),
        codigo: '1254',
      },
      { ...ko('GB in 2026', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'GB123456789' }) })), codigo: '1255' },
      {
        ...ko('a tercero\'s GB in 2026', 'especial.tercero.idOtro.id', aFacturaF1({ especial: { emitidaPor: 'T', tercero: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'GB123456789' }) } })),
        codigo: '1255',
      },
      { ...ko('GB from 01-02-2021', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ id: 'GB123456789', codigoPais: undefined }), cabecera: { fechaOperacion: '01-02-2021' } })), codigo: '1255' },
    ],
    pasa: [
      ok('XI in 2026', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'XI123456789' }) })),
      ok('GB for an operation of 2020', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'GB123456789' }), cabecera: { fechaOperacion: '31-12-2020' } })),
      ok('GB and XI both in January 2021', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'GB123456789' }), cabecera: { fechaOperacion: '31-01-2021' } })),
      ok('XI on 01-01-2021', aFacturaF1({ especial: { emitidaPor: 'T', tercero: aDestinatarioIdOtro({ codigoPais: 'GB', id: 'XI123456789' }) }, cabecera: { fechaOperacion: '01-01-2021' } })),
      ok('a GB passport (not a NIF-IVA) in 2026', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'GB', idType: '03', id: 'GB123456789' }) })),
    ],
  },
  '1290/1131': {
    falla: [
      { ...ko('not in census, a wrong NIE letter', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: 'X1234567A' }) })), codigo: '1290' },
      { ...ko('not in census, a NIF with the ES prefix', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: 'ES12345678Z' }) })), codigo: '1290' },
      { ...ko('not in census, a passport number', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: 'PAB123456' }) })), codigo: '1290' },
      { ...ko('not in census, a legal entity', 'destinatario.idOtro.id', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: 'B12345674' }) })), codigo: '1131' },
    ],
    pasa: [
      ok('not in census, a DNI', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: '12345678Z' }) })),
      ok('not in census, a NIE', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: 'X1234567L' }) })),
      ok('a passport is not a NIF', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '03', id: 'PAB123456' }) })),
    ],
  },
  '1126': {
    falla: [
      ko('ES with a residence document', 'destinatario.idOtro.idType', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '04', id: 'X1' }) })),
      ko('not in census outside ES', 'destinatario.idOtro.codigoPais', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'FR', idType: '07', id: 'X1' }) })),
    ],
    pasa: [ok('not in census, ES', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: '12345678Z' }) }))],
  },
  '1156': {
    falla: [ko('NIF-IVA recipient on an F2', 'destinatario.idOtro.idType', aFacturaF2({ destinatario: aDestinatarioIdOtro() }))],
    pasa: [ok('NIF-IVA recipient on an F1', aFacturaF1({ destinatario: aDestinatarioIdOtro() }))],
  },
  '1191': {
    falla: [ko('R3 to a NIF-IVA', 'destinatario.idOtro.idType', aFacturaR('R3', 'S', { destinatario: aDestinatarioIdOtro() }))],
    pasa: [ok('R3 to not-in-census', aFacturaR('R3', 'S', { destinatario: aDestinatarioIdOtro({ codigoPais: 'ES', idType: '07', id: '12345678Z' }) }))],
  },
  '1192': {
    falla: [ko('R2 to a passport', 'destinatario.idOtro.idType', aFacturaR('R2', 'S', { destinatario: aDestinatarioIdOtro({ codigoPais: 'US', idType: '03', id: 'P1' }) }))],
    pasa: [ok('R2 to a NIF-IVA', aFacturaR('R2', 'S', { destinatario: aDestinatarioIdOtro() }))],
  },
  '1245': {
    falla: [ko('IVA line without claveRegimen', `${d0}.claveRegimen`, f1Linea({ claveRegimen: undefined }))],
    pasa: [ok('IPSI line without claveRegimen', f1Linea({ impuesto: '02', claveRegimen: undefined }))],
  },
  '1260': {
    falla: [ko('"otros" line with claveRegimen', `${d0}.claveRegimen`, f1Linea({ impuesto: '05', claveRegimen: '01' }))],
    pasa: [
      ok('"otros" line without claveRegimen', f1Linea({ impuesto: '05', claveRegimen: undefined })),
      // errores.properties (2009, and 1260's current text) lets IPSI carry one.
      ok('IPSI line with claveRegimen', f1Linea({ impuesto: '02', claveRegimen: '01' })),
    ],
  },
  '1246': {
    falla: [ko('IVA with clave 21', `${d0}.claveRegimen`, f1Linea({ claveRegimen: '21' }))],
    pasa: [ok('IGIC with clave 21', f1Linea({ impuesto: '03', claveRegimen: '21', tipoImpositivo: '7', cuotaRepercutida: '7' }))],
  },
  '1286': {
    falla: [ko('export as S1', `${d0}.calificacionOperacion`, f1Linea({ claveRegimen: '02' }))],
    pasa: [ok('export as E2', aFacturaF1({ detalleDesglose: [exenta('E2', { claveRegimen: '02' })] }))],
  },
  '1200': {
    falla: [ko('REBU as S2', `${d0}.calificacionOperacion`, f1Linea({ claveRegimen: '03', calificacionOperacion: 'S2', tipoImpositivo: '0', cuotaRepercutida: '0' }))],
    pasa: [ok('REBU as S1', f1Linea({ claveRegimen: '03' })), ok('REBU exempt', aFacturaF1({ detalleDesglose: [exenta('E1', { claveRegimen: '03' })] }))],
  },
  '1201': {
    falla: [ko('investment gold as S1', `${d0}.calificacionOperacion`, f1Linea({ claveRegimen: '04' }))],
    pasa: [ok('investment gold as S2', f1Linea({ claveRegimen: '04', calificacionOperacion: 'S2', tipoImpositivo: '0', cuotaRepercutida: '0' }))],
  },
  '1202': {
    falla: [
      ko('entity group on an F2', `${d0}.claveRegimen`, aFacturaF2({ detalleDesglose: [aDetalle({ claveRegimen: '06' })] })),
      ko('entity group without BaseImponibleACoste', `${d0}.claveRegimen`, f1Linea({ claveRegimen: '06' })),
    ],
    pasa: [ok('clave 01', aFacturaF1())],
  },
  '1203': {
    falla: [
      ko('cash basis as N1', `${d0}.calificacionOperacion`, f1Linea({ claveRegimen: '07', calificacionOperacion: 'N1', ...sinCuota })),
      ko('cash basis exempt E4', `${d0}.operacionExenta`, aFacturaF1({ detalleDesglose: [exenta('E4', { claveRegimen: '07' })] })),
    ],
    pasa: [ok('cash basis as S1', f1Linea({ claveRegimen: '07' })), ok('cash basis exempt E1', aFacturaF1({ detalleDesglose: [exenta('E1', { claveRegimen: '07' })] }))],
  },
  '1252': {
    falla: [ko('clave 08 as S1', `${d0}.calificacionOperacion`, f1Linea({ claveRegimen: '08' }))],
    pasa: [ok('clave 08 as N2', f1Linea({ claveRegimen: '08', calificacionOperacion: 'N2', ...sinCuota }))],
  },
  '1205': {
    falla: [
      ko('clave 10 as S1', `${d0}.calificacionOperacion`, f1Linea({ claveRegimen: '10' })),
      ko('clave 10 to a foreign recipient', 'destinatario.nif', f1Linea({ claveRegimen: '10', calificacionOperacion: 'N1', ...sinCuota }, { destinatario: aDestinatarioIdOtro() })),
    ],
    pasa: [ok('clave 10 as N1 on an F1 to a NIF', f1Linea({ claveRegimen: '10', calificacionOperacion: 'N1', ...sinCuota }))],
  },
  '1206': {
    falla: [ko('rental at 10 %', `${d0}.tipoImpositivo`, f1Linea({ claveRegimen: '11', tipoImpositivo: '10', cuotaRepercutida: '10' }))],
    pasa: [ok('rental at 21 %', f1Linea({ claveRegimen: '11' }))],
  },
  '1182': {
    falla: [ko('E7 with IVA', `${d0}.operacionExenta`, aFacturaF1({ detalleDesglose: [exenta('E7')] }))],
    pasa: [ok('E7 with IGIC', aFacturaF1({ detalleDesglose: [exenta('E7', { impuesto: '03' })] }))],
  },
  '1199': {
    falla: [ko('clave 01 with E2', `${d0}.operacionExenta`, aFacturaF1({ detalleDesglose: [exenta('E2')] }))],
    // E5 (intra-EU delivery) to a recipient by its EU VAT number (by a Spanish NIF: 1289, reglas-recientes.ts).
    pasa: [ok('clave 01 with E5', aFacturaF1({ destinatario: aDestinatarioIdOtro(), detalleDesglose: [exenta('E5')] }))],
  },
  '1197': {
    falla: [ko('reverse charge on an F2', `${d0}.calificacionOperacion`, aFacturaF2({ detalleDesglose: [aDetalle({ calificacionOperacion: 'S2', tipoImpositivo: '0', cuotaRepercutida: '0' })] }))],
    pasa: [ok('reverse charge on an F1', f1Linea({ calificacionOperacion: 'S2', tipoImpositivo: '0', cuotaRepercutida: '0' }))],
  },
  '1198': {
    falla: [
      ko('S2 at 21 %', `${d0}.tipoImpositivo`, f1Linea({ calificacionOperacion: 'S2', cuotaRepercutida: '0' })),
      ko('S2 without cuota', `${d0}.cuotaRepercutida`, f1Linea({ calificacionOperacion: 'S2', tipoImpositivo: '0', cuotaRepercutida: undefined })),
    ],
    pasa: [ok('S2 at 0 with cuota 0', f1Linea({ calificacionOperacion: 'S2', tipoImpositivo: '0.00', cuotaRepercutida: '0.00' }))],
  },
  '1237': {
    falla: [
      ko('N1 with a rate', `${d0}.tipoImpositivo`, f1Linea({ calificacionOperacion: 'N1', cuotaRepercutida: undefined })),
      ko('N2 with recargo', `${d0}.tipoRecargoEquivalencia`, f1Linea({ calificacionOperacion: 'N2', ...sinCuota, tipoRecargoEquivalencia: '5.2', cuotaRecargoEquivalencia: '5.2' })),
    ],
    pasa: [ok('N1 without amounts', f1Linea({ calificacionOperacion: 'N1', ...sinCuota }))],
  },
  '1238': {
    falla: [ko('exempt with cuota', `${d0}.cuotaRepercutida`, aFacturaF1({ detalleDesglose: [exenta('E1', { cuotaRepercutida: '0' })] }))],
    pasa: [ok('exempt without amounts', aFacturaF1({ detalleDesglose: [exenta('E1')] }))],
  },
  '1281': {
    falla: [
      ko('S2 with recargo', `${d0}.tipoRecargoEquivalencia`, f1Linea({ calificacionOperacion: 'S2', tipoImpositivo: '0', cuotaRepercutida: '0', tipoRecargoEquivalencia: '0', cuotaRecargoEquivalencia: '0' })),
    ],
    pasa: [ok('S1 with recargo', f1Linea({ claveRegimen: '18', tipoRecargoEquivalencia: '5.2', cuotaRecargoEquivalencia: '5.20' }))],
  },
  '1284': {
    falla: [
      ko('tipo without cuota de recargo', `${d0}.cuotaRecargoEquivalencia`, f1Linea({ tipoRecargoEquivalencia: '5.2' })),
      ko('cuota without tipo de recargo', `${d0}.tipoRecargoEquivalencia`, f1Linea({ cuotaRecargoEquivalencia: '5.2' })),
    ],
    pasa: [ok('both', f1Linea({ tipoRecargoEquivalencia: '1.75', cuotaRecargoEquivalencia: '1.75' }))],
  },
  '1207': {
    falla: [ko('IGIC N1 with a cuota', `${d0}.cuotaRepercutida`, f1Linea({ impuesto: '03', calificacionOperacion: 'N1', tipoImpositivo: undefined, cuotaRepercutida: '5' }))],
    pasa: [ok('IGIC N1 with a zero cuota', f1Linea({ impuesto: '03', calificacionOperacion: 'N1', tipoImpositivo: undefined, cuotaRepercutida: '0' }))],
  },
  '1208': {
    falla: [
      ko('S1 without rate', `${d0}.tipoImpositivo`, f1Linea({ tipoImpositivo: undefined })),
      ko('S1 without cuota', `${d0}.cuotaRepercutida`, f1Linea({ cuotaRepercutida: undefined })),
    ],
    pasa: [ok('S1 with both', aFacturaF1())],
  },
  '1143': {
    falla: [ko('positive base, negative cuota', `${d0}.cuotaRepercutida`, f1Linea({ cuotaRepercutida: '-21.00' }))],
    pasa: [
      ok('both negative', f1Linea({ baseImponible: '-100', cuotaRepercutida: '-21' })),
      ok('incremental corrective (I) is not checked', aFacturaR('R1', 'I', { detalleDesglose: [aDetalle({ baseImponible: '-20', cuotaRepercutida: '4.20' })] })),
    ],
  },
  '1142': {
    falla: [ko('cuota off by 10.01', `${d0}.cuotaRepercutida`, f1Linea({ cuotaRepercutida: '31.01' }))],
    pasa: [
      ok('cuota off by exactly 10.00', f1Linea({ cuotaRepercutida: '31.00' })),
      ok('R2 is not checked', aFacturaR('R2', 'S', { detalleDesglose: [aDetalle({ cuotaRepercutida: '50' })] })),
      ok('R3 is not checked', aFacturaR('R3', 'S', { detalleDesglose: [aDetalle({ cuotaRepercutida: '50' })] })),
    ],
  },
  '1124': {
    falla: [ko('IVA at 15 %', `${d0}.tipoImpositivo`, f1Linea({ tipoImpositivo: '15', cuotaRepercutida: '15' }))],
    pasa: [ok('IVA at 10 %', f1Linea({ tipoImpositivo: '10', cuotaRepercutida: '10' })), ok('IVA at 4 %', f1Linea({ tipoImpositivo: '4.00', cuotaRepercutida: '4' }))],
  },
  '1132': {
    falla: [
      ko('IVA 18 % in 2026', `${d0}.tipoImpositivo`, f1Linea({ tipoImpositivo: '18', cuotaRepercutida: '18' })),
      ko('IVA 16 % for an operation of January 2013', `${d0}.tipoImpositivo`, f1Linea({ tipoImpositivo: '16', cuotaRepercutida: '16' }, { cabecera: { fechaOperacion: '01-01-2013' } })),
    ],
    pasa: [
      ok('IVA 18 % for an operation of 31-12-2012 (a correction of an old sale)', f1Linea({ tipoImpositivo: '18', cuotaRepercutida: '18' }, { cabecera: { fechaOperacion: '31-12-2012' } })),
      ok('IVA 7 % for an operation of 2010', f1Linea({ tipoImpositivo: '7', cuotaRepercutida: '7' }, { cabecera: { fechaOperacion: '15-06-2010' } })),
      ok(
        'IVA 16 % with a 0.5 recargo in 2010 (rates of then are not paired)',
        f1Linea({ tipoImpositivo: '16', cuotaRepercutida: '16', tipoRecargoEquivalencia: '0.5', cuotaRecargoEquivalencia: '0.5' }, { cabecera: { fechaOperacion: '15-06-2010' } }),
      ),
    ],
  },
  '1194': {
    falla: [ko('IVA 5 % in 2026', `${d0}.tipoImpositivo`, f1Linea({ tipoImpositivo: '5', cuotaRepercutida: '5' }))],
    pasa: [ok('IVA 5 % for an operation in June 2024', f1Linea({ tipoImpositivo: '5', cuotaRepercutida: '5' }, { cabecera: { fechaOperacion: '01-06-2024' } }))],
  },
  '1235/1236': {
    falla: [
      ko('IVA 2 % in 2026', `${d0}.tipoImpositivo`, f1Linea({ tipoImpositivo: '2', cuotaRepercutida: '2' })),
      ko('IVA 7.5 % in 2026', `${d0}.tipoImpositivo`, f1Linea({ tipoImpositivo: '7.5', cuotaRepercutida: '7.5' })),
    ],
    pasa: [ok('IVA 2 % for an operation in November 2024', f1Linea({ tipoImpositivo: '2', cuotaRepercutida: '2' }, { cabecera: { fechaOperacion: '15-11-2024' } }))],
  },
  '1127': {
    falla: [
      ko('recargo 3 %', `${d0}.tipoRecargoEquivalencia`, f1Linea({ tipoRecargoEquivalencia: '3', cuotaRecargoEquivalencia: '3' })),
      ko(
        'recargo 4 % beside today\'s 21 % in 2012',
        `${d0}.tipoRecargoEquivalencia`,
        f1Linea({ tipoRecargoEquivalencia: '4', cuotaRecargoEquivalencia: '4' }, { cabecera: { fechaOperacion: '15-10-2012' } }),
      ),
    ],
    pasa: [ok('recargo 5.2 %', f1Linea({ tipoRecargoEquivalencia: '5.20', cuotaRecargoEquivalencia: '5.2' }))],
  },
  '1135': {
    falla: [
      ko('recargo 4 % in 2026', `${d0}.tipoRecargoEquivalencia`, f1Linea({ tipoRecargoEquivalencia: '4', cuotaRecargoEquivalencia: '4' })),
      ko(
        'recargo 4 % for an operation of 2013',
        `${d0}.tipoRecargoEquivalencia`,
        f1Linea({ tipoRecargoEquivalencia: '4.00', cuotaRecargoEquivalencia: '4' }, { cabecera: { fechaOperacion: '02-01-2013' } }),
      ),
    ],
    pasa: [
      ok(
        'recargo 4 % beside 18 % in 2012',
        f1Linea({ tipoImpositivo: '18', cuotaRepercutida: '18', tipoRecargoEquivalencia: '4', cuotaRecargoEquivalencia: '4' }, { cabecera: { fechaOperacion: '31-12-2012' } }),
      ),
    ],
  },
  '1160–1170': {
    falla: [
      { ...ko('21 % with recargo 1.4', `${d0}.tipoRecargoEquivalencia`, f1Linea({ tipoRecargoEquivalencia: '1.4', cuotaRecargoEquivalencia: '1.4' })), codigo: '1162' },
      { ...ko('10 % with recargo 5.2', `${d0}.tipoRecargoEquivalencia`, f1Linea({ tipoImpositivo: '10', cuotaRepercutida: '10', tipoRecargoEquivalencia: '5.2', cuotaRecargoEquivalencia: '5.2' })), codigo: '1163' },
      { ...ko('4 % with recargo 1', `${d0}.tipoRecargoEquivalencia`, f1Linea({ tipoImpositivo: '4', cuotaRepercutida: '4', tipoRecargoEquivalencia: '1', cuotaRecargoEquivalencia: '1' })), codigo: '1164' },
      {
        ...ko(
          '5 % in 2022 with recargo 0.62',
          `${d0}.tipoRecargoEquivalencia`,
          f1Linea({ tipoImpositivo: '5', cuotaRepercutida: '5', tipoRecargoEquivalencia: '0.62', cuotaRecargoEquivalencia: '0.62' }, { cabecera: { fechaOperacion: '01-08-2022' } }),
        ),
        codigo: '1167',
      },
      {
        ...ko(
          '0 % in 2023 with recargo 0.5',
          `${d0}.tipoRecargoEquivalencia`,
          f1Linea({ tipoImpositivo: '0', cuotaRepercutida: '0', tipoRecargoEquivalencia: '0.5', cuotaRecargoEquivalencia: '0.5' }, { cabecera: { fechaOperacion: '01-08-2023' } }),
        ),
        codigo: '1165',
      },
      {
        ...ko('0 % in 2026 with recargo 0.5', `${d0}.tipoRecargoEquivalencia`, f1Linea({ tipoImpositivo: '0', cuotaRepercutida: '0', tipoRecargoEquivalencia: '0.5', cuotaRecargoEquivalencia: '0.5' })),
        codigo: '1170',
      },
      {
        ...ko(
          '0 % from 01-10-2024 with recargo 0',
          `${d0}.tipoRecargoEquivalencia`,
          f1Linea({ tipoImpositivo: '0', cuotaRepercutida: '0', tipoRecargoEquivalencia: '0', cuotaRecargoEquivalencia: '0' }, { cabecera: { fechaOperacion: '01-10-2024' } }),
        ),
        codigo: '1170',
      },
    ],
    pasa: [
      ok('21 % with 1.75', f1Linea({ tipoRecargoEquivalencia: '1.75', cuotaRecargoEquivalencia: '1.75' })),
      ok('10 % with 1.4', f1Linea({ tipoImpositivo: '10', cuotaRepercutida: '10', tipoRecargoEquivalencia: '1.4', cuotaRecargoEquivalencia: '1.4' })),
      ok('0 % in 2026 with 0.26 (1170)', f1Linea({ tipoImpositivo: '0', cuotaRepercutida: '0', tipoRecargoEquivalencia: '0.26', cuotaRecargoEquivalencia: '0.26' })),
      ok(
        '0 % on 30-09-2024 with 0 (1165)',
        f1Linea({ tipoImpositivo: '0', cuotaRepercutida: '0', tipoRecargoEquivalencia: '0', cuotaRecargoEquivalencia: '0' }, { cabecera: { fechaOperacion: '30-09-2024' } }),
      ),
      ok(
        '5 % in 2023 with 0.62 (1168)',
        f1Linea({ tipoImpositivo: '5', cuotaRepercutida: '5', tipoRecargoEquivalencia: '0.62', cuotaRecargoEquivalencia: '0.62' }, { cabecera: { fechaOperacion: '01-08-2023' } }),
      ),
    ],
  },
  '1150': {
    falla: [
      ko(
        'ticket of 3025.00',
        'totales.importeTotal',
        aFacturaF2({ detalleDesglose: [aDetalle({ baseImponible: '2500', cuotaRepercutida: '525' })], totales: { cuotaTotal: '525', importeTotal: '3025' } }),
      ),
    ],
    pasa: [
      ok('ticket of 3010.00 (within the 10.00 margin)', aFacturaF2({ detalleDesglose: [aDetalle({ baseImponible: '2487.60', cuotaRepercutida: '522.40' })], totales: { cuotaTotal: '522.40', importeTotal: '3010' } })),
      ok(
        'ticket of 3025.00 under a billing agreement',
        aFacturaF2({
          especial: { numRegistroAcuerdoFacturacion: 'ACU1' },
          detalleDesglose: [aDetalle({ baseImponible: '2500', cuotaRepercutida: '525' })],
          totales: { cuotaTotal: '525', importeTotal: '3025' },
        }),
      ),
      ok(
        'art. 6.1.d invoice of 3025.00',
        aFacturaF2({
          especial: { facturaSinIdentifDestinatarioArt61d: true },
          detalleDesglose: [aDetalle({ baseImponible: '2500', cuotaRepercutida: '525' })],
          totales: { cuotaTotal: '525', importeTotal: '3025' },
        }),
      ),
    ],
  },
  '1153': {
    falla: [ko('RechazoPrevio X without Subsanacion', 'rechazoPrevio', aFacturaF1(), { rechazoPrevio: 'X' })],
    pasa: [ok('RechazoPrevio X with Subsanacion', aFacturaF1(), { rechazoPrevio: 'X', subsanacion: true })],
  },
  '1161': {
    falla: [ko('RechazoPrevio S without Subsanacion', 'rechazoPrevio', aFacturaF1(), { rechazoPrevio: 'S' })],
    pasa: [ok('RechazoPrevio S with Subsanacion', aFacturaF1(), { rechazoPrevio: 'S', subsanacion: true }), ok('RechazoPrevio N alone', aFacturaF1(), { rechazoPrevio: 'N' })],
  },
  // ---- avisos: `campo` is the field the aviso starts with
  '2005': {
    falla: [ko('importeTotal off by 11.00', 'totales.importeTotal', aFacturaF1({ importeTotal: '132.00' }))],
    pasa: [
      ok('importeTotal equal to the sum', aFacturaF1()),
      ok('importeTotal off under clave 05 (not checked)', f1Linea({ claveRegimen: '05' }, { importeTotal: '500.00' })),
    ],
  },
  '2006': {
    falla: [ko('cuotaTotal off by 11.00', 'totales.cuotaTotal', aFacturaF1({ cuotaTotal: '32.00', importeTotal: '121.00' }))],
    pasa: [ok('cuotaTotal equal to the sum', aFacturaF1())],
  },
  'RD 1619/2012 art. 4': {
    falla: [ko('ticket of 500.00', 'totales.importeTotal', aFacturaF2({ detalleDesglose: [aDetalle({ baseImponible: '413.22', cuotaRepercutida: '86.78' })], totales: { cuotaTotal: '86.78', importeTotal: '500' } }))],
    pasa: [ok('ticket of 400.00', aFacturaF2({ detalleDesglose: [aDetalle({ baseImponible: '330.58', cuotaRepercutida: '69.42' })], totales: { cuotaTotal: '69.42', importeTotal: '400' } }))],
  },
};

function run(c: Caso) {
  return validarAlta(c.factura, { hoy: HOY, ...c.ctx });
}

describe('fixtures are valid invoices: no errors, no avisos', () => {
  const fixtures: Array<[string, FacturaVerifactu]> = [
    ['F1', aFacturaF1()],
    ['F2', aFacturaF2()],
    ['F3', aFacturaF3()],
    ...(['R1', 'R2', 'R3', 'R4', 'R5'] as const).flatMap((t): Array<[string, FacturaVerifactu]> => [
      [`${t} S`, aFacturaR(t, 'S')],
      [`${t} I`, aFacturaR(t, 'I')],
    ]),
  ];
  it.each(fixtures)('%s', (_, factura) => {
    expect(validarAlta(factura, { hoy: HOY })).toEqual({ errors: [], avisos: [] });
  });
});

describe('every rule of the table has failing and passing examples', () => {
  it('covers each code', () => {
    expect(Object.keys(CASOS).sort()).toEqual(REGLAS_VERIFACTU.map((r) => r.codigo).sort());
  });
});

for (const regla of REGLAS_VERIFACTU) {
  const casos = CASOS[regla.codigo] ?? { falla: [], pasa: [] };
  describe(`${regla.codigo}: ${regla.regla}`, () => {
    for (const c of casos.falla) {
      if (regla.gravedad === 'error') {
        it(`rejects: ${c.nombre}${c.codigo ? ` (${c.codigo})` : ''}`, () => {
          // Every example is a body the API schema accepts: the rule, not the schema, must catch it.
          expect(verifactuCrearBody.safeParse(c.factura).success).toBe(true);
          expect(run(c).errors).toContainEqual(expect.objectContaining({ codigo: c.codigo ?? regla.codigo, campo: c.campo }));
        });
      } else {
        it(`warns: ${c.nombre}`, () => {
          const r = run(c);
          expect(r.errors).toEqual([]);
          expect(r.avisos).toContainEqual(expect.stringMatching(new RegExp(`^${c.campo ?? ''}: .*(AEAT ${regla.codigo}|${regla.codigo})`)));
        });
      }
    }
    for (const c of casos.pasa) {
      it(`accepts: ${c.nombre}`, () => {
        expect(verifactuCrearBody.safeParse(c.factura).success).toBe(true);
        const r = run(c);
        expect(r.errors).toEqual([]);
        if (regla.gravedad === 'aviso') expect(r.avisos.filter((a) => a.includes(regla.codigo))).toEqual([]);
      });
    }
  });
}

describe('errors name the API field and the AEAT code; one error per field', () => {
  it('formats the error', () => {
    const { errors } = validarAlta(aFacturaF1({ destinatario: undefined }), { hoy: HOY });
    expect(errors).toEqual([{ campo: 'destinatario', codigo: '1189', message: 'tipoFactura F1 needs a destinatario (AEAT 1189)' }]);
  });

  it('keeps only the first error of a field', () => {
    // Both 1173 (future operation) and 1146 (operation after issue) fail cabecera.fechaOperacion.
    const { errors } = validarAlta(aFacturaF1({ cabecera: { fechaOperacion: '03-03-2026' } }), { hoy: HOY });
    expect(errors.map((e) => e.codigo)).toEqual(['1173']);
  });

  it('warns about totals within AEAT\'s tolerance without an AEAT code', () => {
    const { errors, avisos } = validarAlta(aFacturaF1({ importeTotal: '121.01' }), { hoy: HOY });
    expect(errors).toEqual([]);
    expect(avisos).toEqual([expect.stringMatching(/^totales\.importeTotal: .*differs by 0\.01.*within AEAT's 10\.00 tolerance/)]);
  });
});
