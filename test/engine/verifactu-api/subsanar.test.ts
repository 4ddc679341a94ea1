// PUT /v1/verifactu/subsanar: the whole corrected invoice, same identity, same answer shape.
import { beforeAll, describe, expect, it } from 'vitest';
import { aDetalle, aFacturaF1, aFacturaR, aSubsanacion, anAnularBody } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import {
  anotherAccount,
  CHAIN_TEST,
  demoAccountId,
  counts,
  crear,
  crearOk,
  decodeQrPng,
  expectRefused,
  huellaFromXml,
  json,
  NIF,
  recordElement,
  useEngineOnFixtureDay,
  xmlText,
  type EmisionAnswer,
} from './helpers';

let t: TestEngine;
useEngineOnFixtureDay((engine) => (t = engine));

const subsanar = (body: unknown, key?: string) => t.billing('PUT', '/v1/verifactu/subsanar', { body, ...(key ? { key } : {}) });
const chain = () => t.engine.context.invoices.chain(CHAIN_TEST);

/** 200 + 21 % = 242.00: a corrected amount. */
const corrected = (numero: string) =>
  aSubsanacion({
    cabecera: { numero, descripcion: 'Venta corregida' },
    detalleDesglose: [aDetalle({ baseImponible: '200.00', cuotaRepercutida: '42.00' })],
    totales: { cuotaTotal: '42.00', importeTotal: '242.00' },
  });

describe('PUT /v1/verifactu/subsanar: the whole corrected invoice plus subsanacion and rechazoPrevio; same answer shape', () => {
  it('a correction of the amounts: same idFactura, a new chained record with Subsanacion S, the invoice shows the corrected data', async () => {
    const alta = await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-1' } }));
    const before = counts(t);
    t.clock.advance(60_000);
    const res = await subsanar(corrected('SB-1'));
    t.clock.advance(-60_000);
    expect(res.statusCode, res.body).toBe(200);
    const a = json<EmisionAnswer>(res);
    expect(Object.keys(a).sort()).toEqual(['entorno', 'estado', 'fechaHoraHusoGenRegistro', 'huella', 'idFactura', 'numeroFactura', 'qrBase64', 'sistemaFiscal', 'urlValidacion']);
    expect(a).toMatchObject({ idFactura: alta.idFactura, estado: 'pendiente_proceso', numeroFactura: 'A-2026/SB-1', sistemaFiscal: 'verifactu', entorno: 'test' });
    expect(a.fechaHoraHusoGenRegistro).toBe('2026-03-02T11:16:00+01:00');
    expect(a.huella).not.toBe(alta.huella);
    expect(a.urlValidacion).toBe('https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=A-2026%2FSB-1&fecha=02-03-2026&importe=242.00');
    expect(decodeQrPng(Buffer.from(a.qrBase64, 'base64'))).toBe(a.urlValidacion);

    const after = counts(t);
    expect(after.invoices).toBe(before.invoices);
    expect(after.registros).toBe(before.registros + 1);
    expect(after.jobs).toBe(before.jobs + 1);

    const last = chain().at(-1);
    expect(last).toMatchObject({ tipo: 'subsanacion', invoiceId: alta.idFactura, huella: a.huella, huellaAnterior: chain().at(-2)?.huella });
    const rec = recordElement(last?.xml ?? '');
    expect(xmlText(rec, 'Subsanacion')).toBe('S');
    expect(xmlText(rec, 'ImporteTotal')).toBe('242.00');
    expect(huellaFromXml(rec)).toBe(a.huella);

    const detail = (await t.billing('GET', `/v1/facturas/${alta.idFactura}?nifEmisor=${NIF}`)).json();
    expect(detail.factura).toMatchObject({ importeTotal: '242.00', cuotaTotal: '42.00', descripcion: 'Venta corregida', hashVerifactu: a.huella, urlValidacion: a.urlValidacion });
    expect(detail.totalRegistros).toBe(2);
    expect(detail.registros.map((r: { tipo: string }) => r.tipo)).toEqual(['subsanacion', 'alta']);
    // GET …/xml now serves the corrected record; GET …/qr the corrected URL.
    const xml = await t.billing('GET', `/v1/facturas/${alta.idFactura}/xml?nifEmisor=${NIF}`);
    expect(xmlText(recordElement(xml.body), 'Huella')).toBe(a.huella);
    const png = await t.billing('GET', `/v1/facturas/${alta.idFactura}/qr?nifEmisor=${NIF}`, { headers: { accept: 'image/png' } });
    expect(png.rawPayload.equals(Buffer.from(a.qrBase64, 'base64'))).toBe(true);
  });

  it('subsanacion "S" is accepted like true; RechazoPrevio comes from the engine’s own records, a different value sent is corrected and said in avisos', async () => {
    const alta = await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-2' } }));
    const db = t.engine.context.db;
    const setEstado = (id: string | undefined, estado: 'aceptada' | 'rechazada') =>
      db.run(db.kysely.updateTable('registros').set({ estado }).where('id', '=', id ?? ''));
    const lastXml = () => recordElement(chain().at(-1)?.xml ?? '');

    // Nothing rejected: N, whatever the client says (with an aviso when it said otherwise).
    const s = await subsanar({ ...aSubsanacion({ cabecera: { numero: 'SB-2', descripcion: 'Uno' } }, 'S'), subsanacion: 'S' });
    expect(s.statusCode, s.body).toBe(200);
    expect(xmlText(lastXml(), 'RechazoPrevio')).toBe('N');
    expect(json<EmisionAnswer>(s).avisos?.some((w) => w.startsWith('rechazoPrevio'))).toBe(true);
    const n = await subsanar(aSubsanacion({ cabecera: { numero: 'SB-2', descripcion: 'Dos' } }, 'N'));
    expect(json<EmisionAnswer>(n).avisos).toBeUndefined();

    // Every alta/correction so far rejected: AEAT holds nothing, X.
    for (const r of t.engine.context.invoices.registrosOf(alta.idFactura)) setEstado(r.id, 'rechazada');
    const x = await subsanar(aSubsanacion({ cabecera: { numero: 'SB-2', descripcion: 'Tres' } }, 'X'));
    expect(x.statusCode, x.body).toBe(200);
    expect(xmlText(lastXml(), 'RechazoPrevio')).toBe('X');
    expect(json<EmisionAnswer>(x).avisos).toBeUndefined();

    // Registered once, the last correction rejected: S.
    const regs = t.engine.context.invoices.registrosOf(alta.idFactura);
    setEstado(regs.at(-1)?.id, 'aceptada');
    setEstado(regs[0]?.id, 'rechazada');
    const sS = await subsanar(aSubsanacion({ cabecera: { numero: 'SB-2', descripcion: 'Cuatro' } }, 'S'));
    expect(sS.statusCode, sS.body).toBe(200);
    expect(xmlText(lastXml(), 'RechazoPrevio')).toBe('S');

    const detail = await t.billing('GET', `/v1/registros/${chain().at(-1)?.id}?nifEmisor=${NIF}&idFactura=${alta.idFactura}`);
    expect(detail.json()).toMatchObject({ tipo: 'subsanacion', esRectificativa: false });
  });

  it('the same correction sent again is a replay: the stored answer with yaExistente, nothing chained', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-3' } }));
    const first = json<EmisionAnswer>(await subsanar(corrected('SB-3')));
    const before = counts(t);
    const again = await subsanar(corrected('SB-3'));
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual({ ...first, yaExistente: true });
    expect(counts(t)).toEqual(before);
  });

  it('after a correction, crear with the corrected amount replays it and with the old one is a conflict', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-4' } }));
    const sub = json<EmisionAnswer>(await subsanar(corrected('SB-4')));
    const replay = await crearOk(t, { ...corrected('SB-4'), subsanacion: undefined, rechazoPrevio: undefined });
    expect(replay).toEqual({ ...sub, yaExistente: true });
    await expectRefused(t, crear(t, aFacturaF1({ cabecera: { numero: 'SB-4' } })), 409, 'INVOICE_IDENTITY_CONFLICT');
  });
});

describe('A correction carries the whole invoice: its rectified invoices replace the previous ones (409 INVOICE_HAS_RECTIFICATIVAS follows them)', () => {
  it('an R1 corrected to rectify B instead of A: A can be cancelled, B cannot', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'RA', fechaExpedicion: '01-03-2026' } }));
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'RB', fechaExpedicion: '01-03-2026' } }));
    const ref = (numero: string) => [{ serie: 'A-2026/', numero, fechaExpedicion: '01-03-2026' }];
    const r1 = aFacturaR('R1', 'I', { cabecera: { numero: 'SB-R1' }, facturasRectificadas: ref('RA') });
    const issued = await crearOk(t, r1);
    const sub = await subsanar({ ...r1, facturasRectificadas: ref('RB'), subsanacion: true });
    expect(sub.statusCode, sub.body).toBe(200);
    const cancel = (numero: string) =>
      t.billing('POST', '/v1/verifactu/anular', { body: anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie: 'A-2026/', numero, fechaExpedicion: '01-03-2026' } }) });
    const b = await expectRefused(t, cancel('RB'), 409, 'INVOICE_HAS_RECTIFICATIVAS');
    expect(JSON.stringify(b.details)).toContain(issued.idFactura);
    expect((await cancel('RA')).statusCode).toBe(200);
  });
});

describe('The identity cannot change: a correction of an invoice not on record is 409 INVOICE_NOT_FOUND', () => {
  it('unknown identity, nothing stored', async () => {
    const before = counts(t);
    await expectRefused(t, subsanar(corrected('SB-NONE')), 409, 'INVOICE_NOT_FOUND');
    expect(counts(t)).toEqual(before);
  });

  it('another fechaExpedicion is another identity', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-5' } }));
    const body = aSubsanacion({ cabecera: { numero: 'SB-5', fechaExpedicion: '01-03-2026' } });
    await expectRefused(t, subsanar(body), 409, 'INVOICE_NOT_FOUND');
  });

  it('an invoice known only by a cancellation without previous record cannot be corrected', async () => {
    const res = await t.billing('POST', '/v1/verifactu/anular', {
      body: anAnularBody({ sinRegistroPrevio: true, facturaAnulada: { nifEmisor: NIF, serie: 'A-2026/', numero: 'SB-SRP', fechaExpedicion: '02-03-2026' } }),
    });
    expect(res.statusCode).toBe(200);
    await expectRefused(t, subsanar(corrected('SB-SRP')), 409, 'INVOICE_NOT_FOUND');
  });

  it('a cancelled invoice (anulada) admits no correction: 409 INVOICE_STATUS_INVALID', async () => {
    const a = await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-6' } }));
    const db = t.engine.context.db;
    db.run(db.kysely.updateTable('invoices').set({ estadoFactura: 'anulada' }).where('id', '=', a.idFactura));
    await expectRefused(t, subsanar(corrected('SB-6')), 409, 'INVOICE_STATUS_INVALID');
  });

  it('an invoice of the other environment is not on record', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-L' } }), t.keys.live);
    await expectRefused(t, subsanar(corrected('SB-L')), 409, 'INVOICE_NOT_FOUND');
    expect((await subsanar(corrected('SB-L'), t.keys.live)).statusCode).toBe(200);
  });
});

describe('Issuer rules on subsanar: 403 FORBIDDEN for an issuer of another account', () => {
  it('even when the identity exists under that account', async () => {
    const other = anotherAccount(t);
    const body = aFacturaF1({ emisor: { nif: other.nif, nombre: 'Otra' }, cabecera: { numero: 'SB-F' } });
    await crearOk(t, body, other.test);
    const before = counts(t);
    await expectRefused(t, subsanar({ ...body, subsanacion: true }), 403, 'FORBIDDEN');
    expect(counts(t)).toEqual(before);
  });
});

describe('Validation before anything is stored, every 400 naming the field in campo (subsanar)', () => {
  const cases: [string, () => unknown, string][] = [
    ['subsanacion missing', () => ({ ...corrected('SB-V'), subsanacion: undefined }), 'subsanacion'],
    ['subsanacion false', () => ({ ...corrected('SB-V'), subsanacion: false }), 'subsanacion'],
    ['subsanacion "N"', () => ({ ...corrected('SB-V'), subsanacion: 'N' }), 'subsanacion'],
    ['rechazoPrevio outside N S X', () => ({ ...corrected('SB-V'), rechazoPrevio: 'Y' }), 'rechazoPrevio'],
    ['a bad amount in the corrected invoice', () => ({ ...corrected('SB-V'), totales: { cuotaTotal: '42.00', importeTotal: '242,00' } }), 'totales.importeTotal'],
    ['an unknown key', () => ({ ...corrected('SB-V'), motivo: 'x' }), 'motivo'],
  ];
  beforeAll(async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-V' } }));
  });
  for (const [name, body, campo] of cases) {
    it(`${name} → 400 VALIDATION_ERROR campo ${campo}`, async () => {
      const before = counts(t);
      await expectRefused(t, subsanar(body()), 400, 'VALIDATION_ERROR', campo);
      expect(counts(t)).toEqual(before);
    });
  }
});

/** Rebuilds a JSON value with every object's keys in reverse order (same content, other spelling). */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).reverse().map((k) => [k, reversedKeys((value as Record<string, unknown>)[k])]));
  }
  return value;
}

describe('Replay of a correction is recognised on the parsed invoice, not on the JSON text', () => {
  it('other key order, "242" for "242.00", "21" for "21.00" and subsanacion "S" for true: a replay, nothing chained', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-FP1' } }));
    const first = json<EmisionAnswer>(await subsanar(corrected('SB-FP1')));
    const before = counts(t);
    const spelled = {
      ...corrected('SB-FP1'),
      subsanacion: 'S',
      detalleDesglose: [aDetalle({ baseImponible: '200', cuotaRepercutida: '42.0', tipoImpositivo: '21' })],
      totales: { cuotaTotal: '042.00', importeTotal: '242' },
    };
    expect(JSON.stringify(reversedKeys(spelled))).not.toBe(JSON.stringify(corrected('SB-FP1')));
    const again = await subsanar(reversedKeys(spelled));
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again)).toEqual({ ...first, yaExistente: true });
    expect(counts(t)).toEqual(before);
  });

  it('a correction that differs in content (another amount) is chained, not taken for a replay', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-FP2' } }));
    await subsanar(corrected('SB-FP2'));
    const before = counts(t);
    const other = aSubsanacion({
      cabecera: { numero: 'SB-FP2', descripcion: 'Venta corregida' },
      detalleDesglose: [aDetalle({ baseImponible: '300.00', cuotaRepercutida: '63.00' })],
      totales: { cuotaTotal: '63.00', importeTotal: '363.00' },
    });
    const res = await subsanar(other);
    expect(res.statusCode, res.body).toBe(200);
    expect(json<EmisionAnswer>(res).yaExistente).toBeUndefined();
    expect(counts(t).registros).toBe(before.registros + 1);
  });
});

describe('Billing record estado: a pending record reads procesando while a VeriFactu correction is in progress (spec table)', () => {
  it('alta pendiente → procesando in the detail envelope, the record list and the record detail; back to its own estado after the correction’s verdict', async () => {
    const alta = await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-PR1' } }));
    const altaId = chain().at(-1)?.id ?? '';
    const estados = async () => {
      const detail = (await t.billing('GET', `/v1/facturas/${alta.idFactura}?nifEmisor=${NIF}`)).json() as { registros: { idRegistro: string; tipo: string; estado: string }[] };
      const list = (await t.billing('GET', `/v1/registros?nifEmisor=${NIF}&limite=500`)).json() as { registros: { idRegistro: string; estado: string }[] };
      const one = (await t.billing('GET', `/v1/registros/${altaId}?nifEmisor=${NIF}&idFactura=${alta.idFactura}`)).json() as { estado: string };
      return {
        envelope: Object.fromEntries(detail.registros.map((r) => [r.tipo, r.estado])),
        list: list.registros.find((r) => r.idRegistro === altaId)?.estado,
        detail: one.estado,
      };
    };
    expect(await estados()).toEqual({ envelope: { alta: 'pendiente' }, list: 'pendiente', detail: 'pendiente' });

    await subsanar(corrected('SB-PR1'));
    expect(await estados()).toEqual({ envelope: { alta: 'procesando', subsanacion: 'pendiente' }, list: 'procesando', detail: 'procesando' });
    // Stored state is untouched: only the read says procesando.
    expect(t.engine.context.invoices.getRegistro(altaId)?.estado).toBe('pendiente');

    const db = t.engine.context.db;
    const sub = chain().at(-1);
    db.run(db.kysely.updateTable('registros').set({ estado: 'aceptada' }).where('id', '=', sub?.id ?? ''));
    expect(await estados()).toEqual({ envelope: { alta: 'pendiente', subsanacion: 'aceptada' }, list: 'pendiente', detail: 'pendiente' });
  });

  it('a record with a verdict keeps it; a cancellation never reads procesando', async () => {
    const alta = await crearOk(t, aFacturaF1({ cabecera: { numero: 'SB-PR2' } }));
    const db = t.engine.context.db;
    db.run(db.kysely.updateTable('registros').set({ estado: 'aceptada' }).where('id', '=', chain().at(-1)?.id ?? ''));
    await subsanar(corrected('SB-PR2'));
    const res = await t.billing('POST', '/v1/verifactu/anular', { body: anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie: 'A-2026/', numero: 'SB-PR2', fechaExpedicion: '02-03-2026' } }) });
    expect(res.statusCode, res.body).toBe(200);
    const detail = (await t.billing('GET', `/v1/facturas/${alta.idFactura}?nifEmisor=${NIF}`)).json() as { registros: { tipo: string; estado: string }[] };
    expect(Object.fromEntries(detail.registros.map((r) => [r.tipo, r.estado]))).toEqual({ alta: 'aceptada', subsanacion: 'pendiente', anulacion: 'pendiente' });
  });
});

describe('403 REPRESENTATION_PENDING: subsanar in LIVE while the issuer’s representation is unsigned', () => {
  it('an invoice issued while signed cannot be corrected once the representation is pending again; nothing chained', async () => {
    const nif = 'B11111119';
    const db = t.engine.context.db;
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'live', nif, nombre: 'Cliente Representado SL', hacienda: 'verifactu' });
    const setRepresentacion = (estadoRepresentacion: 'firmado' | 'pendiente') =>
      db.run(db.kysely.updateTable('issuers').set({ estadoRepresentacion }).where('entorno', '=', 'live').where('nif', '=', nif));
    const body = (o: Parameters<typeof aSubsanacion>[0]) => aSubsanacion({ emisor: { nif, nombre: 'Cliente Representado SL' }, ...o });
    setRepresentacion('firmado');
    await crearOk(t, aFacturaF1({ emisor: { nif, nombre: 'Cliente Representado SL' }, cabecera: { numero: 'SB-LR' } }), t.keys.live);
    setRepresentacion('pendiente');
    const before = counts(t);
    await expectRefused(t, subsanar(body({ cabecera: { numero: 'SB-LR', descripcion: 'Corregida' } }), t.keys.live), 403, 'REPRESENTATION_PENDING');
    expect(counts(t)).toEqual(before);
    setRepresentacion('firmado');
    const ok = await subsanar(body({ cabecera: { numero: 'SB-LR', descripcion: 'Corregida' } }), t.keys.live);
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
