import { z } from 'zod';

export const entornoSchema = z.enum(['test', 'live']);
export type Entorno = z.infer<typeof entornoSchema>;

export const sistemaFiscalSchema = z.enum(['verifactu', 'ticketbai']);
export type SistemaFiscal = z.infer<typeof sistemaFiscalSchema>;

export const haciendaSchema = z.enum(['verifactu', 'tbai-araba', 'tbai-bizkaia', 'tbai-gipuzkoa']);
export type Hacienda = z.infer<typeof haciendaSchema>;

/** ISO 8601 UTC with `Z`, as every generated timestamp of the spec. */
export const timestampSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/);

/** The flat error body of API-CONTRACT ("Everywhere"). */
export const errorBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  campo: z.string().optional(),
  errors: z.array(z.string()).optional(),
  resultados: z.array(z.unknown()).optional(),
  camposBloqueados: z.array(z.string()).optional(),
  camposFaltantes: z.array(z.string()).optional(),
  details: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** What an API gateway answers for a missing, unknown or revoked key: no `code`. */
export const gatewayForbiddenSchema = z.object({ message: z.literal('Forbidden') });
