import { z } from 'zod';
import { entornoSchema, sistemaFiscalSchema } from './common';

/**
 * Chain verification (issue 15): `POST /panel/v1/sync/verificar-cadenas` and
 * `npm run admin -- verify-chains --json` answer this shape. Every link is recomputed from the
 * stored record XML alone.
 */
export const TIPOS_PROBLEMA_CADENA = ['rotura', 'bifurcacion', 'enlace_colgante', 'firma_invalida', 'fuera_de_cadena'] as const;
export const tipoProblemaCadenaSchema = z.enum(TIPOS_PROBLEMA_CADENA);
export type TipoProblemaCadena = z.infer<typeof tipoProblemaCadenaSchema>;

export const cadenaVerificadaSchema = z.strictObject({
  /** The chain as stored (entorno|sistema|nif[|device]). */
  clave: z.string(),
  entorno: entornoSchema,
  nif: z.string(),
  sistemaFiscal: sistemaFiscalSchema,
  /** The device every record of the chain declares, or null when none or several. */
  idMaquina: z.string().nullable(),
  registros: z.number().int(),
  correcta: z.boolean(),
});
export type CadenaVerificada = z.infer<typeof cadenaVerificadaSchema>;

export const problemaCadenaSchema = z.strictObject({
  /**
   * rotura: a record's content or link does not match (its huella, or the predecessor it names);
   * bifurcacion: a second record claims a predecessor (or the chain start) already claimed;
   * enlace_colgante: the predecessor a record names is not in the chain (deleted, never stored);
   * firma_invalida: a TicketBAI XAdES signature does not verify;
   * fuera_de_cadena: a record in the outbox (or the chain table) without its chained record.
   */
  tipo: tipoProblemaCadenaSchema,
  clave: z.string(),
  idRegistro: z.string(),
  serie: z.string(),
  numero: z.string(),
  esperado: z.string().optional(),
  encontrado: z.string().optional(),
});
export type ProblemaCadena = z.infer<typeof problemaCadenaSchema>;

export const verificacionCadenasSchema = z.strictObject({
  correcto: z.boolean(),
  verificadoEn: z.string(),
  cadenas: z.array(cadenaVerificadaSchema),
  problemas: z.array(problemaCadenaSchema),
});
export type VerificacionCadenas = z.infer<typeof verificacionCadenasSchema>;

/** Optional filters of the panel route (query string). */
export const verificarCadenasQuerySchema = z.strictObject({
  nif: z.string().regex(/^[A-Z0-9]{9}$/, { error: 'NIF must be 9 upper-case letters or digits' }).optional(),
  entorno: entornoSchema.optional(),
});
