// Defects of the attack run (issue 15): TicketBAI answered 200 without a word to totals that
// contradict the breakdown, to issue dates in 9999 and 1899, and to control characters in
// serie/numero. Now: dates and printable serie/numero as 400 naming the field, nothing stored;
// sum consistency as `avisos` (like VeriFactu's AEAT rules 2005/2006), the invoice issued.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aTicketTbai } from '../../fixtures/ticketbai';
import { makeTestEngine, type TestEngine } from '../../support/engine';

const NIF = 'A58818501';
let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
  const ctx = t.engine.context;
  ctx.issuers.create({ accountId: ctx.accounts.listAccounts()[0]!.id, entorno: 'test', nif: NIF, nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
});
afterAll(async () => t.close());

let n = 0;
const ticket = (extra: Record<string, unknown> = {}) => ({ ...aTicketTbai('gipuzkoa', { nif: NIF, nombre: 'EMISOR GIPUZKOA SL' }, 'R', `R-${++n}`), ...extra });
const crear = (body: unknown) => t.billing('POST', '/v1/ticketbai/crear', { body });
const count = () => (t.engine.context.db.statement('SELECT (SELECT COUNT(*) FROM invoices) + (SELECT COUNT(*) FROM registros) AS n').get() as { n: number }).n;

async function refused(body: unknown, campo: string) {
  const before = count();
  const res = await crear(body);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo });
  expect(count()).toBe(before);
}

describe('importeTotal against the breakdown → avisos, the invoice issued', () => {
  for (const importeTotal of ['0', '-0', '-12.10', '12.11', '100.00']) {
    it(`importeTotal "${importeTotal}" with base 10.00 + cuota 2.10 → 200 with an aviso naming importeTotal`, async () => {
      const res = await crear(ticket({ importeTotal, lineas: undefined }));
      expect(res.statusCode, res.body).toBe(200);
      const avisos: string[] = res.json().avisos ?? [];
      expect(avisos.some((a) => a.startsWith('importeTotal:') && a.includes('12.10'))).toBe(true);
    });
  }
  it('a consistent ticket has no avisos', async () => {
    const res = await crear(ticket());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().avisos).toBeUndefined();
  });
  it('the recargo de equivalencia counts in the sum', async () => {
    const res = await crear(
      ticket({
        importeTotal: '12.62',
        desglose: [{ baseImponible: '10.00', tipoImpositivo: '21.00', cuota: '2.10', tipoRecargoEquivalencia: '5.20', cuotaRecargoEquivalencia: '0.52', calificacionOperacion: 'S1' }],
        lineas: [{ descripcion: 'Café', cantidad: '2', importeUnitario: '5.00', importeTotal: '12.62' }],
      }),
    );
    expect(res.json().avisos).toBeUndefined();
  });
  it('REBU (clave 03): the total is not compared with the breakdown', async () => {
    const res = await crear(ticket({ importeTotal: '50.00', clavesRegimen: ['03'], lineas: undefined }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().avisos).toBeUndefined();
  });
  it('the aviso is kept for a replay of the same request', async () => {
    const body = ticket({ importeTotal: '0', lineas: undefined });
    const first = (await crear(body)).json();
    const replay = (await crear(body)).json();
    expect(replay).toMatchObject({ yaExistente: true, avisos: first.avisos });
  });
});

describe('detail lines against the breakdown → avisos', () => {
  it('lines adding up to 20.00 against a 12.10 breakdown → an aviso naming lineas', async () => {
    const res = await crear(ticket({ lineas: [{ descripcion: 'Café', cantidad: '4', importeUnitario: '5.00', importeTotal: '20.00' }] }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().avisos).toEqual([expect.stringMatching(/^lineas: .*20\.00.*12\.10/)]);
  });
  it('line totals with 8 decimals are compared in cents', async () => {
    const res = await crear(
      ticket({
        lineas: [
          { descripcion: 'A', cantidad: '1', importeUnitario: '5.00', importeTotal: '6.04999999' },
          { descripcion: 'B', cantidad: '1', importeUnitario: '5.00', importeTotal: '6.05000001' },
        ],
      }),
    );
    expect(res.json().avisos).toBeUndefined();
  });
});

describe('fechaExpedicion: not after today, not more than 20 years back → 400 naming it, nothing stored', () => {
  it('20-11-9999 → 400 fechaExpedicion', () => refused(ticket({ fechaExpedicion: '20-11-9999' }), 'fechaExpedicion'));
  it('21-11-2026 (tomorrow) → 400 fechaExpedicion', () => refused(ticket({ fechaExpedicion: '21-11-2026' }), 'fechaExpedicion'));
  it('20-11-1899 → 400 fechaExpedicion', () => refused(ticket({ fechaExpedicion: '20-11-1899' }), 'fechaExpedicion'));
  it('today and 20 years back are accepted', async () => {
    expect((await crear(ticket({ fechaExpedicion: '20-11-2026' }))).statusCode).toBe(200);
    expect((await crear(ticket({ fechaExpedicion: '20-11-2006' }))).statusCode).toBe(200);
  });
  it('a rectified invoice dated in the future → 400 naming it', () =>
    refused(
      ticket({
        tipoFactura: 'R5',
        rectificativa: { tipo: 'I' },
        facturasRectificadas: [{ serie: 'R', numero: 'X', fechaExpedicion: '01-01-2099' }],
      }),
      'facturasRectificadas[0].fechaExpedicion',
    ));
});

describe('serie and numero: printable text only → 400 naming the field, nothing stored', () => {
  const hostile = { tab: 'A\tB', newline: 'A\nB', CR: 'A\rB', DEL: 'A\u007fB', NEL: 'A\u0085B', 'line separator': 'A\u2028B' };
  for (const [name, value] of Object.entries(hostile)) {
    it(`serie with ${name} → 400 serie`, () => refused(ticket({ serie: value }), 'serie'));
    it(`numero with ${name} → 400 numero`, () => refused(ticket({ numero: value }), 'numero'));
  }
  it('anular refuses them too', async () => {
    const res = await t.billing('POST', '/v1/ticketbai/anular', {
      body: { nifEmisor: NIF, serie: 'R', numero: 'A\tB', fechaExpedicion: '20-11-2026', provincia: 'gipuzkoa' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ campo: 'numero' });
  });
  it('accents, ñ, spaces inside and symbols stay allowed', async () => {
    expect((await crear(ticket({ serie: 'Año 2026/Ñ', numero: 'Nº 1-á' }))).statusCode).toBe(200);
  });
});
