// HTTP contract of the TicketBAI issuing endpoints (API-CONTRACT.md, "POST /v1/ticketbai/crear",
// "PUT /v1/ticketbai/subsanar", "POST /v1/ticketbai/anular"). Flatter than VeriFactu: the body
// mirrors the TicketBAI 1.2.2 XML (ticketbaiv1-2-2.xsd). Requests are strict objects: an unknown
// key is a 400 naming it. Cross-field rules that are pure shape live here, with `path` so that
// `campo` names the field.
import { z } from 'zod';
import { fechaDdMmAaaa, idMaquina, importe, importe8, nifBasico, porcentaje, textoPlano } from '../primitives';
import { nifTercero } from './common';
import { anulacionDataBaseFields, emisionBaseFields } from './emision';
import { codigoPais, TIPOS_FACTURA } from './verifactu';

export const PROVINCIAS = ['araba', 'bizkaia', 'gipuzkoa'] as const;
export const provincia = z.enum(PROVINCIAS, { error: 'provincia must be araba, bizkaia or gipuzkoa' });
export type Provincia = z.infer<typeof provincia>;

/**
 * F1 complete, F2 simplified, F3 issued in substitution of simplified ones, R1–R4 rectifying,
 * R5 rectifying a simplified one: the VeriFactu codes, so one client speaks both regimes. In the
 * XML they become FacturaSimplificada, FacturaEmitidaSustitucionSimplificada and
 * FacturaRectificativa/Codigo.
 */
export const tipoFacturaTbai = z.enum(TIPOS_FACTURA);
export type TipoFacturaTbai = z.infer<typeof tipoFacturaTbai>;

/** ClaveRegimenIvaOpTrascendencia of ticketbaiv1-2-2.xsd (IdOperacionesTrascendenciaTributariaType). */
export const CLAVES_REGIMEN_TBAI = [
  '01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14', '15', '17', '19', '51', '52', '53', '54',
] as const;
export const claveRegimenTbai = z.enum(CLAVES_REGIMEN_TBAI);

/** CausaExencionType: E1–E6 (articles 20–25 of the Norma Foral del IVA, or another cause). */
export const CAUSAS_EXENCION = ['E1', 'E2', 'E3', 'E4', 'E5', 'E6'] as const;
/** CausaNoSujetaType: OT art. 7 / other, RL localisation rules, VT sales for third parties, IE. */
export const CAUSAS_NO_SUJECION = ['OT', 'RL', 'VT', 'IE'] as const;
/** DesgloseTipoOperacion: required by the treasuries for foreign recipients. */
export const TIPOS_OPERACION = ['entrega', 'prestacion_servicios'] as const;

// ---------------------------------------------------------------- field schemas

// Control characters (C0 incl. tab/LF/CR, DEL, C1 incl. NEL) and line/paragraph separators: the
// XSD allows them, but they break the printed ticket, the TBAI identifier and the QR's s/nf.
const NO_IMPRIMIBLE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

/**
 * SerieFactura / NumFactura (TextMax20): printable plain text, no surrounding spaces (the
 * identity compares them).
 */
function serieNumeroTbai() {
  return textoPlano(20).check((ctx) => {
    const v = ctx.value;
    if (NO_IMPRIMIBLE.test(v)) {
      ctx.issues.push({ code: 'custom', message: 'only printable characters (no tab, line break or control character)', input: v });
    } else if (v.trim() !== v && v.trim() !== '') {
      ctx.issues.push({ code: 'custom', message: 'must not start or end with spaces', input: v });
    }
  });
}
export const serieTbai = serieNumeroTbai();
export const numeroTbai = serieNumeroTbai();

/** HoraExpedicionFactura: HH:MM:SS, a real time of day. */
export const horaHhMmSs = z
  .string({ error: 'horaExpedicion must be a string HH:MM:SS' })
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d$/, { error: 'horaExpedicion must be HH:MM:SS (00:00:00–23:59:59)' });

/** Line amounts: up to 8 decimals (1.2.2), never negative for a discount. */
const descuento = importe8.check((ctx) => {
  if (ctx.value.startsWith('-')) ctx.issues.push({ code: 'custom', message: 'descuento must not be negative', input: ctx.value });
});

const idOtroTbai = z.strictObject({
  codigoPais: codigoPais.optional(),
  /** 02 NIF-IVA, 03 pasaporte, 04 documento oficial del país, 05 certificado de residencia, 06 otro. */
  idType: z.enum(['02', '03', '04', '05', '06']),
  id: textoPlano(20),
});

/** IDDestinatario: NIF or IDOtro (never both), name, optional postcode and address. */
export const destinatarioTbai = z
  .strictObject({
    nif: nifTercero.optional(),
    idOtro: idOtroTbai.optional(),
    nombre: textoPlano(120),
    codigoPostal: textoPlano(20).optional(),
    direccion: textoPlano(250).optional(),
  })
  .superRefine((d, ctx) => {
    if (d.nif !== undefined && d.idOtro !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'send either nif or idOtro, not both', path: ['idOtro'] });
    } else if (d.nif === undefined && d.idOtro === undefined) {
      ctx.addIssue({ code: 'custom', message: 'nif or idOtro is required', path: ['nif'] });
    }
  });
export type DestinatarioTbai = z.infer<typeof destinatarioTbai>;

function esCero(v: string): boolean {
  return /^-?0+(?:\.0+)?$/.test(v);
}

/**
 * One line of the VAT breakdown. A line is "sujeta y no exenta" (DetalleIVA under TipoNoExenta
 * S1/S2), "exenta" (operacionExenta) or "no sujeta" (causaNoSujecion). The contract lists
 * tipoImpositivo and cuota without "?": they are required on taxed lines, and on exempt or
 * non-subject lines accepted only as zero (the XML has no place for them there).
 */
export const detalleDesgloseTbai = z
  .strictObject({
    baseImponible: importe,
    tipoImpositivo: porcentaje.optional(),
    cuota: importe.optional(),
    tipoRecargoEquivalencia: porcentaje.optional(),
    cuotaRecargoEquivalencia: importe.optional(),
    calificacionOperacion: z.enum(['S1', 'S2']).optional(),
    operacionExenta: z.enum(CAUSAS_EXENCION).optional(),
    causaNoSujecion: z.enum(CAUSAS_NO_SUJECION).optional(),
    tipoOperacion: z.enum(TIPOS_OPERACION).optional(),
    // Sent by the hosted service's own clients on each line: kept with the invoice's data, not
    // filed (TicketBAI's DetalleIVA has no place for a description).
    descripcion: textoPlano(250).optional(),
  })
  .superRefine((d, ctx) => {
    const kinds = [d.calificacionOperacion, d.operacionExenta, d.causaNoSujecion].filter((k) => k !== undefined);
    if (kinds.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: 'calificacionOperacion, operacionExenta and causaNoSujecion exclude each other',
        path: [d.operacionExenta !== undefined && d.calificacionOperacion !== undefined ? 'operacionExenta' : 'causaNoSujecion'],
      });
      return;
    }
    const gravada = d.operacionExenta === undefined && d.causaNoSujecion === undefined;
    if (gravada) {
      if (d.tipoImpositivo === undefined) ctx.addIssue({ code: 'custom', message: 'Required', path: ['tipoImpositivo'] });
      if (d.cuota === undefined) ctx.addIssue({ code: 'custom', message: 'Required', path: ['cuota'] });
      if ((d.tipoRecargoEquivalencia === undefined) !== (d.cuotaRecargoEquivalencia === undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: 'tipoRecargoEquivalencia and cuotaRecargoEquivalencia go together',
          path: [d.tipoRecargoEquivalencia === undefined ? 'tipoRecargoEquivalencia' : 'cuotaRecargoEquivalencia'],
        });
      }
      return;
    }
    const why = d.operacionExenta !== undefined ? 'an exempt line (operacionExenta)' : 'a non-subject line (causaNoSujecion)';
    for (const campo of ['tipoImpositivo', 'cuota'] as const) {
      const v = d[campo];
      if (v !== undefined && !esCero(v)) ctx.addIssue({ code: 'custom', message: `${campo} must be absent or zero on ${why}`, path: [campo] });
    }
    for (const campo of ['tipoRecargoEquivalencia', 'cuotaRecargoEquivalencia'] as const) {
      if (d[campo] !== undefined) ctx.addIssue({ code: 'custom', message: `${campo} is not allowed on ${why}`, path: [campo] });
    }
  });
export type DetalleDesgloseTbai = z.infer<typeof detalleDesgloseTbai>;

/** IDDetalleFactura. importeUnitario is without VAT; importeTotal with VAT, after the discount. */
export const lineaTbai = z.strictObject({
  descripcion: textoPlano(250),
  cantidad: importe8.default('1'),
  importeUnitario: importe8,
  descuento: descuento.optional(),
  importeTotal: importe8,
});
export type LineaTbai = z.infer<typeof lineaTbai>;

export const facturaReferidaTbai = z.strictObject({
  serie: serieTbai.optional(),
  numero: numeroTbai,
  fechaExpedicion: fechaDdMmAaaa,
});
export type FacturaReferidaTbai = z.infer<typeof facturaReferidaTbai>;

/** FacturaRectificativa: S (por sustitución) carries the rectified amounts, I (por diferencias) does not. */
export const rectificativaTbai = z
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
  .superRefine((r, ctx) => {
    if (r.tipo === 'S' && r.importes === undefined) {
      ctx.addIssue({ code: 'custom', message: 'importes is required when tipo is S', path: ['importes'] });
    } else if (r.tipo === 'I' && r.importes !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'importes must be absent when tipo is I', path: ['importes'] });
    }
  });
export type RectificativaTbai = z.infer<typeof rectificativaTbai>;

// XSD limits of the breakdown groups: DetalleExenta ≤ 7, DetalleIVA ≤ 12 per S1/S2, DetalleNoSujeta ≤ 4.
const MAX_POR_GRUPO = { exenta: 7, S1: 12, S2: 12, noSujeta: 4 } as const;

const facturaFields = {
  provincia,
  emisor: z.strictObject({ nif: nifBasico, nombre: textoPlano(120) }),
  // Optional: SerieFactura has minOccurs=0 and an invoice may have no series.
  serie: serieTbai.optional(),
  numero: numeroTbai,
  fechaExpedicion: fechaDdMmAaaa,
  horaExpedicion: horaHhMmSs.optional(),
  tipoFactura: tipoFacturaTbai,
  importeTotal: importe,
  descripcion: textoPlano(250).optional(),
  destinatario: destinatarioTbai.optional(),
  clavesRegimen: z
    .array(claveRegimenTbai)
    .min(1, { error: 'omit clavesRegimen instead of sending it empty' })
    .max(3, { error: 'at most 3 clavesRegimen (TicketBAI schema)' })
    .optional(),
  desglose: z.array(detalleDesgloseTbai).min(1, { error: 'at least one desglose line is required' }),
  lineas: z
    .array(lineaTbai)
    .min(1, { error: 'omit lineas instead of sending it empty' })
    .max(1000, { error: 'at most 1000 lineas (TicketBAI schema)' })
    .optional(),
  rectificativa: rectificativaTbai.optional(),
  facturasRectificadas: z
    .array(facturaReferidaTbai)
    .min(1, { error: 'omit facturasRectificadas instead of sending it empty' })
    .max(100, { error: 'at most 100 facturasRectificadas (TicketBAI schema)' })
    .optional(),
  facturasSustituidas: z
    .array(facturaReferidaTbai)
    .min(1, { error: 'omit facturasSustituidas instead of sending it empty' })
    .max(100, { error: 'at most 100 facturasSustituidas (TicketBAI schema)' })
    .optional(),
  idMaquina: idMaquina.optional(),
};

interface FacturaShape {
  provincia: Provincia;
  tipoFactura: TipoFacturaTbai;
  desglose: DetalleDesgloseTbai[];
  lineas?: unknown[] | undefined;
  rectificativa?: unknown;
  facturasRectificadas?: unknown[] | undefined;
  facturasSustituidas?: unknown[] | undefined;
}

/** Rules that involve several fields; each names the offending field in `path`. */
function checkFactura(f: FacturaShape, ctx: z.RefinementCtx): void {
  if (f.provincia === 'araba' && f.lineas === undefined) {
    // Araba rejects an invoice without detail lines (its code 003: "no detail lines").
    ctx.addIssue({ code: 'custom', message: 'lineas is required in Araba', path: ['lineas'] });
  }
  const esR = f.tipoFactura.startsWith('R');
  if (esR && f.rectificativa === undefined) {
    ctx.addIssue({ code: 'custom', message: 'rectificativa is required when tipoFactura is R1–R5', path: ['rectificativa'] });
  } else if (!esR && f.rectificativa !== undefined) {
    ctx.addIssue({ code: 'custom', message: 'rectificativa is only allowed when tipoFactura is R1–R5', path: ['rectificativa'] });
  }
  if (f.facturasRectificadas !== undefined && !esR) {
    ctx.addIssue({ code: 'custom', message: 'facturasRectificadas is only allowed when tipoFactura is R1–R5', path: ['facturasRectificadas'] });
  }
  if (f.facturasSustituidas !== undefined && f.tipoFactura !== 'F3') {
    ctx.addIssue({ code: 'custom', message: 'facturasSustituidas is only allowed when tipoFactura is F3', path: ['facturasSustituidas'] });
  }
  // One FacturasRectificadasSustituidas element carries both lists: at most 100 in all.
  if ((f.facturasRectificadas?.length ?? 0) + (f.facturasSustituidas?.length ?? 0) > 100) {
    ctx.addIssue({ code: 'custom', message: 'at most 100 facturasRectificadas and facturasSustituidas together', path: ['facturasSustituidas'] });
  }
  const conTipo = f.desglose.filter((d) => d.tipoOperacion !== undefined).length;
  if (conTipo !== 0 && conTipo !== f.desglose.length) {
    ctx.addIssue({
      code: 'custom',
      message: 'tipoOperacion must be given on every desglose line or on none (DesgloseFactura vs DesgloseTipoOperacion)',
      path: ['desglose', f.desglose.findIndex((d) => d.tipoOperacion === undefined), 'tipoOperacion'],
    });
  }
  const grupos = new Map<string, number>();
  for (const d of f.desglose) {
    const grupo = d.operacionExenta !== undefined ? 'exenta' : d.causaNoSujecion !== undefined ? 'noSujeta' : (d.calificacionOperacion ?? 'S1');
    const key = (d.tipoOperacion ?? '') + '/' + grupo;
    grupos.set(key, (grupos.get(key) ?? 0) + 1);
  }
  for (const [key, n] of grupos) {
    const grupo = key.slice(key.indexOf('/') + 1) as keyof typeof MAX_POR_GRUPO;
    if (n > MAX_POR_GRUPO[grupo]) {
      ctx.addIssue({
        code: 'custom',
        message: `at most ${MAX_POR_GRUPO[grupo]} desglose lines of kind ${grupo}${key.startsWith('/') ? '' : ` for ${key.slice(0, key.indexOf('/'))}`} (TicketBAI schema)`,
        path: ['desglose'],
      });
    }
  }
}

/** POST /v1/ticketbai/crear */
export const ticketbaiCrearBody = z.strictObject(facturaFields).superRefine(checkFactura);
export type TicketbaiCrearBody = z.infer<typeof ticketbaiCrearBody>;
/** The invoice as the domain sees it: the parsed crear (or subsanar) body. */
export type FacturaTicketbai = TicketbaiCrearBody;

/** PUT /v1/ticketbai/subsanar: the whole corrected invoice plus `subsanacion: true`. */
export const ticketbaiSubsanarBody = z
  .strictObject({ ...facturaFields, subsanacion: z.literal(true, { error: 'subsanacion must be true' }) })
  .superRefine(checkFactura);
export type TicketbaiSubsanarBody = z.infer<typeof ticketbaiSubsanarBody>;

/** POST /v1/ticketbai/anular: flat. */
export const ticketbaiAnularBody = z.strictObject({
  nifEmisor: nifBasico,
  serie: serieTbai.optional(),
  numero: numeroTbai,
  fechaExpedicion: fechaDdMmAaaa,
  provincia,
  idMaquina: idMaquina.optional(),
});
export type TicketbaiAnularBody = z.infer<typeof ticketbaiAnularBody>;

// ---------------------------------------------------------------- responses

/** TBAI-{NIF}-{DDMMAA}-{13 chars of SignatureValue}-{CRC-8, 3 digits}: 39 characters. */
export const idTbai = z
  .string()
  .regex(/^TBAI-[A-Z0-9]{9}-\d{6}-[A-Za-z0-9+/=]{13}-\d{3}$/, { error: 'idTbai is TBAI-NIF-DDMMAA-13 signature chars-CRC (39 characters)' });

/** Answer of crear and subsanar. */
export const ticketbaiEmisionResponse = z.strictObject({
  ...emisionBaseFields,
  estado: z.literal('en_cola'),
  sistemaFiscal: z.literal('ticketbai'),
  idTbai,
  /** subsanar only: the correction went through Zuzendu and kept idTbai, QR and signature. */
  viaZuzendu: z.boolean().optional(),
});
export type TicketbaiEmisionResponse = z.infer<typeof ticketbaiEmisionResponse>;
export const ticketbaiCrearResponse = ticketbaiEmisionResponse;
export const ticketbaiSubsanarResponse = ticketbaiEmisionResponse;

/** Answer of anular: VeriFactu's shape, with the cancelled invoice's idTbai instead of huella. */
export const ticketbaiAnularResponse = z.strictObject({
  code: z.literal('SUCCESS'),
  data: z.strictObject({ ...anulacionDataBaseFields, idTbai }),
});
export type TicketbaiAnularResponse = z.infer<typeof ticketbaiAnularResponse>;
