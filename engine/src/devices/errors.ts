import { EngineError } from '../core/errors';

/** One factory per spec error of the device endpoints (spec: Devices, Errors). */

export const shardingNotEnabled = () =>
  new EngineError(409, 'SHARDING_NOT_ENABLED', 'El modo de alta capacidad no está contratado para este emisor (fase no_contratada)');

export const machineAlreadyRegistered = (idMaquina: string) =>
  new EngineError(409, 'MACHINE_ALREADY_REGISTERED', `El dispositivo ${idMaquina} ya está registrado y activo`);

/**
 * Our extension (docs/api-contract.md): staff tell tills apart by name, so two active devices of
 * one issuer (per environment) never share an `etiqueta`.
 */
export const deviceLabelTaken = (etiqueta: string) =>
  new EngineError(409, 'DEVICE_LABEL_TAKEN', `Ya hay otro dispositivo activo de este emisor llamado «${etiqueta}»: elija otro nombre`, { campo: 'etiqueta' });

export const machineNotFound = (idMaquina: string) =>
  new EngineError(404, 'MACHINE_NOT_FOUND', `El dispositivo ${idMaquina} no está registrado en este entorno`);

export const notInPreparation = () =>
  new EngineError(409, 'NOT_IN_PREPARATION', 'La activación solo se puede solicitar en la fase preparacion');

export const clientNotInLive = () =>
  new EngineError(409, 'CLIENT_NOT_IN_LIVE', 'El emisor no existe en LIVE: créelo en LIVE antes de promover sus dispositivos');

export const reservationLocked = () =>
  new EngineError(409, 'RESERVATION_LOCKED', 'En la fase activa una reserva de serie no se puede liberar (permanente)');

export const serieNotReserved = (serie: string) =>
  new EngineError(404, 'SERIE_NOT_RESERVED', `La serie ${serie} no está reservada para el envío centralizado`);

export const serieOwnedByOtherMachine = (serie: string, idMaquina: string) =>
  new EngineError(409, 'SERIE_OWNED_BY_OTHER_MACHINE', `La serie ${serie} pertenece al dispositivo ${idMaquina}`);

/** Panel / admin: leaving `activa` once a device has issued would orphan its chain. */
export const phaseLocked = () =>
  new EngineError(409, 'PHASE_LOCKED', 'El emisor ya tiene dispositivos con cadena propia: no puede salir de la fase activa');
