// Chaos (issue 15): a full disk. The database's size limit (PRAGMA max_page_count on the engine's
// connection) stands in for a full data folder: issuing answers a clear 503 STORAGE_FULL and
// stores nothing; when space returns, issuing resumes and nothing acknowledged is lost, every
// chain verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificarCadenas } from '../../engine/src/verification/instantanea.sqlite';
import { aTicketTbai } from '../fixtures/ticketbai';
import { makeTestEngine, type TestEngine } from '../support/engine';
import { sqliteOf } from '../support/sqlite-of';

const VF = 'B12345674';
const TBAI = 'A58818501';
let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z' });
  const ctx = t.engine.context;
  ctx.issuers.create({ accountId: ctx.accounts.listAccounts()[0]!.id, entorno: 'test', nif: TBAI, nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
});
afterAll(async () => t.close());

const vf = (numero: string) => ({
  version: '1.0',
  emisor: { nif: VF, nombre: 'COMERCIAL DEMO SL' },
  cabecera: { serie: 'D', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta '.repeat(30) },
  detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
  totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
});
const tbai = (numero: string) => aTicketTbai('gipuzkoa', { nif: TBAI, nombre: 'EMISOR GIPUZKOA SL' }, 'D', numero);

describe('A full disk: 503 STORAGE_FULL, nothing stored; nothing acknowledged lost once space returns', () => {
  it('VeriFactu and TicketBAI', async () => {
    const sqlite = sqliteOf(t.engine.context.db);
    const acknowledged: { id: string; nif: string }[] = [];
    let n = 0;
    const issue = async () => {
      n++;
      const res = n % 2 === 0
        ? await t.billing('POST', '/v1/verifactu/crear', { body: vf(String(n)) })
        : await t.billing('POST', '/v1/ticketbai/crear', { body: tbai(String(n)) });
      if (res.statusCode === 200) acknowledged.push({ id: res.json().idFactura as string, nif: n % 2 === 0 ? VF : TBAI });
      return res;
    };
    for (let i = 0; i < 6; i++) expect((await issue()).statusCode).toBe(200);

    // The disk fills up: no page beyond the ones in use.
    const pages = Number(sqlite.pragma('page_count', { simple: true }));
    sqlite.pragma(`max_page_count = ${pages}`);
    let full: Awaited<ReturnType<typeof issue>> | undefined;
    for (let i = 0; i < 200 && full === undefined; i++) {
      const res = await issue();
      if (res.statusCode !== 200) full = res;
    }
    expect(full?.statusCode).toBe(503);
    expect(full?.json()).toMatchObject({ code: 'STORAGE_FULL' });
    expect(full?.headers['retry-after']).toBe('30');
    // Nothing of the refused request was stored: its identity is free once space returns.
    const refused = n;
    const counts = () => sqlite.prepare('SELECT (SELECT COUNT(*) FROM invoices) AS i, (SELECT COUNT(*) FROM registros) AS r, (SELECT COUNT(*) FROM submission_jobs) AS j').get();
    const before = counts();
    expect((await issue()).statusCode).toBe(503);
    expect(counts()).toEqual(before);

    // Space returns.
    sqlite.pragma('max_page_count = 1073741823');
    for (let i = 0; i < 6; i++) expect((await issue()).statusCode).toBe(200);
    const retry = refused % 2 === 0
      ? await t.billing('POST', '/v1/verifactu/crear', { body: vf(String(refused)) })
      : await t.billing('POST', '/v1/ticketbai/crear', { body: tbai(String(refused)) });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().yaExistente).toBeUndefined();
    acknowledged.push({ id: retry.json().idFactura as string, nif: refused % 2 === 0 ? VF : TBAI });

    for (const { id, nif } of acknowledged) {
      const res = await t.billing('GET', `/v1/facturas/${id}?nifEmisor=${nif}`);
      expect(res.statusCode, `${id} readable`).toBe(200);
    }
    const v = verificarCadenas(t.engine.context.db.file, {}, new Date());
    expect(v.problemas).toEqual([]);
    expect(v.cadenas.reduce((s, c) => s + c.registros, 0)).toBe(acknowledged.length);
  });
});
