import { z } from 'zod';
import { entornoSchema } from './common';
import { bloqueoEnvioSchema } from './facturas';

/** The sync view of the panel API: what support staff see of the offline queue. */
export const colaSchema = z.object({
  queueKey: z.string(),
  entorno: entornoSchema,
  autoridad: z.string(),
  obligado: z.string(),
  pendientes: z.number().int(),
  /** When the oldest record still waiting in this queue was created (null: nothing waits). */
  masAntiguoEn: z.string().nullable().optional(),
  siguienteEnvioEn: z.string().nullable(),
  reintentoEn: z.string().nullable(),
  /** When the worker will next try: the later of the flow-control wait and the back-off. */
  proximoIntentoEn: z.string().nullable(),
  fallosSeguidos: z.number().int(),
  alcanzable: z.boolean().nullable(),
  ultimoError: z.string().nullable(),
  ultimoErrorEn: z.string().nullable(),
  /** Held back by a fault only a person can fix (AEAT 4104…): why, and what to do; null otherwise. */
  bloqueo: bloqueoEnvioSchema.nullable().optional(),
});

export const syncResumenSchema = z.object({
  pausado: z.object({ test: z.boolean(), live: z.boolean() }),
  /** Records still in flight by estadoEnvio, and rejections not yet superseded (corrected or cancelled), per environment. */
  porEstadoEnvio: z.record(z.string(), z.record(z.string(), z.number().int())),
  rechazados: z.record(z.string(), z.number().int()),
  /** Records still in flight per till (idMaquina; null: sent without one), per environment and issuer. */
  porDispositivo: z.array(z.object({ entorno: entornoSchema, nif: z.string(), idMaquina: z.string().nullable(), pendientes: z.number().int() })).optional(),
  colas: z.array(colaSchema),
  autoridades: z.array(z.object({ autoridad: z.string(), entorno: entornoSchema, alcanzable: z.boolean().nullable() })),
});

export const loteSchema = z.object({
  idLote: z.string(),
  queueKey: z.string(),
  entorno: entornoSchema,
  autoridad: z.string(),
  obligado: z.string(),
  numRegistros: z.number().int(),
  incidencia: z.boolean(),
  estado: z.string(),
  intentos: z.number().int(),
  csv: z.string().nullable(),
  estadoEnvio: z.string().nullable(),
  creadoEn: z.string(),
  enviadoEn: z.string().nullable(),
  respondidoEn: z.string().nullable(),
  ultimoError: z.string().nullable(),
});

export const loteDetalleSchema = loteSchema.extend({ peticion: z.string(), respuesta: z.string().nullable() });

export const pausaBodySchema = z.strictObject({ entorno: entornoSchema, pausado: z.boolean() });
export const reintentarBodySchema = z.strictObject({ queueKey: z.string().optional() });
