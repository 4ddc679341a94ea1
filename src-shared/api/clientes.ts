import { z } from 'zod';
import { modoSifSchema } from './eventos';
import { textoPlano } from '../primitives';
import { entornoSchema, haciendaSchema, parametroConsulta, timestampSchema } from './common';
import { estadoNifSchema } from './nif';

// Issuer clients (spec: Issuer client, Issuer clients endpoints) and their representation
// document (API-CONTRACT: Management API beyond the spec). Requests are strict objects: an
// unknown key is a 400 naming it — except `hacienda` on PATCH, which the spec says is ignored.

export const tipoUsuarioSchema = z.enum(['autonomo', 'empresa']);
export type TipoUsuario = z.infer<typeof tipoUsuarioSchema>;

export const estadoClienteSchema = z.enum(['activo', 'inactivo', 'eliminado']);
export type EstadoCliente = z.infer<typeof estadoClienteSchema>;

/**
 * Status of the representation document:
 *   pendiente — nothing signed yet (LIVE issuing closed unless it is the own company);
 *   en_firma  — a document was generated and its signature is in progress, none signed before;
 *   firmado   — a signed document is on file (LIVE issuing open). A new signature in progress
 *               keeps `firmado` (with `firmaEnCurso: true`) until it completes or is cancelled.
 */
export const estadoRepresentacionSchema = z.enum(['pendiente', 'en_firma', 'firmado']);
export type EstadoRepresentacion = z.infer<typeof estadoRepresentacionSchema>;

const requiredString = (what: string) =>
  z.string({ error: (i) => (i.input === undefined ? 'Required' : `${what} must be a string`) });

/** Issuer tax ID as written by the caller; normalized and checked with src-shared/nif.ts. */
export const nifClienteSchema = requiredString('nif').min(1, { error: 'nif must not be empty' }).max(32, { error: 'nif: at most 32 characters' });

export const direccionSchema = z.strictObject({
  calle: textoPlano(120),
  numero: textoPlano(20),
  codigoPostal: requiredString('codigoPostal').regex(/^[0-9A-Za-z][0-9A-Za-z -]{2,9}$/, {
    error: 'codigoPostal: 3 to 10 letters, digits, spaces or hyphens (e.g. "48001")',
  }),
  ciudad: textoPlano(80),
  provincia: textoPlano(80),
});
export type Direccion = z.infer<typeof direccionSchema>;

export const representanteSchema = z.strictObject({
  nombre: textoPlano(120),
  nif: nifClienteSchema,
  direccion: direccionSchema.optional(),
});
export type Representante = z.infer<typeof representanteSchema>;

/** LROE `Epigrafe` form: digits only, at most 7 (batuz_TiposBasicos.xsd stringMax7Digits). */
export const epigrafeIaeSchema = requiredString('epigrafeIAE').regex(/^[0-9]{1,7}$/, {
  error: 'epigrafeIAE: 1 to 7 digits, as the LROE form writes it (e.g. "165940" for 1ª 659.4)',
});

export const emailSchema = requiredString('email')
  .max(254, { error: 'email: at most 254 characters' })
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { error: 'email is not an e-mail address' });

/** POST /v1/clientes/crear */
export const clienteCrearBodySchema = z.strictObject({
  nif: nifClienteSchema,
  nombre: textoPlano(120),
  email: emailSchema.optional(),
  tipoUsuario: tipoUsuarioSchema,
  hacienda: haciendaSchema,
  direccion: direccionSchema.optional(),
  representante: representanteSchema.optional(),
  epigrafeIAE: epigrafeIaeSchema.optional(),
});
export type ClienteCrearBody = z.infer<typeof clienteCrearBodySchema>;

/** PATCH /v1/clientes/{nif}: accepted fields only; `hacienda` is accepted and ignored. */
export const clientePatchBodySchema = z.strictObject({
  nombre: textoPlano(120).optional(),
  direccion: direccionSchema.optional(),
  representante: representanteSchema.optional(),
  epigrafeIAE: epigrafeIaeSchema.optional(),
  // Strict boolean: "true", 1 and "" are refused.
  portalHabilitado: z.boolean({ error: 'portalHabilitado must be true or false (a JSON boolean)' }).optional(),
  hacienda: z.unknown().optional(),
});
export type ClientePatchBody = z.infer<typeof clientePatchBodySchema>;

export const CLIENTE_PATCH_FIELDS = ['nombre', 'direccion', 'representante', 'epigrafeIAE', 'portalHabilitado'] as const;
/** Fields of the representation document: locked while its signature is in progress. */
export const CAMPOS_DOCUMENTO = ['nombre', 'direccion', 'representante'] as const;

/** PATCH /v1/clientes/{nif}/estado */
export const clienteEstadoBodySchema = z.strictObject({
  estado: z.enum(['activo', 'inactivo'], { error: 'estado must be activo or inactivo' }),
});

export const validacionCensalSchema = z.object({
  estado: estadoNifSchema,
  nombreCenso: z.string().nullable(),
  validadoEn: timestampSchema.optional(),
  resultadoAeat: z.string().optional(),
});

export const modoCadenaSchema = z.enum(['unica', 'por_dispositivo']);
export const faseAltaCapacidadSchema = z.enum(['no_contratada', 'preparacion', 'activa']);

export const clienteDetalleSchema = z.object({
  nif: z.string(),
  nombre: z.string(),
  email: z.string().optional(),
  tipoUsuario: tipoUsuarioSchema.optional(),
  hacienda: haciendaSchema,
  direccion: direccionSchema.optional(),
  representante: representanteSchema.optional(),
  epigrafeIAE: z.string().optional(),
  estado: estadoClienteSchema,
  estadoRepresentacion: estadoRepresentacionSchema,
  validacionCensal: validacionCensalSchema,
  creadoEn: timestampSchema,
  ultimaModificacion: timestampSchema,
  clientePropio: z.literal(true).optional(),
  portalHabilitado: z.boolean(),
  modoCadena: modoCadenaSchema.optional(),
  faseAltaCapacidad: faseAltaCapacidadSchema.optional(),
  /** Our extension (issue 32): absent for TicketBAI issuers. */
  modoSif: modoSifSchema.optional(),
  fechaEliminacion: timestampSchema.optional(),
});
export type ClienteDetalle = z.infer<typeof clienteDetalleSchema>;

/** Answer of create (201, or 200 for the own company's idempotent repeat), detail and PATCH. */
export const clienteEnvelopeSchema = z.object({ cliente: clienteDetalleSchema, entorno: entornoSchema });

export const clienteFilaSchema = z.object({
  nif: z.string(),
  nombre: z.string(),
  hacienda: haciendaSchema,
  estado: estadoClienteSchema,
  estadoRepresentacion: estadoRepresentacionSchema,
  estadoCenso: estadoNifSchema,
  modoCadena: modoCadenaSchema.optional(),
  faseAltaCapacidad: faseAltaCapacidadSchema.optional(),
  modoSif: modoSifSchema.optional(),
  fechaEliminacion: timestampSchema.optional(),
});

/** GET /v1/clientes: the three seat counters come all together or not at all. */
export const clientesListResponseSchema = z.object({
  entorno: entornoSchema,
  clientes: z.array(clienteFilaSchema),
  total: z.number().int(),
  limitePlan: z.number().int().optional(),
  clientesUsados: z.number().int().optional(),
  clientesDisponibles: z.number().int().optional(),
  proximaPagina: z.string().optional(),
});
export type ClientesListResponse = z.infer<typeof clientesListResponseSchema>;

/** PATCH /v1/clientes/{nif}/estado: `entorno` is absent when nothing changed. */
export const clienteEstadoResponseSchema = z.object({
  message: z.string(),
  nif: z.string(),
  estado: estadoClienteSchema,
  entorno: entornoSchema.optional(),
});

// ---------------------------------------------------------------- representation

export const firmanteSchema = z.object({
  nif: z.string().optional(),
  nombre: z.string(),
  numeroSerie: z.string(),
  emisor: z.string(),
  validoDesde: timestampSchema,
  validoHasta: timestampSchema,
});

/** GET …/representacion/estado (and the answer of DELETE …/firma-en-curso). */
export const representacionEstadoSchema = z.object({
  nif: z.string(),
  estadoRepresentacion: estadoRepresentacionSchema,
  firmaEnCurso: z.boolean(),
  documentoGeneradoEn: timestampSchema.optional(),
  firmadoEn: timestampSchema.optional(),
  firmante: firmanteSchema.optional(),
  entorno: entornoSchema,
});

/** POST …/representacion/firmar */
export const representacionFirmarBodySchema = z.strictObject({
  /** The generated document, base64 (as GET …/generar returned it). */
  pdf: requiredString('pdf').min(1, { error: 'pdf must not be empty' }),
  /** PKCS#12 (.p12/.pfx) with the signer's certificate and key, base64. */
  certificado: requiredString('certificado').min(1, { error: 'certificado must not be empty' }),
  password: z.string({ error: 'password must be a string' }),
});

export const representacionFirmarResponseSchema = z.object({
  nif: z.string(),
  estadoRepresentacion: estadoRepresentacionSchema,
  firmaEnCurso: z.boolean(),
  firmadoEn: timestampSchema,
  firmante: firmanteSchema,
  /** The signed PDF, base64. */
  pdfFirmado: z.string(),
  entorno: entornoSchema,
});

/** POST …/representacion/verificar */
export const representacionVerificarBodySchema = z.strictObject({
  pdfFirmado: requiredString('pdfFirmado').min(1, { error: 'pdfFirmado must not be empty' }),
});

export const representacionVerificarResponseSchema = z.object({
  /** The signature is intact, covers the whole file and its certificate was valid when signing. */
  valido: z.boolean(),
  /** Why not, when `valido` is false (or why the document was not taken). */
  motivos: z.array(z.string()),
  firmante: firmanteSchema.optional(),
  firmadoEn: timestampSchema.optional(),
  /** The signed document is this issuer's representation document generated here. */
  documentoDelEmisor: z.boolean(),
  /** The certificate is the issuer's or its representative's. */
  firmanteAutorizado: z.boolean(),
  estadoRepresentacion: estadoRepresentacionSchema,
  firmaEnCurso: z.boolean(),
  entorno: entornoSchema,
});

// ---------------------------------------------------------------- query parameters (documentation)

/** GET /v1/clientes: `limite` is never rejected (an invalid value falls back to the default). */
export const clientesListQuerySchema = z.object({
  limite: parametroConsulta('Por defecto 20, máximo 100 (un valor mayor se recorta); un valor no válido usa el de por defecto'),
  cursor: parametroConsulta('El proximaPagina de la página anterior'),
  incluirEliminados: parametroConsulta('true añade los eliminados dentro de su plazo de restauración de 30 días'),
});

/** GET /v1/clientes/{nif} */
export const clienteQuerySchema = z.object({
  incluirEliminados: parametroConsulta('true también encuentra un cliente eliminado hace menos de 30 días'),
});
