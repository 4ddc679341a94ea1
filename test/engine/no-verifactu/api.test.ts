// «NO VERI*FACTU» on the APIs (issue 32): `modoSif` in the management API's client detail and
// list (and its OpenAPI), the event log at GET /v1/clientes/{nif}/eventos (paged, signed XML), the
// panel routes (mode, anomaly detection) and `npm run admin -- issuer mode / anomalias`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clienteEnvelopeSchema, clientesListResponseSchema } from '../../../src-shared/api/clientes';
import { eventosListResponseSchema } from '../../../src-shared/api/eventos';
import { admin } from '../../support/admin-cli';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
});
afterAll(async () => {
  await t.close();
});

const panel = (method: string, url: string, body?: unknown) => t.panel(method, url, body);

describe('management API', () => {
  it('shows modoSif in the client detail and list; the panel sets it; TicketBAI issuers have none', async () => {
    const detalle = await t.manage('GET', `/v1/clientes/${t.nifEmisor}`);
    expect(detalle.statusCode, detalle.body).toBe(200);
    expect(clienteEnvelopeSchema.parse(detalle.json()).cliente.modoSif).toBe('verifactu');

    expect((await panel('PUT', `/panel/v1/clientes/${t.nifEmisor}/modo-sif`, { entorno: 'test', modoSif: 'no_verifactu' })).json()).toMatchObject({
      modoSif: 'no_verifactu',
      cambiado: true,
    });
    const otra = await panel('PUT', `/panel/v1/clientes/${t.nifEmisor}/modo-sif`, { entorno: 'test', modoSif: 'otro' });
    expect(otra.statusCode).toBe(400);
    expect((await panel('PUT', '/panel/v1/clientes/B00000000/modo-sif', { entorno: 'test', modoSif: 'no_verifactu' })).statusCode).toBe(404);

    expect(clienteEnvelopeSchema.parse((await t.manage('GET', `/v1/clientes/${t.nifEmisor}`)).json()).cliente.modoSif).toBe('no_verifactu');
    const lista = clientesListResponseSchema.parse((await t.manage('GET', '/v1/clientes')).json());
    expect(lista.clientes.find((c) => c.nif === t.nifEmisor)?.modoSif).toBe('no_verifactu');

    const ctx = t.engine.context;
    const accountId = ctx.issuers.find('test', t.nifEmisor)!.accountId;
    ctx.issuers.create({ accountId, entorno: 'test', nif: 'A58818501', nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
    const tbai = await t.manage('GET', '/v1/clientes/A58818501');
    expect(tbai.json().cliente).not.toHaveProperty('modoSif');
    const refused = await panel('PUT', '/panel/v1/clientes/A58818501/modo-sif', { entorno: 'test', modoSif: 'no_verifactu' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'SIF_MODE_NOT_APPLICABLE', campo: 'modoSif' });

    const doc = (await t.manage('GET', '/openapi.json')).json() as { components?: unknown; paths: Record<string, unknown> };
    expect(JSON.stringify(doc)).toContain('modoSif');
    expect(doc.paths).toHaveProperty(['/v1/clientes/{nif}/eventos']);
  });

  it('reads an invoice issued in NO VERI*FACTU: registered, kept (no_remitida), its record and QR URL', async () => {
    const body = {
      version: '1.0',
      emisor: { nif: t.nifEmisor, nombre: 'COMERCIAL DEMO SL' },
      cabecera: { serie: 'L', numero: '1', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
      detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
      totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
    };
    const res = await t.billing('POST', '/v1/verifactu/crear', { body });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().idFactura as string;
    const detalle = await t.billing('GET', `/v1/facturas/${id}?nifEmisor=${t.nifEmisor}`);
    expect(detalle.statusCode, detalle.body).toBe(200);
    expect(detalle.json().factura).toMatchObject({ estadoFactura: 'registrada', estadoEnvio: 'no_remitida' });
    const lista = await t.billing('GET', `/v1/facturas?nifEmisor=${t.nifEmisor}`);
    expect(lista.statusCode, lista.body).toBe(200);
    expect(lista.json().facturas.find((f: { idFactura: string }) => f.idFactura === id)).toMatchObject({ estadoEnvio: 'no_remitida' });
    const registros = await t.billing('GET', `/v1/registros?nifEmisor=${t.nifEmisor}`);
    expect(registros.statusCode, registros.body).toBe(200);
    const qr = await t.billing('GET', `/v1/facturas/${id}/qr?nifEmisor=${t.nifEmisor}`);
    expect(qr.statusCode).toBe(200);
    expect(qr.headers['content-type']).toContain('image/png');
    expect(detalle.json().factura.urlQr).toContain(`/v1/facturas/${id}/qr`);
    expect(res.json().urlValidacion).toContain('/ValidarQRNoVerifactu?');
    // The sync view: kept records are counted apart (no_remitida), never as waiting on a till.
    const sync = (await panel('GET', '/panel/v1/sync')).json() as { porEstadoEnvio: Record<string, Record<string, number>>; porDispositivo: { nif: string; pendientes: number }[] };
    expect(sync.porEstadoEnvio.test?.no_remitida).toBeGreaterThanOrEqual(1);
    expect(sync.porDispositivo.filter((d) => d.nif === t.nifEmisor)).toEqual([]);
  });

  it('pages the event log, newest first, each item with its type, time, huella and signed xml', async () => {
    const run = await panel('POST', '/panel/v1/sync/anomalias', { entorno: 'test', nif: t.nifEmisor });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ anomalias: [], eventosAnotados: [{ tipoEvento: '03' }, { tipoEvento: '05' }] });

    const first = await t.manage('GET', `/v1/clientes/${t.nifEmisor}/eventos?limite=2`);
    expect(first.statusCode, first.body).toBe(200);
    const page1 = eventosListResponseSchema.parse(first.json());
    expect(page1.modoSif).toBe('no_verifactu');
    expect(page1.eventos.map((e) => e.tipoEvento)).toEqual(['05', '03']);
    expect(page1.eventos[0]!.huellaAnterior).toBe(page1.eventos[1]!.huella);
    expect(page1.eventos[0]!.xml).toContain('<ds:Signature');
    expect(page1.proximaPagina).not.toBeNull();
    const page2 = eventosListResponseSchema.parse(
      (await t.manage('GET', `/v1/clientes/${t.nifEmisor}/eventos?limite=2&cursor=${encodeURIComponent(page1.proximaPagina!)}`)).json(),
    );
    expect(page2.eventos.map((e) => [e.tipoEvento, e.secuencia])).toEqual([['01', 1]]);
    expect(page2.proximaPagina).toBeNull();
    // Another issuer's log is not readable with this key; a bad limite is a 400 naming it.
    expect((await t.manage('GET', '/v1/clientes/B00000000/eventos')).statusCode).toBe(403);
    const bad = await t.manage('GET', `/v1/clientes/${t.nifEmisor}/eventos?limite=0`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ campo: 'limite' });
  });
});

describe('npm run admin', () => {
  it('issuer mode switches and refuses with the reason; anomalias runs and logs', async () => {
    // Back to VERI*FACTU: allowed; then NO VERI*FACTU again this year: refused, exit 1, the reason said.
    expect(await admin(t.dataDir, 'issuer', 'mode', t.nifEmisor, 'verifactu', '--entorno', 'test')).toMatchObject({ modoSif: 'verifactu', cambiado: true });
    await expect(admin(t.dataDir, 'issuer', 'mode', t.nifEmisor, 'no_verifactu')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('SIF_MODE_LOCKED_YEAR: El emisor funciona como VERI*FACTU en 2026'),
    });
    await expect(admin(t.dataDir, 'issuer', 'mode', t.nifEmisor, 'otro')).rejects.toMatchObject({ code: 2 });
    const r = (await admin(t.dataDir, 'anomalias', t.nifEmisor, '--entorno', 'test')) as { anomalias: unknown[]; eventosAnotados: { tipoEvento: string }[] };
    expect(r.anomalias).toEqual([]);
    expect(r.eventosAnotados.map((e) => e.tipoEvento)).toEqual(['03', '05']);
    expect(t.engine.context.noVerifactu.eventos.todos('test', t.nifEmisor).map((e) => e.tipoEvento)).toEqual(['01', '03', '05', '02', '03', '05']);
    // exportar: a period without records is refused (exit 1, the code said); a bad date names the option (exit 2).
    await expect(admin(t.dataDir, 'exportar', t.nifEmisor, '--desde', '2026-01-01T00:00:00+01:00', '--hasta', '2026-01-31T23:59:59+01:00')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('NOT_FOUND'),
    });
    await expect(admin(t.dataDir, 'exportar', t.nifEmisor, '--desde', 'ayer', '--hasta', '2026-01-31T23:59:59+01:00')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--desde must be an ISO 8601 date-time'),
    });
  });
});
