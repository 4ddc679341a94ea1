// Support for the device tests: the clients test engine (demo account, own company B12345674 in
// TEST and LIVE, no census) plus the device routes, the phase set through the panel as the
// service team does, and the store issuing writes through.
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { FaseAltaCapacidad } from '../../../engine/src/db/schema/devices';
import { makeClientsEngine, type ClientsEngine } from '../clients/helpers';

export const OWN = 'B12345674';
export const BASE = `/v1/clientes/${OWN}/dispositivos`;

export interface DevicesEngine extends ClientsEngine {
  key(entorno: 'test' | 'live'): string;
  setFase(fase: FaseAltaCapacidad, nif?: string): Promise<LightMyRequestResponse>;
  dev(method: string, path: string, opts?: { body?: unknown; key?: string }): Promise<LightMyRequestResponse>;
  status(entorno?: 'test' | 'live', nif?: string): Promise<Status>;
}

export interface Status {
  entorno: string;
  nif: string;
  modoCadena: string;
  faseAltaCapacidad: string;
  observandoDesde?: string;
  activacionSolicitadaEn?: string;
  dispositivos: { idMaquina: string; etiqueta: string; creadoEn: string; activo: boolean; numeroInstalacion?: string; dadoDeBajaEn?: string; reactivadoEn?: string }[];
  series: { serie: string; idMaquinaPropietaria: string; reclamadaEn: string }[];
  idsMaquinaVistos: { idMaquina: string; primeraVez: string; ultimaVez: string; registrado: boolean }[];
}

export async function makeDevicesEngine(): Promise<DevicesEngine> {
  const t = await makeClientsEngine();
  const key = (entorno: 'test' | 'live') => (entorno === 'test' ? t.keys.test : t.keys.live);
  const dev: DevicesEngine['dev'] = (method, path, opts = {}) =>
    t.manage(method, `${BASE}${path}`, { ...(opts.body !== undefined ? { body: opts.body } : {}), ...(opts.key !== undefined ? { key: opts.key } : {}) });
  return {
    ...t,
    key,
    dev,
    setFase: (fase, nif = OWN) => t.panel('PUT', `/panel/v1/cuentas/${OWN}/clientes/${nif}/fase`, { faseAltaCapacidad: fase }),
    async status(entorno = 'test', nif = OWN) {
      const res = await t.manage('GET', `/v1/clientes/${nif}/dispositivos`, { key: key(entorno) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Status;
    },
  };
}
