// The hosted service's public Python client ships a high-capacity example: list the devices,
// register three, reserve FC and FR for the centralized submission, read idsMaquinaVistos. Its
// calls, over real HTTP with the JSON bodies the spec shows, run here against the engine in both
// phases where they are allowed — as a new user would run the example.
import { beforeEach, describe, expect, it } from 'vitest';
import { makeDevicesEngine, OWN, type DevicesEngine } from './helpers';

let t: DevicesEngine;
let manage: string;
beforeEach(async (ctx) => {
  t = await makeDevicesEngine();
  manage = (await t.engine.start()).manage;
  ctx.onTestFinished(() => t.close());
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${manage}${path}`, {
    method,
    headers: { 'x-api-key': t.keys.test, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('The Python client’s high-capacity example runs unchanged', () => {
  for (const fase of ['preparacion', 'activa'] as const) {
    it(`in ${fase}`, async () => {
      await t.setFase(fase);
      const base = `/v1/clientes/${OWN}/dispositivos`;

      const listed = await call('GET', base);
      expect(listed.status).toBe(200);
      expect(listed.json).toMatchObject({ entorno: 'test', nif: OWN, faseAltaCapacidad: fase, dispositivos: [], series: [], idsMaquinaVistos: [] });

      for (const [idMaquina, etiqueta] of [
        ['tpv-01', 'Caja 1'],
        ['tpv-02', 'Caja 2'],
        ['web-shop', 'Tienda online'],
      ]) {
        const registered = await call('POST', base, { idMaquina, etiqueta });
        expect(registered.status).toBe(201);
        expect(registered.json).toMatchObject({ entorno: 'test', dispositivo: { idMaquina, etiqueta, activo: true } });
      }

      const reserved = await call('POST', `${base}/series-centralizadas`, { series: ['FC', 'FR'] });
      expect(reserved.status).toBe(200);
      expect(reserved.json).toMatchObject({ reservadas: ['FC', 'FR'], omitidas: [] });

      const after = await call('GET', base);
      expect(after.json.dispositivos).toHaveLength(3);
      expect(after.json.series).toEqual([
        expect.objectContaining({ serie: 'FC', idMaquinaPropietaria: '__SHARD0__' }),
        expect.objectContaining({ serie: 'FR', idMaquinaPropietaria: '__SHARD0__' }),
      ]);
      expect(Array.isArray(after.json.idsMaquinaVistos)).toBe(true);
      if (fase === 'preparacion') expect(after.json.observandoDesde).toEqual(expect.any(String));
      else expect(after.json).not.toHaveProperty('observandoDesde');
    });
  }
});
