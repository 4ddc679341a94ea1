import { z } from 'zod';
import { entornoSchema, parametroConsulta, timestampSchema } from './common';

/**
 * «NO VERI*FACTU» (issue 32, our extension): the mode of an issuer's installation and its event
 * log (RegistroEvento of the AEAT's EventosSIF.xsd).
 */
export const modoSifSchema = z
  .enum(['verifactu', 'no_verifactu'])
  .meta({ description: 'Extensión: modo del sistema de la instalación del emisor (VERI*FACTU remite cada registro; NO VERI*FACTU los firma y conserva con un registro de eventos)' });
export type ModoSifApi = z.infer<typeof modoSifSchema>;

/** TipoEvento of EventosSIF.xsd. */
export const tipoEventoSchema = z.enum(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '90']);

export const eventoSifSchema = z.object({
  idEvento: z.string(),
  /** Position in the installation's chain, from 1. */
  secuencia: z.number().int(),
  tipoEvento: tipoEventoSchema,
  fechaHoraHusoGenEvento: z.string(),
  huella: z.string(),
  huellaAnterior: z.string().optional(),
  creadoEn: timestampSchema,
  /** The signed RegistroEvento, as stored. */
  xml: z.string(),
});

export const eventosListQuerySchema = z.object({
  limite: parametroConsulta('Entero ≥ 1; por defecto 100, máximo 500 (un valor mayor se recorta); otro valor da 400 INVALID_PARAMETER'),
  cursor: parametroConsulta('El proximaPagina de la página anterior'),
});

/** GET /v1/clientes/{nif}/eventos: newest first. */
export const eventosListResponseSchema = z.object({
  nif: z.string(),
  entorno: entornoSchema,
  modoSif: modoSifSchema,
  eventos: z.array(eventoSifSchema),
  total: z.number().int(),
  proximaPagina: z.string().nullable(),
});
export type EventosListResponse = z.infer<typeof eventosListResponseSchema>;

/** Panel and admin: PUT …/modo-sif. */
export const modoSifBodySchema = z.strictObject({ modoSif: modoSifSchema });
export const modoSifResponseSchema = z.object({
  nif: z.string(),
  entorno: entornoSchema,
  modoSif: modoSifSchema,
  desde: z.string().nullable(),
  cambiado: z.boolean(),
});

/** Panel and admin: POST …/anomalias (one detection run, recorded as events). */
export const deteccionAnomaliasSchema = z.object({
  nif: z.string(),
  entorno: entornoSchema,
  registrosAnalizados: z.number().int(),
  eventosAnalizados: z.number().int(),
  anomalias: z.array(z.object({ ambito: z.enum(['registro', 'evento']), tipoAnomalia: z.string(), id: z.string(), detalle: z.string() })),
  eventosAnotados: z.array(z.object({ id: z.string(), tipoEvento: z.string(), huella: z.string() })),
});

/** Panel: a period of a «NO VERI*FACTU» installation (exports, the AEAT's requirement). */
const periodoSif = {
  entorno: entornoSchema,
  desde: z.iso.datetime({ offset: true }),
  hasta: z.iso.datetime({ offset: true }),
};

/** Panel: POST …/exportacion — records and events of a period as files, each export logged (08/09). */
export const exportacionBodySchema = z.strictObject(periodoSif);
export const exportacionResponseSchema = z.object({
  registros: z.object({ fichero: z.string(), altas: z.number().int(), anulaciones: z.number().int(), sumaCuotaTotalAlta: z.string(), sumaImporteTotalAlta: z.string() }),
  eventos: z.object({ fichero: z.string(), numero: z.number().int() }).nullable(),
  eventosAnotados: z.array(z.object({ id: z.string(), tipoEvento: z.string(), huella: z.string() })),
});
export type ExportacionResponse = z.infer<typeof exportacionResponseSchema>;

/** Panel: POST …/requerimiento — the kept records of a period sent on the AEAT's requirement. */
export const requerimientoBodySchema = z.strictObject({
  ...periodoSif,
  // The AEAT refuses a reference that is not alphanumeric (4133): refused before anything is sent.
  refRequerimiento: z.string().min(1).max(18).regex(/^[A-Za-z0-9]+$/, 'RefRequerimiento: solo letras y cifras (AEAT 4133)'),
});
export const requerimientoResponseSchema = z.object({
  nif: z.string(),
  entorno: entornoSchema,
  refRequerimiento: z.string(),
  registros: z.number().int(),
  envios: z.array(
    z.object({
      registros: z.number().int(),
      estadoEnvio: z.string(),
      csv: z.string().optional(),
      correctos: z.number().int(),
      aceptadosConErrores: z.number().int(),
      incorrectos: z.number().int(),
      fault: z.string().optional(),
    }),
  ),
  evento: z.object({ id: z.string(), tipoEvento: z.string(), huella: z.string() }),
});
export type RequerimientoResponse = z.infer<typeof requerimientoResponseSchema>;
