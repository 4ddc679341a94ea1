import { EngineError, notFound, validation } from '../core/errors';

/** One factory per spec error of the issuer-client endpoints. */

/** Same body whether the NIF is the account's already or another account's: no enumeration. */
export const clientNifRefused = () =>
  validation('nif', 'No se puede dar de alta un emisor con este NIF');

export const clientLimitReached = (limite: number) =>
  new EngineError(409, 'CLIENT_LIMIT_REACHED', `Se ha alcanzado el límite de clientes del plan (${limite})`);

export const selfClientConflict = () =>
  new EngineError(409, 'SELF_CLIENT_CONFLICT', 'El NIF de su empresa ya está registrado como emisor en otra cuenta');

export const selfClientProtected = () =>
  new EngineError(409, 'SELF_CLIENT_PROTECTED', 'La empresa titular de la cuenta no se puede desactivar ni eliminar');

export const clientDeleted = () =>
  new EngineError(409, 'CLIENT_DELETED', 'El cliente está eliminado; restáurelo desde el panel');

export const clientStatusInvalid = (message = 'El estado actual del cliente no admite este cambio') =>
  new EngineError(409, 'CLIENT_STATUS_INVALID', message);

export const signingInProgress = (camposBloqueados: string[]) =>
  new EngineError(
    409,
    'SIGNING_IN_PROGRESS',
    `Hay una firma de representación en curso: no se puede cambiar ${camposBloqueados.join(', ')}. Cancélela (DELETE …/representacion/firma-en-curso) o complete la firma`,
    { camposBloqueados },
  );

export const clientNotFound = () => notFound('Cliente no encontrado en esta cuenta y entorno');
