import { z } from 'zod';
import { validateNif } from '../nif';
import { NIF_BASICO, nifBasico } from '../primitives';

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

/**
 * A recipient's or third party's Spanish NIF: the shape, then the check character (nif.ts), so a
 * mistyped NIF is a 400 here instead of an AEAT rejection after the invoice is already chained.
 */
export const nifTercero = nifTerceroConCodigo();

/** `nifTercero` whose message ends with the authority's code for it (VeriFactu: ` (AEAT 1123)`). */
export function nifTerceroConCodigo(codigo = '') {
  return nifBasico.check((ctx) => {
    // A bad shape already has its issue from nifBasico: one message per fault.
    if (!NIF_BASICO.test(ctx.value)) return;
    const r = validateNif(ctx.value);
    if (!r.valid) ctx.issues.push({ code: 'custom', message: `invalid NIF: ${r.reason}${codigo}`, input: ctx.value });
  });
}

/** What `nifTercero` accepts. */
export function esNifTercero(value: string): boolean {
  return NIF_BASICO.test(value) && validateNif(value).valid;
}

/** Marker key `parametroConsulta` puts on a required parameter's schema; removed from the document. */
export const MARCA_OBLIGATORIO = 'x-obligatorio';

/**
 * A query parameter as the OpenAPI document shows it. Always an optional string to zod: the
 * handlers apply the spec's rules themselves (MISSING_PARAMETER, INVALID_PARAMETER, defaults),
 * so validation never answers a different error. `obligatorio` only marks it required in the
 * document (see the OpenAPI transform in engine/src/http/server.ts).
 */
export function parametroConsulta(description: string, opciones: { obligatorio?: boolean } = {}) {
  return z
    .string()
    .optional()
    .meta({ description, ...(opciones.obligatorio === true ? { [MARCA_OBLIGATORIO]: true } : {}) });
}
