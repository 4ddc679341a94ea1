import type { ErrorBody } from '../../../src-shared/api/common';

/** A coded error with its HTTP status; one error handler turns it into the API-CONTRACT body. */
export class EngineError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    readonly extra: Omit<ErrorBody, 'code' | 'message'> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'EngineError';
  }

  body(): ErrorBody {
    return { code: this.code, message: this.message, ...this.extra };
  }
}

/** Missing, unknown or revoked key: answered as an API gateway would, without `code`. */
export class GatewayForbidden extends Error {
  constructor() {
    super('Forbidden');
  }
}

export const validation = (campo: string, message: string, errors: string[] = [`${campo}: ${message}`]) =>
  new EngineError(400, 'VALIDATION_ERROR', message, { campo, errors });

export const invalidParameter = (campo: string, message: string) =>
  new EngineError(400, 'INVALID_PARAMETER', message, { campo, errors: [`${campo}: ${message}`] });

export const missingParameter = (campo: string) =>
  new EngineError(400, 'MISSING_PARAMETER', `Falta el parámetro ${campo}`, {
    campo,
    errors: [`${campo}: required`],
  });

/** The same body whatever the reason (foreign, unknown or inactive issuer): no enumeration. */
export const forbidden = () => new EngineError(403, 'FORBIDDEN', 'El emisor no pertenece a esta cuenta');

export const notFound = (message = 'No encontrado') => new EngineError(404, 'NOT_FOUND', message);

export const paymentRequired = () =>
  new EngineError(402, 'PAYMENT_REQUIRED', 'La facturación de la cuenta no está activa');

export const rateLimited = (retryAfterSeconds: number) =>
  new EngineError(429, 'RATE_LIMITED', 'Demasiadas peticiones por segundo', {}, {
    'retry-after': String(retryAfterSeconds),
  });

export const quotaExceeded = (retryAfterSeconds: number) =>
  new EngineError(429, 'QUOTA_EXCEEDED', 'Cuota mensual agotada', {}, {
    'retry-after': String(retryAfterSeconds),
  });

/** An invoice of this identity exists with other data: `fields` names each differing field. */
export const invoiceIdentityConflict = (fields: string[]) =>
  new EngineError(409, 'INVOICE_IDENTITY_CONFLICT', 'Ya existe una factura con esa identidad y otros datos', {
    errors: fields.map((f) => `${f}: differs from the invoice already issued with this identity`),
  });

export const invoiceNotFound = () => new EngineError(409, 'INVOICE_NOT_FOUND', 'No consta ninguna factura con esa identidad');

export const invoiceStatusInvalid = (message: string) => new EngineError(409, 'INVOICE_STATUS_INVALID', message);

/** What the environment lacks to serve the request (LIVE without its signing certificate): nothing is stored. */
export const environmentNotAvailable = (message: string) => new EngineError(503, 'ENVIRONMENT_NOT_AVAILABLE', message);

/** A shop server's administrator's request made with a till's credential. */
export const adminRequired = (message: string) => new EngineError(403, 'ADMIN_REQUIRED', message);

/** The till (or the shop server) holds no API key, or no account, to act with. */
export const tillKeyMissing = (message: string) => new EngineError(409, 'TILL_KEY_MISSING', message);
