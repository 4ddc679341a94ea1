// Answers of panel routes whose schemas live in the engine rather than in src-shared (the renderer
// may import src-shared only). Parsed leniently: the UI needs these fields, extra ones are fine.
import { z } from 'zod';

/** GET /panel/v1/arranque */
export const arranqueSchema = z.object({
  billingUrl: z.string(),
  manageUrl: z.string(),
  panelUrl: z.string(),
  entornos: z.array(z.string()).optional(),
  /** Each key's ending only (`…abcd`): the raw keys never reach the page. */
  clavesFinal: z.object({ test: z.string().optional(), live: z.string().optional() }),
  /** `caja` (a till's own credential): the administrator's controls answer 403 ADMIN_REQUIRED. */
  rol: z.enum(['administrador', 'caja']).optional(),
  /** LIVE is filed to the emulators: the UI says so on every screen while in LIVE. */
  liveEnEmulador: z.boolean().optional(),
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

/** GET /panel/v1/sync/alcance: whether each authority answers now (engine/src/submission/reachability.ts). */
export const alcanceSchema = z.object({
  entorno: z.enum(['test', 'live']),
  autoridades: z.array(z.object({ autoridad: z.string(), entorno: z.enum(['test', 'live']), alcanzable: z.boolean(), comprobadoEn: z.string() })),
});
export type Alcance = z.infer<typeof alcanceSchema>;
