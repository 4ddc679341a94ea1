import {
  estadoRepresentacionSchema,
  faseAltaCapacidadSchema,
  modoCadenaSchema,
  type ClienteDetalle,
  type Direccion,
  type EstadoRepresentacion,
  type Representante,
} from '../../../src-shared/api/clientes';
import { estadoNifSchema, type EstadoNif } from '../../../src-shared/api/nif';
import type { ValidacionCensal } from '../census/service';
import type { ClientRecord } from './store';

function parseJson<T>(text: string | null): T | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export function storedValidacion(record: ClientRecord): ValidacionCensal | undefined {
  const v = parseJson<ValidacionCensal>(record.details.validacionCensal);
  return v && estadoNifSchema.safeParse(v.estado).success ? v : undefined;
}

export function estadoRepresentacion(value: string): EstadoRepresentacion {
  const parsed = estadoRepresentacionSchema.safeParse(value);
  return parsed.success ? parsed.data : 'pendiente';
}

/**
 * `modoCadena` and `faseAltaCapacidad` (the account's, shared by TEST and LIVE): no stored phase
 * reads `unica` / `no_contratada`; omitted when the stored value cannot be read.
 */
function chainFields(record: ClientRecord): Pick<ClienteDetalle, 'modoCadena' | 'faseAltaCapacidad' | 'modoSif'> {
  const modo = modoCadenaSchema.safeParse(record.phase?.modoCadena ?? 'unica');
  const fase = faseAltaCapacidadSchema.safeParse(record.phase?.faseAltaCapacidad ?? 'no_contratada');
  return {
    ...(modo.success ? { modoCadena: modo.data } : {}),
    ...(fase.success ? { faseAltaCapacidad: fase.data } : {}),
    // The VERI*FACTU / NO VERI*FACTU choice is the state system's: a TicketBAI issuer has none.
    ...(record.issuer.hacienda === 'verifactu' ? { modoSif: record.modoSif ?? 'verifactu' } : {}),
  };
}

export function direccionOf(record: ClientRecord): Direccion | undefined {
  return parseJson<Direccion>(record.details.direccion);
}

export function representanteOf(record: ClientRecord): Representante | undefined {
  return parseJson<Representante>(record.details.representante);
}

/** The detail (creation, GET and PATCH answers): every derived field with its absent-value rule. */
export function clienteDetalle(record: ClientRecord, ownNif: string, validacion: ValidacionCensal): ClienteDetalle {
  const { issuer, details } = record;
  const direccion = direccionOf(record);
  const representante = representanteOf(record);
  return {
    nif: issuer.nif,
    nombre: issuer.nombre,
    ...(details.email !== null ? { email: details.email } : {}),
    ...(details.tipoUsuario !== null ? { tipoUsuario: details.tipoUsuario } : {}),
    hacienda: issuer.hacienda,
    ...(direccion ? { direccion } : {}),
    ...(representante ? { representante } : {}),
    ...(details.epigrafeIAE !== null ? { epigrafeIAE: details.epigrafeIAE } : {}),
    estado: issuer.estado,
    estadoRepresentacion: estadoRepresentacion(issuer.estadoRepresentacion),
    validacionCensal: validacion,
    creadoEn: issuer.creadoEn,
    ultimaModificacion: issuer.ultimaModificacion,
    ...(issuer.nif === ownNif ? { clientePropio: true as const } : {}),
    portalHabilitado: details.portalHabilitado === 1,
    ...chainFields(record),
    ...(issuer.estado === 'eliminado' && details.eliminadoEn !== null ? { fechaEliminacion: details.eliminadoEn } : {}),
  };
}

export function clienteFila(record: ClientRecord, estadoCenso: EstadoNif) {
  const { issuer, details } = record;
  return {
    nif: issuer.nif,
    nombre: issuer.nombre,
    hacienda: issuer.hacienda,
    estado: issuer.estado,
    estadoRepresentacion: estadoRepresentacion(issuer.estadoRepresentacion),
    estadoCenso,
    ...chainFields(record),
    ...(issuer.estado === 'eliminado' && details.eliminadoEn !== null ? { fechaEliminacion: details.eliminadoEn } : {}),
  };
}
