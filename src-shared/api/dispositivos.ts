import { z } from 'zod';
import { idMaquina, textoPlano } from '../primitives';
import { entornoSchema, timestampSchema } from './common';
import { faseAltaCapacidadSchema, modoCadenaSchema } from './clientes';

/** Spec: Devices (management API), base path `/v1/clientes/{nif}/dispositivos`. */

export const SHARD0 = '__SHARD0__';

/** A series as reservable: 1–60 printable ASCII characters, no leading space. */
export const serieReservableSchema = z
  .string()
  .min(1, { error: 'la serie vacía no se puede reservar' })
  .max(60, { error: 'serie: como máximo 60 caracteres' })
  .regex(/^[\x21-\x7e][\x20-\x7e]*$/, { error: 'serie: caracteres ASCII imprimibles, sin espacio inicial' });

export const dispositivoSchema = z.object({
  idMaquina: z.string(),
  etiqueta: z.string(),
  creadoEn: timestampSchema,
  activo: z.boolean(),
  numeroInstalacion: z.string().optional(),
  dadoDeBajaEn: timestampSchema.optional(),
  reactivadoEn: timestampSchema.optional(),
});
export type Dispositivo = z.infer<typeof dispositivoSchema>;

export const serieReclamadaSchema = z.object({
  serie: z.string(),
  /** A device identifier or `__SHARD0__` (the centralized submission). */
  idMaquinaPropietaria: z.string(),
  reclamadaEn: timestampSchema,
});

export const idMaquinaVistoSchema = z.object({
  idMaquina: z.string(),
  primeraVez: timestampSchema,
  ultimaVez: timestampSchema,
  registrado: z.boolean(),
});

/** GET: always 200 for the account's issuer; `no_contratada` with empty lists is a state. */
export const dispositivosResponseSchema = z.object({
  entorno: entornoSchema,
  nif: z.string(),
  modoCadena: modoCadenaSchema,
  faseAltaCapacidad: faseAltaCapacidadSchema,
  /** Only in `preparacion`: notes of idMaquina start here. */
  observandoDesde: timestampSchema.optional(),
  activacionSolicitadaEn: timestampSchema.optional(),
  dispositivos: z.array(dispositivoSchema),
  series: z.array(serieReclamadaSchema),
  idsMaquinaVistos: z.array(idMaquinaVistoSchema),
});
export type DispositivosResponse = z.infer<typeof dispositivosResponseSchema>;

export const registrarDispositivoBodySchema = z.strictObject({
  idMaquina,
  // Spec: "empty string when none was given": `""` is accepted and means no label.
  etiqueta: z.union([z.literal(''), textoPlano(120)]).optional(),
});

export const dispositivoEnvelopeSchema = z.object({
  message: z.string(),
  entorno: entornoSchema,
  dispositivo: dispositivoSchema,
  /** Register of a deactivated identifier: true (answered with 200). */
  reactivado: z.literal(true).optional(),
});

export const promoverBodySchema = z
  .strictObject({ idsMaquina: z.array(idMaquina).max(1000).optional() })
  .nullish();

export const motivoOmitidoSchema = z.enum(['no_existe', 'dado_de_baja', 'ya_registrado']);

export const promoverResponseSchema = z.object({
  message: z.string(),
  origen: z.literal('test'),
  entorno: z.literal('live'),
  /** The identifiers created in LIVE. */
  creados: z.array(z.string()),
  omitidos: z.array(z.object({ idMaquina: z.string(), motivo: motivoOmitidoSchema })),
});

export const solicitarActivacionResponseSchema = z.object({
  message: z.string(),
  entorno: entornoSchema,
  solicitadoEn: timestampSchema,
});

export const reservarSeriesBodySchema = z.strictObject({
  series: z.array(serieReservableSchema).min(1, { error: 'series: de 1 a 100 series' }).max(100, { error: 'series: de 1 a 100 series' }),
});

export const reservarSeriesResponseSchema = z.object({
  message: z.string(),
  entorno: entornoSchema,
  /** Newly reserved plus those already centralized. */
  reservadas: z.array(z.string()),
  omitidas: z.array(z.object({ serie: z.string(), motivo: z.literal('propiedad_de_dispositivo'), idMaquina: z.string() })),
});

export const liberarSerieResponseSchema = z.object({ message: z.string(), entorno: entornoSchema, serie: z.string() });
