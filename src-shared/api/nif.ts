import { z } from 'zod';
import { textoPlano } from '../primitives';
import { timestampSchema } from './common';

/** The seven `estado` values of a NIF check (spec: NIF validation entry and result). */
export const estadoNifSchema = z.enum([
  'identificado',
  'similar',
  'identificado_baja',
  'identificado_revocado',
  'no_identificado',
  'no_procesado',
  'formato_invalido',
]);
export type EstadoNif = z.infer<typeof estadoNifSchema>;

export const NIF_BATCH_MAX = 100;
export const NIF_NOMBRE_MAX = 120;

/** One entry of `nifs[]`: `nif` as the caller writes it (its format is judged per entry, not here). */
export const nifEntradaSchema = z.strictObject({
  nif: z
    .string({ error: (i) => (i.input === undefined ? 'Required' : 'nif must be a string') })
    .min(1, { error: 'nif must not be empty' })
    .max(32, { error: 'nif: at most 32 characters' }),
  // Required even for a CIF, although the census ignores it then.
  nombre: textoPlano(NIF_NOMBRE_MAX),
});
export type NifEntrada = z.infer<typeof nifEntradaSchema>;

/** POST /v1/nif/validar */
export const nifValidarBodySchema = z.strictObject({
  nifs: z
    .array(nifEntradaSchema, { error: (i) => (i.input === undefined ? 'Required' : 'nifs must be an array') })
    .min(1, { error: `nifs needs 1 to ${NIF_BATCH_MAX} entries` })
    .max(NIF_BATCH_MAX, { error: `nifs needs 1 to ${NIF_BATCH_MAX} entries` }),
});
export type NifValidarBody = z.infer<typeof nifValidarBodySchema>;

export const resultadoNifSchema = z.object({
  /** As sent. */
  nif: z.string(),
  /** As sent. */
  nombre: z.string(),
  estado: estadoNifSchema,
  /** The census's own label, upper case; absent when the census said nothing on the entry. */
  resultadoAeat: z.string().optional(),
  /** Official name when the census answered a name different from the queried one; null otherwise. */
  nombreCenso: z.string().nullable(),
  /** Time of the census query that produced the verdict (its age when it comes from the cache). */
  validadoEn: timestampSchema,
});
export type ResultadoNif = z.infer<typeof resultadoNifSchema>;

export const nifValidarResponseSchema = z.object({ resultados: z.array(resultadoNifSchema) });
