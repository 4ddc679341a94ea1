// Answers of panel routes whose schemas live in the engine rather than in src-shared (the renderer
// may import src-shared only). Parsed leniently: the UI needs these fields, extra ones are fine.
import { z } from 'zod';

/** GET /panel/v1/arranque */
export const arranqueSchema = z.object({
  billingUrl: z.string(),
  manageUrl: z.string(),
  panelUrl: z.string(),
  entornos: z.array(z.string()).optional(),
  claves: z.object({ test: z.string().optional(), live: z.string().optional() }),
  nifEmisor: z.string().optional(),
  idDispositivo: z.string().optional(),
  carpetaDatos: z.string().optional(),
});
export type Arranque = z.infer<typeof arranqueSchema>;

/** A verdict override of an emulator: AEAT codes are numbers, TicketBAI codes strings. */
const overrideSchema = z.object({ count: z.number(), codigo: z.union([z.number(), z.string()]) });

/** GET/PUT /panel/v1/emuladores/{aeat|censo|…}/faults (an emulator's fault state, relayed). */
export const faultsSchema = z.object({
  mode: z.string(),
  delayMs: z.number().optional(),
  times: z.number().nullable().optional(),
  rejectNext: overrideSchema.nullable().optional(),
  acceptWithErrorsNext: overrideSchema.nullable().optional(),
});
export type Faults = z.infer<typeof faultsSchema>;

export const colasReintentadasSchema = z.object({ colas: z.number() });

/** POST /panel/v1/sync/verificar-cadenas: every chain walked again, and what is wrong in them. */
export const verificacionCadenasSchema = z.object({
  correcto: z.boolean(),
  verificadoEn: z.string(),
  cadenas: z.array(
    z.object({
      clave: z.string(),
      entorno: z.string(),
      nif: z.string(),
      sistemaFiscal: z.string(),
      idMaquina: z.string().nullable(),
      registros: z.number(),
      correcta: z.boolean(),
    }),
  ),
  problemas: z.array(
    z.object({
      tipo: z.enum(['rotura', 'bifurcacion', 'enlace_colgante', 'firma_invalida', 'fuera_de_cadena']),
      clave: z.string(),
      idRegistro: z.string(),
      serie: z.string(),
      numero: z.string(),
      esperado: z.string().optional(),
      encontrado: z.string().optional(),
    }),
  ),
});
export type VerificacionCadenas = z.infer<typeof verificacionCadenasSchema>;
