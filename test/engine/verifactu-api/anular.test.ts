// POST /v1/verifactu/anular: the cancellation record, its answer and its 409s.
import { describe, expect, it } from 'vitest';
import type { VerifactuAnularBody } from '../../../src-shared/api/verifactu';
import { aFacturaF1, aFacturaF2, aFacturaF3, aFacturaR, anAnularBody } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import { validateAgainstVerifactuXsd } from '../../support/xsd';
import {
  anotherAccount,
  CHAIN_TEST,
  counts,
  crearOk,
  demoAccountId,
  expectRefused,
  huellaFromXml,
  json,
  NIF,
  recordElement,
  useEngineOnFixtureDay,
  xmlText,
} from './helpers';

let t: TestEngine;
useEngineOnFixtureDay((engine) => (t = engine));

interface AnularAnswer {
  code: string;
  data: { idFactura: string; idRegistro: string; numeroFactura: string; serie: string; numero: string; estado: string; creadoEn: string; huella: string; yaAnulada?: boolean };
}

const anular = (body: unknown, key?: string) => t.billing('POST', '/v1/verifactu/anular', { body, ...(key ? { key } : {}) });
const cancelOf = (numero: string, o: Partial<VerifactuAnularBody> = {}, serie = 'A-2026/', fechaExpedicion = '02-03-2026') =>
  anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie, numero, fechaExpedicion }, ...o });
const chain = () => t.engine.context.invoices.chain(CHAIN_TEST);

describe('POST /v1/verifactu/anular answers 200 {code: "SUCCESS", data: {idFactura, idRegistro, numeroFactura, serie, numero, estado, creadoEn, huella}}', () => {
  it('cancels an invoice on record with a RegistroAnulacion chained after the previous record', async () => {
    const alta = await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-1' } }));
    const before = counts(t);
    const res = await anular(cancelOf('AN-1', { idMaquina: 'caja-3' }));
    expect(res.statusCode, res.body).toBe(200);
    const body = json<AnularAnswer>(res);
    expect(body.code).toBe('SUCCESS');
    expect(Object.keys(body.data).sort()).toEqual(['creadoEn', 'estado', 'huella', 'idFactura', 'idRegistro', 'numero', 'numeroFactura', 'serie']);
    expect(body.data).toMatchObject({
      idFactura: alta.idFactura,
      numeroFactura: 'A-2026/AN-1',
      serie: 'A-2026/',
      numero: 'AN-1',
      estado: 'pendiente',
      creadoEn: '2026-03-02T10:15:00.000Z',
    });
    expect(body.data.huella).toMatch(/^[0-9A-F]{64}$/);
    const after = counts(t);
    expect(after.invoices).toBe(before.invoices);
    expect(after.registros).toBe(before.registros + 1);
    expect(after.jobs).toBe(before.jobs + 1);

    const last = chain().at(-1);
    const previous = chain().at(-2);
    expect(last).toMatchObject({ id: body.data.idRegistro, tipo: 'anulacion', huella: body.data.huella, huellaAnterior: previous?.huella, idMaquina: 'caja-3' });
    const rec = recordElement(last?.xml ?? '');
    expect(xmlText(rec, 'Encadenamiento', 'RegistroAnterior', 'Huella')).toBe(previous?.huella);
    expect(huellaFromXml(rec)).toBe(body.data.huella);
  });

  it('the record detail of a cancellation carries fechaExpedicion, sinRegistroPrevio and rechazoPrevio', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-2' } }));
    const { data } = json<AnularAnswer>(await anular(cancelOf('AN-2')));
    const res = await t.billing('GET', `/v1/registros/${data.idRegistro}?nifEmisor=${NIF}&idFactura=${data.idFactura}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      idRegistro: data.idRegistro,
      idFactura: data.idFactura,
      tipo: 'anulacion',
      estado: 'pendiente',
      estadoEnvio: 'pendiente_proceso',
      sistemaFiscal: 'verifactu',
      fechaExpedicion: '02-03-2026',
      sinRegistroPrevio: false,
      rechazoPrevio: 'N',
      numeroFactura: 'A-2026/AN-2',
    });
    // The invoice detail lists both records, newest first.
    const detail = await t.billing('GET', `/v1/facturas/${data.idFactura}?nifEmisor=${NIF}`);
    expect(detail.json().totalRegistros).toBe(2);
    expect(detail.json().registros.map((r: { tipo: string }) => r.tipo)).toEqual(['anulacion', 'alta']);
    // The detail extras of every record, a cancellation's too: those of the invoice it cancels.
    const [anulacion, alta] = detail.json().registros as { cuotaTotal?: string; esRectificativa?: boolean }[];
    expect(alta).toMatchObject({ cuotaTotal: expect.stringMatching(/^\d+\.\d{2}$/), esRectificativa: false });
    expect(anulacion).toMatchObject({ cuotaTotal: alta!.cuotaTotal, esRectificativa: false });
    expect(res.json()).toMatchObject({ cuotaTotal: alta!.cuotaTotal, esRectificativa: false });
  });

  it('every record’s signed XML is served per record: the cancellation’s and the registration’s', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-XML' } }));
    const { data } = json<AnularAnswer>(await anular(cancelOf('AN-XML')));
    const base = `?nifEmisor=${NIF}&idFactura=${data.idFactura}`;
    const xml = await t.billing('GET', `/v1/registros/${data.idRegistro}/xml${base}`);
    expect(xml.statusCode, xml.body).toBe(200);
    expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(xml.body).toContain('RegistroAnulacion');
    expect(xml.body).not.toContain('RegistroAlta');
    expect(xml.body).toContain(data.huella);
    const registros = (await t.billing('GET', `/v1/facturas/${data.idFactura}?nifEmisor=${NIF}`)).json().registros as { idRegistro: string; tipo: string }[];
    const alta = registros.find((r) => r.tipo === 'alta')!;
    const altaXml = await t.billing('GET', `/v1/registros/${alta.idRegistro}/xml${base}`);
    expect(altaXml.statusCode).toBe(200);
    expect(altaXml.body).toContain('RegistroAlta');
    // The invoice's /xml stays the registration's.
    expect((await t.billing('GET', `/v1/facturas/${data.idFactura}/xml?nifEmisor=${NIF}`)).body).toBe(altaXml.body);
    // A record of another invoice, an unknown one, a missing idFactura: refused like the record detail.
    const other = await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-XML-2' } }));
    const wrong = await t.billing('GET', `/v1/registros/${data.idRegistro}/xml?nifEmisor=${NIF}&idFactura=${other.idFactura}`);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'INVALID_PARAMETER', campo: 'idRegistro' });
    expect((await t.billing('GET', `/v1/registros/reg_nadie/xml${base}`)).json()).toMatchObject({ code: 'INVALID_PARAMETER', campo: 'idRegistro' });
    expect((await t.billing('GET', `/v1/registros/${data.idRegistro}/xml?nifEmisor=${NIF}`)).json()).toMatchObject({ campo: 'idFactura' });
  });

  it('an invoice without series: serie omitted from the answer (absent values are omitted, never "")', async () => {
    const f = aFacturaF2({ cabecera: { numero: 'AN-NS' } });
    delete f.cabecera.serie;
    await crearOk(t, f);
    const res = await anular({ version: '1.0', facturaAnulada: { nifEmisor: NIF, numero: 'AN-NS', fechaExpedicion: '02-03-2026' } });
    expect(res.statusCode, res.body).toBe(200);
    const data = json<AnularAnswer>(res).data;
    expect(data).toMatchObject({ numero: 'AN-NS', numeroFactura: 'AN-NS' });
    expect('serie' in data).toBe(false);
    // ...and the same on the repeat, and in the detail of the invoice.
    const again = json<AnularAnswer>(await anular({ version: '1.0', facturaAnulada: { nifEmisor: NIF, numero: 'AN-NS', fechaExpedicion: '02-03-2026' } })).data;
    expect(again.yaAnulada).toBe(true);
    expect('serie' in again).toBe(false);
    const detail = (await t.billing('GET', `/v1/facturas/${data.idFactura}?nifEmisor=${NIF}`)).json();
    expect('serie' in detail.factura).toBe(false);
    expect(detail.factura.numero).toBe('AN-NS');
  });
});

describe('A repeated cancellation answers 200 with yaAnulada: true; only a cancellation the authority rejected lets a new one through', () => {
  it('the repeat returns the stored answer and chains nothing', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-R' } }));
    const first = json<AnularAnswer>(await anular(cancelOf('AN-R')));
    const before = counts(t);
    t.clock.advance(5_000);
    const res = await anular(cancelOf('AN-R'));
    t.clock.advance(-5_000);
    expect(res.statusCode).toBe(200);
    const again = json<AnularAnswer>(res);
    expect(again).toEqual({ code: 'SUCCESS', data: { ...first.data, yaAnulada: true } });
    expect(counts(t)).toEqual(before);
  });

  it('after the authority rejected the cancellation, a new one is chained (RechazoPrevio S) and valid per the XSD', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-RJ' } }));
    const first = json<AnularAnswer>(await anular(cancelOf('AN-RJ')));
    const db = t.engine.context.db;
    db.run(db.kysely.updateTable('registros').set({ estado: 'rechazada', estadoEnvioFinal: 'rechazada' }).where('id', '=', first.data.idRegistro));
    const length = chain().length;
    const res = await anular(cancelOf('AN-RJ'));
    expect(res.statusCode, res.body).toBe(200);
    const second = json<AnularAnswer>(res);
    expect(second.data.yaAnulada).toBeUndefined();
    expect(second.data.idRegistro).not.toBe(first.data.idRegistro);
    expect(chain()).toHaveLength(length + 1);
    const xml = chain().at(-1)?.xml ?? '';
    expect(xmlText(recordElement(xml), 'RechazoPrevio')).toBe('S');
    expect((await validateAgainstVerifactuXsd(xml, 'SuministroInformacion.xsd')).errors).toEqual([]);
    // ...and repeating that one is again a replay.
    expect(json<AnularAnswer>(await anular(cancelOf('AN-RJ'))).data).toMatchObject({ idRegistro: second.data.idRegistro, yaAnulada: true });
  });
});

describe('409 INVOICE_NOT_FOUND (sinRegistroPrevio false, nothing on record)', () => {
  it('nothing stored; the same with sinRegistroPrevio explicitly false', async () => {
    const before = counts(t);
    await expectRefused(t, anular(cancelOf('NO-EXISTE')), 409, 'INVOICE_NOT_FOUND');
    await expectRefused(t, anular(cancelOf('NO-EXISTE', { sinRegistroPrevio: false })), 409, 'INVOICE_NOT_FOUND');
    expect(counts(t)).toEqual(before);
  });

  it('the identity must match exactly: another date or series is not the invoice on record', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-ID' } }));
    await expectRefused(t, anular(cancelOf('AN-ID', {}, 'A-2026/', '01-03-2026')), 409, 'INVOICE_NOT_FOUND');
    await expectRefused(t, anular(cancelOf('AN-ID', {}, 'B-2026/')), 409, 'INVOICE_NOT_FOUND');
  });

  it('an invoice of the LIVE environment is not on record for the TEST key', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-LIVE' } }), t.keys.live);
    await expectRefused(t, anular(cancelOf('AN-LIVE')), 409, 'INVOICE_NOT_FOUND');
    expect((await anular(cancelOf('AN-LIVE'), t.keys.live)).statusCode).toBe(200);
  });
});

describe('sinRegistroPrevio: cancelling an invoice whose registration never reached the authority', () => {
  it('200 with a new invoice identifier; the record says SinRegistroPrevio S; a repeat is yaAnulada', async () => {
    const before = counts(t);
    const res = await anular(cancelOf('SRP-1', { sinRegistroPrevio: true }, 'OLD-', '10-02-2026'));
    expect(res.statusCode, res.body).toBe(200);
    const { data } = json<AnularAnswer>(res);
    expect(data).toMatchObject({ numeroFactura: 'OLD-SRP-1', serie: 'OLD-', numero: 'SRP-1', estado: 'pendiente' });
    const after = counts(t);
    expect(after.invoices).toBe(before.invoices + 1);
    expect(after.registros).toBe(before.registros + 1);
    const xml = chain().at(-1)?.xml ?? '';
    expect(xmlText(recordElement(xml), 'SinRegistroPrevio')).toBe('S');
    const detail = await t.billing('GET', `/v1/registros/${data.idRegistro}?nifEmisor=${NIF}&idFactura=${data.idFactura}`);
    expect(detail.json()).toMatchObject({ tipo: 'anulacion', sinRegistroPrevio: true, fechaExpedicion: '10-02-2026' });
    const repeat = await anular(cancelOf('SRP-1', { sinRegistroPrevio: true }, 'OLD-', '10-02-2026'));
    expect(json<AnularAnswer>(repeat).data).toMatchObject({ idRegistro: data.idRegistro, yaAnulada: true });
  });
});

describe('409 INVOICE_EXISTS (sinRegistroPrevio true but on record)', () => {
  it('nothing stored', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'AN-EX' } }));
    const before = counts(t);
    await expectRefused(t, anular(cancelOf('AN-EX', { sinRegistroPrevio: true })), 409, 'INVOICE_EXISTS');
    expect(counts(t)).toEqual(before);
  });
});

describe('409 INVOICE_HAS_RECTIFICATIVAS (with details)', () => {
  it('an invoice rectified by an R1 cannot be cancelled; details list the rectificativa', async () => {
    // aFacturaR rectifies A-2026/0001 of 01-03-2026.
    await crearOk(t, aFacturaF1({ cabecera: { fechaExpedicion: '01-03-2026' } }));
    const r1 = await crearOk(t, aFacturaR('R1', 'I', { cabecera: { numero: 'HR-1' } }));
    const before = counts(t);
    const body = await expectRefused(t, anular(cancelOf('0001', {}, 'A-2026/', '01-03-2026')), 409, 'INVOICE_HAS_RECTIFICATIVAS');
    expect(body.details).toEqual({ rectificativas: [{ idFactura: r1.idFactura, numeroFactura: 'R-HR-1', fechaExpedicion: '02-03-2026' }] });
    expect(counts(t)).toEqual(before);
  });

  it('a simplified invoice substituted by an F3 cannot be cancelled either', async () => {
    // aFacturaF3 substitutes T000120 and T000121 of 01-03-2026.
    await crearOk(t, aFacturaF2({ cabecera: { numero: '000120', fechaExpedicion: '01-03-2026' } }));
    const f3 = await crearOk(t, aFacturaF3());
    const body = await expectRefused(t, anular(cancelOf('000120', {}, 'T', '01-03-2026')), 409, 'INVOICE_HAS_RECTIFICATIVAS');
    expect(JSON.stringify(body.details)).toContain(f3.idFactura);
  });

  it('once the rectificativa is itself cancelled (anulada), the original can be cancelled', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'HR-O', fechaExpedicion: '01-03-2026' } }));
    const r = await crearOk(
      t,
      aFacturaR('R2', 'S', { cabecera: { numero: 'HR-2' }, facturasRectificadas: [{ serie: 'A-2026/', numero: 'HR-O', fechaExpedicion: '01-03-2026' }] }),
    );
    await expectRefused(t, anular(cancelOf('HR-O', {}, 'A-2026/', '01-03-2026')), 409, 'INVOICE_HAS_RECTIFICATIVAS');
    const db = t.engine.context.db;
    db.run(db.kysely.updateTable('invoices').set({ estadoFactura: 'anulada' }).where('id', '=', r.idFactura));
    expect((await anular(cancelOf('HR-O', {}, 'A-2026/', '01-03-2026'))).statusCode).toBe(200);
  });
});

describe('Issuer rules on anular: 403 FORBIDDEN for a foreign, unknown, inactive or TicketBAI issuer; LIVE needs a signed representation', () => {
  it('foreign, unknown, inactive, tbai: the same 403 body, nothing stored', async () => {
    const other = anotherAccount(t);
    await crearOk(t, aFacturaF2({ emisor: { nif: other.nif, nombre: 'Otra' }, cabecera: { numero: 'OF-1' } }), other.test);
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif: 'B88888888', nombre: 'Foral', hacienda: 'tbai-bizkaia' });
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif: 'B99999997', nombre: 'Parado', hacienda: 'verifactu' });
    await crearOk(t, aFacturaF2({ emisor: { nif: 'B99999997', nombre: 'Parado' }, cabecera: { numero: 'OF-1' } }));
    const db = t.engine.context.db;
    db.run(db.kysely.updateTable('issuers').set({ estado: 'inactivo' }).where('nif', '=', 'B99999997'));
    const before = counts(t);
    const bodies: unknown[] = [];
    for (const nif of [other.nif, 'B33333337', 'B88888888', 'B99999997']) {
      const res = await anular({ version: '1.0', facturaAnulada: { nifEmisor: nif, serie: 'T', numero: 'OF-1', fechaExpedicion: '02-03-2026' } });
      expect(res.statusCode).toBe(403);
      bodies.push(res.json());
    }
    expect(bodies.every((b) => JSON.stringify(b) === JSON.stringify(bodies[0]))).toBe(true);
    expect(bodies[0]).toMatchObject({ code: 'FORBIDDEN' });
    expect(counts(t)).toEqual(before);
  });

  it('LIVE with an unsigned representation: 403 REPRESENTATION_PENDING', async () => {
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'live', nif: 'A12345674', nombre: 'Representado', hacienda: 'verifactu' });
    await expectRefused(
      t,
      anular({ version: '1.0', sinRegistroPrevio: true, facturaAnulada: { nifEmisor: 'A12345674', numero: '1', fechaExpedicion: '02-03-2026' } }, t.keys.live),
      403,
      'REPRESENTATION_PENDING',
    );
  });
});

describe('Validation before anything is stored, every 400 naming the field in campo (anular)', () => {
  const base = () => cancelOf('V-1') as unknown as { version: string; facturaAnulada: Record<string, unknown> } & Record<string, unknown>;
  const cases: [string, () => unknown, string][] = [
    ['missing numero', () => ({ ...base(), facturaAnulada: { ...base().facturaAnulada, numero: undefined } }), 'facturaAnulada.numero'],
    ['bad fechaExpedicion form', () => ({ ...base(), facturaAnulada: { ...base().facturaAnulada, fechaExpedicion: '2026-03-02' } }), 'facturaAnulada.fechaExpedicion'],
    ['impossible date', () => ({ ...base(), facturaAnulada: { ...base().facturaAnulada, fechaExpedicion: '30-02-2026' } }), 'facturaAnulada.fechaExpedicion'],
    ['bad nifEmisor', () => ({ ...base(), facturaAnulada: { ...base().facturaAnulada, nifEmisor: 'b12345674' } }), 'facturaAnulada.nifEmisor'],
    ['serie + numero over 60', () => ({ ...base(), facturaAnulada: { ...base().facturaAnulada, serie: 'S'.repeat(30), numero: 'N'.repeat(31) } }), 'facturaAnulada.numero'],
    ['unknown key inside facturaAnulada', () => ({ ...base(), facturaAnulada: { ...base().facturaAnulada, importe: '1.00' } }), 'facturaAnulada.importe'],
    ['unknown top-level key', () => ({ ...base(), motivo: 'x' }), 'motivo'],
    ['version other than 1.0', () => ({ ...base(), version: '2.0' }), 'version'],
    ['sinRegistroPrevio not a boolean', () => ({ ...base(), sinRegistroPrevio: 'S' }), 'sinRegistroPrevio'],
    ['idMaquina out of pattern', () => ({ ...base(), idMaquina: 'caja 1' }), 'idMaquina'],
    ['nombreEmisor with an encoded entity', () => ({ ...base(), facturaAnulada: { ...base().facturaAnulada, nombreEmisor: 'L&oacute;pez' } }), 'facturaAnulada.nombreEmisor'],
  ];
  for (const [name, body, campo] of cases) {
    it(`${name} → 400 VALIDATION_ERROR campo ${campo}`, async () => {
      const before = counts(t);
      await expectRefused(t, anular(body()), 400, 'VALIDATION_ERROR', campo);
      expect(counts(t)).toEqual(before);
    });
  }
});
