import type { SyncResumen } from '../../../src-renderer/features/sync/store';

/** A filing queue as `GET /panel/v1/sync` answers it: idle, reachable, nothing pending, unless `extra` says otherwise. */
export const cola = (extra: Partial<SyncResumen['colas'][number]>): SyncResumen['colas'][number] => ({
  queueKey: 'test|aeat|B12345674',
  entorno: 'test',
  autoridad: 'aeat',
  obligado: 'B12345674',
  pendientes: 0,
  siguienteEnvioEn: null,
  reintentoEn: null,
  proximoIntentoEn: null,
  fallosSeguidos: 0,
  alcanzable: true,
  ultimoError: null,
  ultimoErrorEn: null,
  masAntiguoEn: null,
  ...extra,
});
