// Exports from the panel (issue 32, for the till's «NO VERI*FACTU» panel): POST …/exportacion
// writes the period's records and events as files, logs 08/09 and answers the files' names (never
// the server's paths); GET …/exportaciones/{fichero} hands such a file back, and nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportacionResponseSchema } from '../../../src-shared/api/eventos';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
  const ctx = t.engine.context;
  ctx.noVerifactu.modos.cambiar(ctx.issuers.find('test', t.nifEmisor)!, 'no_verifactu');
  for (const numero of ['1', '2']) {
    const res = await t.billing('POST', '/v1/verifactu/crear', {
      body: {
        version: '1.0',
        emisor: { nif: t.nifEmisor, nombre: 'COMERCIAL DEMO SL' },
        cabecera: { serie: 'E', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
        detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
        totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
});
afterAll(async () => {
  await t.close();
});

const panel = (method: string, url: string, body?: unknown) => t.panel(method, url, body);

const periodo = { entorno: 'test', desde: '2026-11-20T00:00:00+01:00', hasta: '2026-11-20T23:59:59+01:00' };

describe('exports from the panel', () => {
  it('exports the period, logs 08 and 09, and hands the files back by name', async () => {
    const res = await panel('POST', `/panel/v1/clientes/${t.nifEmisor}/exportacion`, periodo);
    expect(res.statusCode, res.body).toBe(200);
    const hecho = exportacionResponseSchema.parse(res.json());
    expect(hecho.registros).toMatchObject({ altas: 2, anulaciones: 0, sumaImporteTotalAlta: '24.20' });
    expect(hecho.registros.fichero).toMatch(new RegExp(`^registros-${t.nifEmisor}-test-.*\\.jsonl$`));
    expect(res.body).not.toContain(t.dataDir);
    expect(hecho.eventosAnotados.map((e) => e.tipoEvento)).toEqual(['08', '09']);

    const descarga = await panel('GET', `/panel/v1/clientes/${t.nifEmisor}/exportaciones/${hecho.registros.fichero}?entorno=test`);
    expect(descarga.statusCode).toBe(200);
    expect(descarga.headers['content-type']).toContain('application/x-ndjson');
    expect(descarga.headers['content-disposition']).toBe(`attachment; filename="${hecho.registros.fichero}"`);
    const lineas = descarga.body.trim().split('\n').map((l) => JSON.parse(l) as { xml: string });
    expect(lineas).toHaveLength(2);
    expect(lineas[0]!.xml).toContain('<ds:Signature');
    const eventos = await panel('GET', `/panel/v1/clientes/${t.nifEmisor}/exportaciones/${hecho.eventos!.fichero}?entorno=test`);
    expect(eventos.statusCode).toBe(200);
  });

  it('refuses a period without records (404 naming desde), a bad period (400), and any other file (404)', async () => {
    const vacio = await panel('POST', `/panel/v1/clientes/${t.nifEmisor}/exportacion`, { ...periodo, desde: '2026-01-01T00:00:00+01:00', hasta: '2026-01-31T23:59:59+01:00' });
    expect(vacio.statusCode).toBe(404);
    expect(vacio.json()).toMatchObject({ campo: 'desde' });
    const malo = await panel('POST', `/panel/v1/clientes/${t.nifEmisor}/exportacion`, { ...periodo, desde: 'ayer' });
    expect(malo.statusCode).toBe(400);
    for (const fichero of ['..%2Fengine.sqlite', 'engine.sqlite', `registros-B00000000-test-1.jsonl`, `registros-${t.nifEmisor}-test-20990101T000000000Z.jsonl`]) {
      const r = await panel('GET', `/panel/v1/clientes/${t.nifEmisor}/exportaciones/${fichero}?entorno=test`);
      expect(r.statusCode, fichero).toBe(404);
    }
  });
});
