// GET /v1/facturas fechaInicio / fechaFin: a date alone is a day of the tills' calendar (Europe/Madrid),
// not a UTC day. A sale at 23:30 UTC on a summer day is 01:30 of the next day in Madrid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { crearOk, NIF } from './helpers';

let t: TestEngine;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await makeTestEngine({ now: '2026-07-15T21:59:59.000Z' }); // 15-07 23:59:59 in Madrid (UTC+2)
  ids.lastOf15 = (await crearOk(t, aFacturaF2({ cabecera: { numero: 'MAD-1', fechaExpedicion: '15-07-2026' } }))).idFactura;
  t.clock.set('2026-07-15T23:30:00.000Z'); // 16-07 01:30 in Madrid
  ids.nightSale = (await crearOk(t, aFacturaF2({ cabecera: { numero: 'MAD-2', fechaExpedicion: '16-07-2026' } }))).idFactura;
});
afterAll(async () => t.close());

async function listed(query: string): Promise<string[]> {
  const res = await t.billing('GET', `/v1/facturas?nifEmisor=${NIF}${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { facturas: { idFactura: string }[] }).facturas.map((f) => f.idFactura);
}

describe('Date-only fechaInicio / fechaFin are Madrid days', () => {
  it('the 23:30 UTC sale belongs to the next Madrid day, not to the UTC day', async () => {
    expect(await listed('&fechaInicio=2026-07-16&fechaFin=2026-07-16')).toEqual([ids.nightSale]);
    expect(await listed('&fechaInicio=2026-07-15&fechaFin=2026-07-15')).toEqual([ids.lastOf15]);
    expect(await listed('&fechaFin=2026-07-15')).toEqual([ids.lastOf15]);
    expect(await listed('&fechaInicio=2026-07-16')).toEqual([ids.nightSale]);
  });

  it('a date-time without offset is Madrid wall time; with an offset it is that instant', async () => {
    expect(await listed(`&fechaInicio=${encodeURIComponent('2026-07-16T01:00:00')}`)).toEqual([ids.nightSale]);
    expect(await listed(`&fechaInicio=${encodeURIComponent('2026-07-16T01:31:00')}`)).toEqual([]);
    expect(await listed(`&fechaFin=${encodeURIComponent('2026-07-15T23:30:00Z')}`)).toEqual([ids.nightSale, ids.lastOf15]);
  });

  it('a date that does not exist is a 400 naming the parameter', async () => {
    const res = await t.billing('GET', `/v1/facturas?nifEmisor=${NIF}&fechaInicio=2026-02-30`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'fechaInicio' });
  });
});
