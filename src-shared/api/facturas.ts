import { z } from 'zod';
import { parametroConsulta, sistemaFiscalSchema, timestampSchema } from './common';

export const estadoFacturaSchema = z.enum(['registrada', 'anulada', 'rectificada']);
export const estadoEnvioSchema = z.enum([
  'pendiente_proceso',
  'pendiente_envio',
  'en_lote',
  'en_cola',
  'procesando',
  'rechazada',
  'aceptada_con_errores',
  'desconocido',
  'no_remitida',
]);

/** List item of GET /v1/facturas. */
export const facturaListItemSchema = z.object({
  idFactura: z.string(),
  nifEmisor: z.string(),
  numeroFactura: z.string(),
  tipoFactura: z.string().optional(),
  importeTotal: z.string().optional(),
  cuotaTotal: z.string().optional(),
  sistemaFiscal: sistemaFiscalSchema,
  estadoFactura: estadoFacturaSchema.optional(),
  estadoEnvio: estadoEnvioSchema.optional(),
  fechaRegistro: timestampSchema,
  ultimaModificacion: timestampSchema,
  urlQr: z.string().optional(),
  hashVerifactu: z.string().optional(),
  csvAeat: z.string().optional(),
  idTbai: z.string().optional(),
});

export const facturasListResponseSchema = z.object({
  facturas: z.array(facturaListItemSchema),
  total: z.number().int(),
  nifEmisor: z.string(),
  nombreEmisor: z.string(),
  proximaPagina: z.string().nullable(),
  filtros: z.record(z.string(), z.string()).optional(),
});

/** Why a submission waits for a person (engine/src/submission/blocked.ts); `motivo` is what UIs map to words. */
export const bloqueoEnvioSchema = z.object({
  codigo: z.string(),
  motivo: z.enum(['nif_emisor_no_identificado', 'nif_representante_no_identificado', 'certificado_no_autorizado']),
  descripcion: z.string().nullable(),
  accion: z.string(),
  desde: z.string().nullable(),
  reintentoEn: z.string().nullable(),
});

/**
 * GET /v1/facturas/{id}/estado: `estadoFactura` null while submission has not concluded; absent
 * when it concluded in a rejection (`estadoEnvio: rechazada`, no `estadoFactura`).
 */
export const estadoFacturaResponseSchema = z.object({
  idFactura: z.string(),
  numeroFactura: z.string(),
  estadoEnvio: estadoEnvioSchema.optional(),
  estadoFactura: estadoFacturaSchema.nullable().optional(),
  /**
   * Beyond the spec: the submission is held back by a fault only a person can fix (AEAT 4104, the
   * issuer's NIF not identified…); the records are kept and sent again once it is fixed.
   */
  bloqueoEnvio: bloqueoEnvioSchema.optional(),
  csvAeat: z.string().optional(),
  sistemaFiscal: sistemaFiscalSchema,
  ultimaModificacion: timestampSchema,
});

export const tipoRegistroSchema = z.enum(['alta', 'subsanacion', 'anulacion']);
export const estadoRegistroSchema = z.enum(['pendiente', 'procesando', 'aceptada', 'rechazada']);

/** A billing record as the lists show it. */
export const registroSchema = z.object({
  idRegistro: z.string(),
  idFactura: z.string(),
  tipo: tipoRegistroSchema,
  estado: estadoRegistroSchema,
  estadoEnvio: estadoEnvioSchema.optional(),
  estadoEnvioFinal: z.enum(['registrada', 'rechazada']).optional(),
  codigoRespuestaAeat: z.string().optional(),
  descripcionRespuestaAeat: z.string().optional(),
  csvAeat: z.string().optional(),
  creadoEn: timestampSchema,
  envioCompletadoEn: timestampSchema.optional(),
  idLote: z.string().optional(),
  idMaquina: z.string().optional(),
  huella: z.string().optional(),
  numeroFactura: z.string(),
  tipoRespuestaTbai: z.string().optional(),
  codigoRespuestaTbai: z.string().optional(),
  mensajeRespuestaTbai: z.string().optional(),
  idRegistroTbai: z.string().optional(),
  provincia: z.string().optional(),
});

/** Record detail: the list fields plus the detail extras of the spec. */
export const registroDetalleSchema = registroSchema.extend({
  cuotaTotal: z.string().optional(),
  sistemaFiscal: sistemaFiscalSchema,
  ultimaModificacion: timestampSchema,
  esRectificativa: z.boolean().optional(),
  tipoRectificativa: z.string().optional(),
  fechaExpedicion: z.string().optional(),
  sinRegistroPrevio: z.boolean().optional(),
  rechazoPrevio: z.string().optional(),
});

export const registrosListResponseSchema = z.object({
  registros: z.array(registroSchema),
  total: z.number().int(),
  nifEmisor: z.string(),
  nombreEmisor: z.string(),
  proximaPagina: z.string().nullable(),
});

/** The `factura` of the detail envelope; `estadoFactura: procesando` in the minimal view. */
export const facturaDetalleSchema = z.object({
  idFactura: z.string(),
  nifEmisor: z.string(),
  numeroFactura: z.string(),
  /** Absent when the invoice has no series. */
  serie: z.string().min(1).optional(),
  numero: z.string(),
  fechaExpedicion: z.string(),
  tipoFactura: z.string().optional(),
  importeTotal: z.string().optional(),
  cuotaTotal: z.string().optional(),
  sistemaFiscal: sistemaFiscalSchema,
  estadoFactura: z.union([estadoFacturaSchema, z.literal('procesando')]).optional(),
  estadoEnvio: estadoEnvioSchema.optional(),
  fechaRegistro: timestampSchema,
  ultimaModificacion: timestampSchema,
  urlValidacion: z.string().optional(),
  urlQr: z.string().optional(),
  hashVerifactu: z.string().optional(),
  csvAeat: z.string().optional(),
  idTbai: z.string().optional(),
  provincia: z.string().optional(),
  idMaquina: z.string().optional(),
  descripcion: z.string().optional(),
  destinatario: z.unknown().optional(),
});

export const facturaEnvelopeSchema = z.object({
  factura: facturaDetalleSchema,
  registros: z.array(registroDetalleSchema),
  totalRegistros: z.number().int(),
});

// ---------------------------------------------------------------- query parameters (documentation)

const nifEmisorParam = parametroConsulta('NIF del emisor; debe pertenecer a la cuenta de la clave', { obligatorio: true });
const limiteParam = parametroConsulta('Entero ≥ 1; por defecto 100, máximo 500 (un valor mayor se recorta); otro valor da 400 INVALID_PARAMETER');
const cursorParam = parametroConsulta('El proximaPagina de la página anterior');

/** GET /v1/facturas */
export const facturasListQuerySchema = z.object({
  nifEmisor: nifEmisorParam,
  fechaInicio: parametroConsulta('Desde esta fecha de registro, ISO 8601; una fecha sola (AAAA-MM-DD) es el día de Madrid'),
  fechaFin: parametroConsulta('Hasta esta fecha de registro, ISO 8601; una fecha sola (AAAA-MM-DD) incluye todo el día de Madrid'),
  estado: parametroConsulta('registrada, anulada o rectificada'),
  sistemaFiscal: parametroConsulta('verifactu o ticketbai'),
  limite: limiteParam,
  cursor: cursorParam,
});

/** GET /v1/facturas/buscar */
export const facturasBuscarQuerySchema = z.object({
  nifEmisor: nifEmisorParam,
  serie: parametroConsulta('Serie, sin el número (como máximo 60 caracteres); se omite si la factura no tiene serie'),
  numero: parametroConsulta('Número sin la serie (como máximo 60 caracteres); falta → 400 MISSING_PARAMETER', { obligatorio: true }),
  fechaExpedicion: parametroConsulta('dd-mm-aaaa; falta → 400 MISSING_PARAMETER', { obligatorio: true }),
});

/** GET /v1/facturas/{idFactura}, /estado, /qr, /xml */
export const facturaQuerySchema = z.object({ nifEmisor: nifEmisorParam });

/** GET /v1/registros */
export const registrosListQuerySchema = z.object({ nifEmisor: nifEmisorParam, limite: limiteParam, cursor: cursorParam });

/** GET /v1/registros/{idRegistro} */
export const registroQuerySchema = z.object({
  nifEmisor: nifEmisorParam,
  idFactura: parametroConsulta('Factura a la que pertenece el registro', { obligatorio: true }),
});
