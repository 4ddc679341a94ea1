// HTTP contract of the VeriFactu issuing endpoints (API-CONTRACT.md, "Issuing (billing API)").
// Requests are strict objects: an unknown key is a 400 naming it. Cross-field rules that are pure
// shape live here (with `path`, so `campo` names the field); the AEAT business rules with their
// error codes live in engine/src/regimes/verifactu/reglas.ts.
import { z } from 'zod';
import { nifTerceroConCodigo } from './common';
import { anulacionDataBaseFields, emisionBaseFields } from './emision';
import {
  fechaDdMmAaaa,
  idMaquina,
  importe,
  nifBasico,
  numeroFactura,
  porcentaje,
  serieFactura,
  textoPlano,
} from '../primitives';

export const TIPOS_FACTURA = ['F1', 'F2', 'F3', 'R1', 'R2', 'R3', 'R4', 'R5'] as const;
export const TIPOS_RECTIFICATIVA_R = ['R1', 'R2', 'R3', 'R4', 'R5'] as const;
export const tipoFactura = z.enum(TIPOS_FACTURA);
export type TipoFactura = z.infer<typeof tipoFactura>;

export function esRectificativa(t: TipoFactura): boolean {
  return t.charCodeAt(0) === 82; // 'R'
}

/** ISO 3166-1 alpha-2 codes accepted by SuministroInformacion.xsd (CountryType2), in its order. */
export const CODIGOS_PAIS = [
  'AF', 'AL', 'DE', 'AD', 'AO', 'AI', 'AQ', 'AG', 'SA', 'DZ', 'AR', 'AM', 'AW', 'AU', 'AT', 'AZ', 'BS', 'BH', 'BD',
  'BB', 'BE', 'BZ', 'BJ', 'BM', 'BY', 'BO', 'BA', 'BW', 'BV', 'BR', 'BN', 'BG', 'BF', 'BI', 'BT', 'CV', 'KY', 'KH',
  'CM', 'CA', 'CF', 'CC', 'CO', 'KM', 'CG', 'CD', 'CK', 'KP', 'KR', 'CI', 'CR', 'HR', 'CU', 'TD', 'CZ', 'CL', 'CN',
  'CY', 'CW', 'DK', 'DM', 'DO', 'EC', 'EG', 'AE', 'ER', 'SK', 'SI', 'ES', 'US', 'EE', 'ET', 'FO', 'PH', 'FI', 'FJ',
  'FR', 'GA', 'GM', 'GE', 'GS', 'GH', 'GI', 'GD', 'GR', 'GL', 'GU', 'GT', 'GG', 'GN', 'GQ', 'GW', 'GY', 'HT', 'HM',
  'HN', 'HK', 'HU', 'IN', 'ID', 'IR', 'IQ', 'IE', 'IM', 'IS', 'IL', 'IT', 'JM', 'JP', 'JE', 'JO', 'KZ', 'KE', 'KG',
  'KI', 'KW', 'LA', 'LS', 'LV', 'LB', 'LR', 'LY', 'LI', 'LT', 'LU', 'XG', 'MO', 'MK', 'MG', 'MY', 'MW', 'MV', 'ML',
  'MT', 'FK', 'MP', 'MA', 'MH', 'MU', 'MR', 'YT', 'UM', 'MX', 'FM', 'MD', 'MC', 'MN', 'ME', 'MS', 'MZ', 'MM', 'NA',
  'NR', 'CX', 'NP', 'NI', 'NE', 'NG', 'NU', 'NF', 'NO', 'NC', 'NZ', 'IO', 'OM', 'NL', 'BQ', 'PK', 'PW', 'PA', 'PG',
  'PY', 'PE', 'PN', 'PF', 'PL', 'PT', 'PR', 'QA', 'GB', 'RW', 'RO', 'RU', 'SB', 'SV', 'WS', 'AS', 'KN', 'SM', 'SX',
  'PM', 'VC', 'SH', 'LC', 'ST', 'SN', 'RS', 'SC', 'SL', 'SG', 'SY', 'SO', 'LK', 'SZ', 'ZA', 'SD', 'SS', 'SE', 'CH',
  'SR', 'TH', 'TW', 'TZ', 'TJ', 'PS', 'TF', 'TL', 'TG', 'TK', 'TO', 'TT', 'TN', 'TC', 'TM', 'TR', 'TV', 'UA', 'UG',
  'UY', 'UZ', 'VU', 'VA', 'VE', 'VN', 'VG', 'VI', 'WF', 'YE', 'DJ', 'ZM', 'ZW', 'QU', 'XB', 'XU', 'XN',
] as const;

// A code outside the XSD's list would fail the schema, and AEAT rejects the whole submission (4102).
export const codigoPais = z.enum(CODIGOS_PAIS, { error: 'codigoPais must be an ISO 3166-1 alpha-2 code in the AEAT list' });

/** 02 NIF-IVA, 03 pasaporte, 04 documento del país de residencia, 05 certificado de residencia, 06 otro, 07 no censado. */
export const idType = z.enum(['02', '03', '04', '05', '06', '07']);

export const idOtro = z.strictObject({
  codigoPais: codigoPais.optional(),
  idType,
  id: textoPlano(20),
});
export type IdOtro = z.infer<typeof idOtro>;

/** A recipient's or tercero's NIF with its check character: the AEAT refuses a wrong one (1123). */
const nifPersona = nifTerceroConCodigo(' (AEAT 1123)');

/** A party identified by Spanish NIF or by `idOtro`, never both (AEAT: "NIF o IDOtro, pero uno de los dos"). */
const persona = z
  .strictObject({
    nif: nifPersona.optional(),
    nombre: textoPlano(120),
    idOtro: idOtro.optional(),
  })
  .check((ctx) => {
    const { nif, idOtro: otro } = ctx.value;
    if (nif !== undefined && otro !== undefined) {
      ctx.issues.push({ code: 'custom', message: 'send either nif or idOtro, not both', path: ['idOtro'], input: otro });
    } else if (nif === undefined && otro === undefined) {
      ctx.issues.push({ code: 'custom', message: 'nif or idOtro is required', path: ['nif'], input: ctx.value });
    }
  });
export type Persona = z.infer<typeof persona>;

/** Régimen keys of the XSD (IdOperacionesTrascendenciaTributariaType). */
export const CLAVES_REGIMEN = [
  '01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '14', '15', '17', '18', '19', '20', '21',
] as const;

export const detalleDesglose = z
  .strictObject({
    impuesto: z.enum(['01', '02', '03', '05']).optional(),
    // The contract lists it as required, but AEAT forbids it for impuesto 05 (code 1260; IPSI 02 may carry one):
    // reglas.ts requires it for IVA/IGIC (code 1245) with the same 400.
    claveRegimen: z.enum(CLAVES_REGIMEN).optional(),
    calificacionOperacion: z.enum(['S1', 'S2', 'N1', 'N2']).optional(),
    operacionExenta: z.enum(['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8']).optional(),
    baseImponible: importe,
    tipoImpositivo: porcentaje.optional(),
    cuotaRepercutida: importe.optional(),
    tipoRecargoEquivalencia: porcentaje.optional(),
    cuotaRecargoEquivalencia: importe.optional(),
  })
  .check((ctx) => {
    const { calificacionOperacion: c, operacionExenta: e } = ctx.value;
    // AEAT 1195 / 1196: exactly one of the two.
    if (c !== undefined && e !== undefined) {
      ctx.issues.push({
        code: 'custom',
        message: 'calificacionOperacion and operacionExenta exclude each other (AEAT 1196)',
        path: ['operacionExenta'],
        input: e,
      });
    } else if (c === undefined && e === undefined) {
      ctx.issues.push({
        code: 'custom',
        message: 'calificacionOperacion or operacionExenta is required (AEAT 1195)',
        path: ['calificacionOperacion'],
        input: ctx.value,
      });
    }
  });
export type DetalleDesglose = z.infer<typeof detalleDesglose>;

/** Serie and numero are written as one NumSerieFactura (XSD TextMax60Type): the joined length is what the XSD limits. */
function checkNumSerieFactura(
  value: { serie?: string | undefined; numero: string },
  issues: z.core.$ZodRawIssue[],
  path: (string | number)[],
): void {
  if ((value.serie?.length ?? 0) + value.numero.length > 60) {
    issues.push({ code: 'custom', message: 'serie + numero form NumSerieFactura, at most 60 characters', path, input: value.numero });
  }
}

const idFacturaReferida = z
  .strictObject({
    serie: serieFactura.optional(),
    numero: numeroFactura,
    fechaExpedicion: fechaDdMmAaaa,
  })
  .check((ctx) => checkNumSerieFactura(ctx.value, ctx.issues, ['numero']));
export type IdFacturaReferida = z.infer<typeof idFacturaReferida>;

const rectificativa = z
  .strictObject({
    tipo: z.enum(['S', 'I']),
    importes: z
      .strictObject({
        baseRectificada: importe,
        cuotaRectificada: importe,
        cuotaRecargoRectificada: importe.optional(),
      })
      .optional(),
  })
  .check((ctx) => {
    const { tipo, importes } = ctx.value;
    if (tipo === 'S' && importes === undefined) {
      ctx.issues.push({
        code: 'custom',
        message: 'importes is required when tipo is S (AEAT 1118)',
        path: ['importes'],
        input: ctx.value,
      });
    } else if (tipo === 'I' && importes !== undefined) {
      ctx.issues.push({
        code: 'custom',
        message: 'importes must be absent when tipo is I (AEAT 1119)',
        path: ['importes'],
        input: importes,
      });
    }
  });
export type Rectificativa = z.infer<typeof rectificativa>;

const especial = z.strictObject({
  facturaSimplificadaArt7273: z.boolean().optional(),
  facturaSinIdentifDestinatarioArt61d: z.boolean().optional(),
  cupon: z.boolean().optional(),
  /** EmitidaPorTerceroODestinatario: T (a third party) or D (the recipient). */
  emitidaPor: z.enum(['T', 'D']).optional(),
  tercero: persona.optional(),
  numRegistroAcuerdoFacturacion: textoPlano(15).optional(),
  idAcuerdoSistemaInformatico: textoPlano(16).optional(),
});
export type Especial = z.infer<typeof especial>;

const facturaFields = {
  version: z.literal('1.0', { error: 'version must be "1.0"' }),
  emisor: z.strictObject({ nif: nifBasico, nombre: textoPlano(120) }),
  cabecera: z.strictObject({
    // Optional: an invoice may have no series (the spec's search says "omit when it has none").
    serie: serieFactura.optional(),
    numero: numeroFactura,
    fechaExpedicion: fechaDdMmAaaa,
    tipoFactura,
    descripcion: textoPlano(500),
    fechaOperacion: fechaDdMmAaaa.optional(),
  }),
  destinatario: persona.optional(),
  detalleDesglose: z
    .array(detalleDesglose)
    .min(1, { error: 'at least one detalleDesglose line is required' })
    .max(12, { error: 'at most 12 detalleDesglose lines (AEAT schema)' }),
  totales: z.strictObject({ cuotaTotal: importe, importeTotal: importe }),
  especial: especial.optional(),
  rectificativa: rectificativa.optional(),
  facturasRectificadas: z
    .array(idFacturaReferida)
    .min(1, { error: 'omit facturasRectificadas instead of sending it empty' })
    .max(1000)
    .optional(),
  facturasSustituidas: z
    .array(idFacturaReferida)
    .min(1, { error: 'omit facturasSustituidas instead of sending it empty' })
    .max(1000)
    .optional(),
  aux: z.strictObject({ refExterna: textoPlano(60) }).optional(),
  idMaquina: idMaquina.optional(),
};

interface FacturaShape {
  cabecera: { serie?: string | undefined; numero: string; tipoFactura: TipoFactura };
  facturasRectificadas?: unknown[] | undefined;
  facturasSustituidas?: unknown[] | undefined;
}

/** Shape rules that involve several fields; each names the offending field in `path`. */
function checkFactura(ctx: { value: FacturaShape; issues: z.core.$ZodRawIssue[] }) {
  const { cabecera, facturasRectificadas, facturasSustituidas } = ctx.value;
  checkNumSerieFactura(cabecera, ctx.issues, ['cabecera', 'numero']);
  if (facturasRectificadas !== undefined && !esRectificativa(cabecera.tipoFactura)) {
    ctx.issues.push({
      code: 'custom',
      message: 'facturasRectificadas is only allowed when tipoFactura is R1–R5 (AEAT 1117)',
      path: ['facturasRectificadas'],
      input: facturasRectificadas,
    });
  }
  if (facturasSustituidas !== undefined && cabecera.tipoFactura !== 'F3') {
    ctx.issues.push({
      code: 'custom',
      message: 'facturasSustituidas is only allowed when tipoFactura is F3 (AEAT 1116)',
      path: ['facturasSustituidas'],
      input: facturasSustituidas,
    });
  }
}

/** POST /v1/verifactu/crear */
export const verifactuCrearBody = z.strictObject(facturaFields).check(checkFactura);
export type VerifactuCrearBody = z.infer<typeof verifactuCrearBody>;
/** The invoice as the domain sees it: the parsed crear body. */
export type FacturaVerifactu = VerifactuCrearBody;

/** PUT /v1/verifactu/subsanar: the whole corrected invoice plus the correction flags. */
export const verifactuSubsanarBody = z
  .strictObject({
    ...facturaFields,
    subsanacion: z.union([z.literal(true), z.literal('S')], { error: 'subsanacion must be true or "S"' }),
    /** N: no prior rejection; S: AEAT rejected the record; X: AEAT has no record of it. */
    rechazoPrevio: z.enum(['N', 'S', 'X']).optional(),
  })
  .check(checkFactura);
export type VerifactuSubsanarBody = z.infer<typeof verifactuSubsanarBody>;

/** POST /v1/verifactu/anular */
export const verifactuAnularBody = z.strictObject({
  version: z.literal('1.0', { error: 'version must be "1.0"' }),
  sinRegistroPrevio: z.boolean().optional(),
  facturaAnulada: z
    .strictObject({
      nifEmisor: nifBasico,
      nombreEmisor: textoPlano(120).optional(),
      serie: serieFactura.optional(),
      numero: numeroFactura,
      fechaExpedicion: fechaDdMmAaaa,
    })
    .check((ctx) => checkNumSerieFactura(ctx.value, ctx.issues, ['numero'])),
  idMaquina: idMaquina.optional(),
});
export type VerifactuAnularBody = z.infer<typeof verifactuAnularBody>;

// ---------------------------------------------------------------- responses

export const huella = z.string().regex(/^[0-9A-F]{64}$/, { error: 'huella is 64 upper-case hex characters' });
export const fechaHoraHuso = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/, { error: 'expected YYYY-MM-DDThh:mm:ss±hh:mm' });

/** Answer of crear and subsanar. */
export const verifactuEmisionResponse = z.strictObject({
  ...emisionBaseFields,
  estado: z.literal('pendiente_proceso'),
  sistemaFiscal: z.literal('verifactu'),
  huella,
  fechaHoraHusoGenRegistro: fechaHoraHuso,
});
export type VerifactuEmisionResponse = z.infer<typeof verifactuEmisionResponse>;
export const verifactuCrearResponse = verifactuEmisionResponse;
export const verifactuSubsanarResponse = verifactuEmisionResponse;

/** Answer of anular. */
export const verifactuAnularResponse = z.strictObject({
  code: z.literal('SUCCESS'),
  data: z.strictObject({ ...anulacionDataBaseFields, huella }),
});
export type VerifactuAnularResponse = z.infer<typeof verifactuAnularResponse>;
