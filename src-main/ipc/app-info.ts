// till:app-info — name, versions, the panel origin and token, data folder and log file.
import type { AppInfo } from '../../src-shared/bridge';

export interface AppInfoSource {
  nombre: string;
  version: string;
  electron: string;
  panelUrl: () => string | undefined;
  panelToken: string;
  carpetaDatos: string;
  archivoLog: string;
  motor: () => AppInfo['motor'];
}

export function appInfoHandler(source: AppInfoSource): () => AppInfo {
  return () => ({
    nombre: source.nombre,
    version: source.version,
    electron: source.electron,
    panelUrl: source.panelUrl() ?? '',
    panelToken: source.panelToken,
    carpetaDatos: source.carpetaDatos,
    archivoLog: source.archivoLog,
    motor: source.motor(),
  });
}
