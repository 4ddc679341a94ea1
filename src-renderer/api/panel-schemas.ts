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

/** GET/PUT /panel/v1/emuladores/aeat/faults (the emulator's fault state, relayed). */
export const faultsSchema = z.object({
  mode: z.string(),
  delayMs: z.number().optional(),
  times: z.number().nullable().optional(),
  rejectNext: z.object({ count: z.number(), codigo: z.number() }).nullable().optional(),
  acceptWithErrorsNext: z.object({ count: z.number(), codigo: z.number() }).nullable().optional(),
});
export type Faults = z.infer<typeof faultsSchema>;

export const colasReintentadasSchema = z.object({ colas: z.number() });
