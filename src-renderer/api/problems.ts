// What staff read when the engine, an authority or a NIF check says no: a message in their
// language that says what to do, with the engine's own text kept as a technical detail (support
// reads it; staff need not). Every `code`/`campo` the till can meet is mapped here.
import { classifyNif, normalizeNif, validateNif } from '../../src-shared/nif';
import { translate, type Lang, type MessageKey } from '../i18n';
import { ApiError } from './engine-client';


export interface Problem {
  /** What happened and what to do, in the staff's language. */
  mensaje: string;
  /** The engine's text (code, field, message), for support; absent when there is nothing more. */
  detalle?: string | undefined;
  /** The engine's field, when it named one. */
  campo?: string | undefined;
}

/** Engine codes whose message does not depend on the field. */
const POR_CODIGO: Record<string, MessageKey> = {
  INVOICE_IDENTITY_CONFLICT: 'error.facturaExiste',
  INVOICE_EXISTS: 'error.estadoFactura',
  INVOICE_STATUS_INVALID: 'error.estadoFactura',
  INVOICE_HAS_RECTIFICATIVAS: 'error.tieneRectificativas',
  INVOICE_NOT_FOUND: 'error.noEncontrada',
  NOT_FOUND: 'error.noEncontrada',
  FORBIDDEN: 'error.emisorAjeno',
  PAYMENT_REQUIRED: 'error.pago',
  RATE_LIMITED: 'error.demasiadas',
  QUOTA_EXCEEDED: 'error.cuota',
  TILL_KEY_MISSING: 'error.sinClave',
  ADMIN_REQUIRED: 'error.soloAdministrador',
  MACHINE_CREDENTIAL_REQUIRED: 'error.credencialCaja',
  MACHINE_CREDENTIAL_MISMATCH: 'error.credencialCaja',
  TOO_MANY_ATTEMPTS: 'error.demasiadosIntentos',
  ENVIRONMENT_NOT_AVAILABLE: 'error.entornoNoDisponible',
  AEAT_UNAVAILABLE: 'error.censoNoResponde',
  PROVINCE_MISMATCH: 'error.provincia',
  CLIENT_STATUS_INVALID: 'error.emisorInactivo',
  CLIENT_DELETED: 'error.emisorInactivo',
  REPRESENTATION_PENDING: 'error.representacion',
  INTERNAL_ERROR: 'error.interno',
  DATABASE_ERROR: 'error.interno',
  RELAY_UNAVAILABLE: 'error.interno',
  EMULATOR_ERROR: 'error.emulador',
  EMULATORS_NOT_RUNNING: 'error.emulador',
  DEVICE_LABEL_TAKEN: 'error.nombreCajaUsado',
};

/** Validation errors by the field named (`campo`), most specific prefix first. */
const POR_CAMPO: [RegExp, MessageKey][] = [
  [/^destinatarios?(\[\d+\])?\.(nif|idOtro)/, 'error.nifCliente'],
  [/^destinatarios?(\[\d+\])?\.nombre/, 'error.nombreCliente'],
  [/^(emisor\.nif|nifEmisor|facturaAnulada\.nifEmisor)/, 'error.nifEmisor'],
  [/(^|\.)(serie|numero|numSerie)/i, 'error.serieNumero'],
  [/fechaExpedicion|horaExpedicion/, 'error.fecha'],
  [/(^|\.)descripcion/, 'error.descripcion'],
  [/^(totales|detalleDesglose|desglose|lineas|importeTotal|cuotaTotal)/, 'error.importes'],
];

const VALIDACION = new Set(['VALIDATION_ERROR', 'INVALID_PARAMETER', 'MISSING_PARAMETER', 'BAD_REQUEST']);

/** The AEAT code an engine validation names in its message ("… (AEAT 1150)"). */
function codigoAeat(body: { message: string; errors?: string[] | undefined }): string | undefined {
  const text = [body.message, ...(body.errors ?? [])].join(' ');
  return /\(AEAT (\d{4})\)/.exec(text)?.[1];
}

function detalleDe(error: ApiError): string {
  const b = error.body;
  if (!b) return error.status > 0 ? `HTTP ${error.status}: ${error.message}` : error.message;
  return [b.code, b.message, b.campo ? `(${b.campo})` : ''].filter(Boolean).join(' · ');
}

/** Any error the till's calls can throw, explained to staff. */
export function explainError(lang: Lang, error: unknown): Problem {
  const t = (key: MessageKey) => translate(lang, key);
  if (!(error instanceof ApiError)) {
    return { mensaje: t('error.generico'), detalle: error instanceof Error ? error.message : String(error) };
  }
  const detalle = detalleDe(error);
  if (error.status === 0) return { mensaje: t('error.sinMotor'), detalle };
  const body = error.body;
  if (!body) {
    if (error.status === 403) return { mensaje: t('error.claveInvalida'), detalle };
    if (error.status >= 500) return { mensaje: t('error.interno'), detalle };
    if (error.status === 200) return { mensaje: t('error.respuestaRara'), detalle };
    return { mensaje: t('error.generico'), detalle };
  }
  if (VALIDACION.has(body.code)) {
    if (codigoAeat(body) === '1150') return { mensaje: t('error.limiteF2'), detalle, campo: body.campo };
    if (codigoAeat(body) === '1287') {
      // The engine names the character: "numero contains the character =, which …".
      const caracter = /contains the character (.),/.exec(body.message)?.[1] ?? '?';
      return { mensaje: translate(lang, 'error.caracterNoValido', { caracter }), detalle, campo: body.campo };
    }
    const campo = body.campo ?? '';
    const porCampo = POR_CAMPO.find(([re]) => re.test(campo));
    return { mensaje: t(porCampo ? porCampo[1] : 'error.datoVenta'), detalle, campo: body.campo };
  }
  const key = POR_CODIGO[body.code];
  if (key) return { mensaje: t(key), detalle, campo: body.campo };
  if (error.status >= 500) return { mensaje: t('error.interno'), detalle };
  return { mensaje: t('error.generico'), detalle, campo: body.campo };
}

/** Why a NIF typed at the till is not valid, in the staff's language (undefined when it is valid). */
export function nifProblem(lang: Lang, nif: string): string | undefined {
  const check = validateNif(nif);
  if (check.valid) return undefined;
  const n = normalizeNif(nif);
  if (n.length !== 9) return translate(lang, 'nif.longitud', { n: n.length });
  if (classifyNif(n) === null) return translate(lang, 'nif.formato');
  // The shared validator names the expected character: "… should be L, not A" / "must be the digit 1 (…), not 2".
  const expected = /(?:be|the (?:digit|letter)) ([0-9A-Z])(?: or ([0-9A-Z]))?\b/.exec(check.reason);
  const esperado = expected ? [expected[1], expected[2]].filter(Boolean).join(' / ') : '?';
  return translate(lang, 'nif.control', { esperado, actual: n.charAt(8) });
}

/** A transport or authority failure of a queue ("read ECONNRESET", "HTTP 503"…) in words. */
export function explainSendError(lang: Lang, raw: string | null | undefined): Problem | undefined {
  if (!raw) return undefined;
  const key: MessageKey = /ECONNRESET|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|socket hang up|fetch failed|other side closed/i.test(raw)
    ? 'sync.errorRed'
    : /timeout|timed out|ETIMEDOUT|aborted/i.test(raw)
      ? 'sync.errorTiempo'
      : /\b5\d\d\b|server error|Internal/i.test(raw)
        ? 'sync.errorServidor'
        : /certif|TLS|SSL|CERT_/i.test(raw)
          ? 'sync.errorCertificado'
          : 'sync.errorOtro';
  return { mensaje: translate(lang, key), detalle: raw };
}

/** AEAT codes of a rejected record, grouped by what staff do about them (the AEAT's error list). */
const RECHAZO_AEAT: [RegExp, MessageKey][] = [
  [/^(1109|2001|4104)$/, 'rechazo.nif'],
  [/^1150$/, 'rechazo.limiteF2'],
  [/^(1262|1292|200[0-8])$/, 'rechazo.cadena'],
  [/^3000$/, 'rechazo.duplicado'],
  [/^3001$/, 'rechazo.yaAnulada'],
  [/^3002$/, 'rechazo.noExiste'],
  [/^4\d{3}$/, 'rechazo.envio'],
  [/^1\d{3}$/, 'rechazo.dato'],
];

/** Treasury (TicketBAI) codes: the message's form is ours to fix; a data code is the invoice's. */
const RECHAZO_TBAI: [RegExp, MessageKey][] = [
  [/^00[1-4]$/, 'rechazo.envio'],
  [/^(B4_|0[0-9]{2}$)/, 'rechazo.dato'],
];

/**
 * Why the authority rejected a record and what staff do next, in their language; the authority's
 * code and text folded as the technical detail («1100 Valor o tipo incorrecto del campo.»).
 */
export function explainRechazo(lang: Lang, sistema: 'verifactu' | 'ticketbai', codigo: string | undefined, descripcion: string | undefined): Problem {
  const tabla = sistema === 'ticketbai' ? RECHAZO_TBAI : RECHAZO_AEAT;
  const key = (codigo ? tabla.find(([re]) => re.test(codigo))?.[1] : undefined) ?? 'rechazo.otro';
  const detalle = [codigo, descripcion].filter(Boolean).join(' ');
  return { mensaje: translate(lang, key), ...(detalle ? { detalle } : {}) };
}

/** Why a queue waits for a person (the sync view's `bloqueo`: AEAT 4104…), in the staff's words; the AEAT's text as the detail. */
export function explainBloqueo(
  lang: Lang,
  bloqueo: { codigo: string; motivo: 'nif_emisor_no_identificado' | 'nif_representante_no_identificado' | 'certificado_no_autorizado'; descripcion: string | null } | null | undefined,
): Problem | undefined {
  if (!bloqueo) return undefined;
  const key: MessageKey = `sync.bloqueo.${bloqueo.motivo}`;
  return { mensaje: translate(lang, key), detalle: `AEAT ${bloqueo.codigo}${bloqueo.descripcion ? ` · ${bloqueo.descripcion}` : ''}` };
}
