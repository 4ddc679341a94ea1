import { z } from 'zod';
import { entornoSchema, timestampSchema } from './common';

export const estadoCuentaSchema = z.enum([
  'activa',
  'prueba',
  'suspendida',
  'cancelada',
  'desconocido',
  'pago_pendiente',
]);
export type EstadoCuenta = z.infer<typeof estadoCuentaSchema>;

export const consumoSchema = z.object({
  usadas: z.number().int(),
  restantes: z.number().int(),
  limite: z.number().int(),
  periodo: z.string(),
  observadoEn: timestampSchema,
});

/** GET /v1/cuenta — the spec's Account resource. */
export const cuentaResponseSchema = z.object({
  entorno: entornoSchema,
  plan: z.string(),
  estadoCuenta: estadoCuentaSchema,
  facturacionActiva: z.boolean(),
  nifClientePrincipal: z.string(),
  consumo: consumoSchema.optional(),
  consultadoEn: timestampSchema,
});
export type CuentaResponse = z.infer<typeof cuentaResponseSchema>;

/** GET /v1/cumplimiento/declaracion-responsable */
export const declaracionResponseSchema = z.object({
  url: z.string(),
  key: z.string(),
  lastModified: timestampSchema,
  storageClass: z.string(),
});
