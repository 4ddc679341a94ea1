// till:device-info — the till's stable identity (idMaquina) and its printer.
import type { DeviceInfo } from '../../src-shared/bridge';
import type { PrinterConfig } from '../printing/printer-config';

export function deviceInfoHandler(deps: { idMaquina: string; hostname: string; platform: string; printer: () => PrinterConfig }): () => DeviceInfo {
  return () => {
    const p = deps.printer();
    const nombre = p.tipo === 'sistema' ? (p.nombre ?? 'predeterminada') : p.tipo === 'escpos-red' ? `${p.host}:${p.puerto}` : p.tipo === 'escpos-dispositivo' ? p.ruta : 'ninguna';
    return { idMaquina: deps.idMaquina, nombreEquipo: deps.hostname, plataforma: deps.platform, impresora: { tipo: p.tipo, nombre, ancho: p.ancho } };
  };
}
