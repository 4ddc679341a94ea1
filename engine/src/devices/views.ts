import type { Dispositivo } from '../../../src-shared/api/dispositivos';
import type { Device } from './store';

/** A stored device as the API shows it: absent values omitted, never null. */
export function dispositivoView(device: Device): Dispositivo {
  return {
    idMaquina: device.idMaquina,
    etiqueta: device.etiqueta,
    creadoEn: device.creadoEn,
    activo: device.activo === 1,
    ...(device.numeroInstalacion !== null ? { numeroInstalacion: device.numeroInstalacion } : {}),
    ...(device.dadoDeBajaEn !== null ? { dadoDeBajaEn: device.dadoDeBajaEn } : {}),
    ...(device.reactivadoEn !== null ? { reactivadoEn: device.reactivadoEn } : {}),
  };
}
