// POST /v1/verifactu/crear: the answer, what one request stores, the issuer rules.
import { describe, expect, it } from 'vitest';
import type { FacturaVerifactu } from '../../../src-shared/api/verifactu';
import { aDestinatarioIdOtro, aDetalle, aFacturaF1, aFacturaF2, aFacturaF3, aFacturaR, aSubsanacion } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import {
  anotherAccount,
  CHAIN_TEST,
  counts,
  crear,
  crearOk,
  demoAccountId,
  expectRefused,
  json,
  NIF,
  recordElement,
  setIssuerEstado,
  useEngineOnFixtureDay,
  xmlText,
  type EmisionAnswer,
} from './helpers';

let t: TestEngine;
useEngineOnFixtureDay((engine) => (t = engine));

const ANSWER_KEYS = ['entorno', 'estado', 'fechaHoraHusoGenRegistro', 'huella', 'idFactura', 'numeroFactura', 'qrBase64', 'sistemaFiscal', 'urlValidacion'];

describe('POST /v1/verifactu/crear answers 200: idFactura, estado "pendiente_proceso", numeroFactura, sistemaFiscal, entorno, huella, fechaHoraHusoGenRegistro, urlValidacion, qrBase64', () => {
  const TYPES: [string, FacturaVerifactu][] = [
    ['F1', aFacturaF1()],
    ['F2', aFacturaF2()],
    ['F3', aFacturaF3()],
    ...(['R1', 'R2', 'R3', 'R4', 'R5'] as const).flatMap((tipo) =>
      (['S', 'I'] as const).map((r): [string, FacturaVerifactu] => [`${tipo} ${r}`, aFacturaR(tipo, r, { cabecera: { numero: `${tipo}${r}` } })]),
    ),
  ];
  for (const [name, factura] of TYPES) {
    it(`every invoice type: ${name}`, async () => {
      const before = counts(t);
      const res = await crear(t, factura);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const a = json<EmisionAnswer>(res);
      expect(Object.keys(a).sort()).toEqual(ANSWER_KEYS);
      expect(a.estado).toBe('pendiente_proceso');
      expect(a.sistemaFiscal).toBe('verifactu');
      expect(a.entorno).toBe('test');
      expect(a.numeroFactura).toBe(`${factura.cabecera.serie ?? ''}${factura.cabecera.numero}`);
      expect(a.huella).toMatch(/^[0-9A-F]{64}$/);
      expect(a.fechaHoraHusoGenRegistro).toBe('2026-03-02T11:15:00+01:00');
      expect(a.qrBase64).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      // One request stores invoice, record, chain head and submission job together.
      const after = counts(t);
      expect(after.invoices).toBe(before.invoices + 1);
      expect(after.registros).toBe(before.registros + 1);
      expect(after.jobs).toBe(before.jobs + 1);
      expect(after.chains).toBe(Math.max(1, before.chains));
      const detail = await t.billing('GET', `/v1/facturas/${a.idFactura}?nifEmisor=${NIF}`);
      expect(detail.json()).toMatchObject({ factura: { tipoFactura: factura.cabecera.tipoFactura, numeroFactura: a.numeroFactura } });
    });
  }

  it('the invoice without series: numeroFactura is the number alone', async () => {
    const f = aFacturaF2({ cabecera: { numero: 'SINSERIE-1' } });
    delete f.cabecera.serie;
    const a = await crearOk(t, f);
    expect(a.numeroFactura).toBe('SINSERIE-1');
    expect(a.urlValidacion).toContain('&numserie=SINSERIE-1&');
  });
});

describe('Recipient by NIF or idOtro', () => {
  it('idOtro is written as IDOtro with its country, type and id; the detail returns the recipient as sent', async () => {
    const destinatario = aDestinatarioIdOtro();
    const a = await crearOk(t, aFacturaF1({ cabecera: { numero: 'OTRO-1' }, destinatario }));
    const xml = await t.billing('GET', `/v1/facturas/${a.idFactura}/xml?nifEmisor=${NIF}`);
    const rec = recordElement(xml.body);
    expect(xmlText(rec, 'Destinatarios', 'IDDestinatario', 'IDOtro', 'CodigoPais')).toBe('FR');
    expect(xmlText(rec, 'Destinatarios', 'IDDestinatario', 'IDOtro', 'IDType')).toBe('02');
    expect(xmlText(rec, 'Destinatarios', 'IDDestinatario', 'IDOtro', 'ID')).toBe('FR52422961982');
    expect(xmlText(rec, 'Destinatarios', 'IDDestinatario', 'NIF')).toBeUndefined();
    const detail = await t.billing('GET', `/v1/facturas/${a.idFactura}?nifEmisor=${NIF}`);
    expect(detail.json().factura.destinatario).toEqual(destinatario);
  });

  it('nif and idOtro together, or neither, is 400 naming the field', async () => {
    const both = aFacturaF1({ cabecera: { numero: 'OTRO-2' }, destinatario: { nif: '12345678Z', nombre: 'X', idOtro: { idType: '02', id: 'FR1' } } });
    await expectRefused(t, crear(t, both), 400, 'VALIDATION_ERROR', 'destinatario.idOtro');
    const neither = aFacturaF1({ cabecera: { numero: 'OTRO-3' }, destinatario: { nombre: 'X' } });
    await expectRefused(t, crear(t, neither), 400, 'VALIDATION_ERROR', 'destinatario.nif');
  });
});

describe('idMaquina: stored on the record and returned by the record list', () => {
  it('is optional; when sent it appears on the record, never in the XML', async () => {
    const a = await crearOk(t, aFacturaF2({ cabecera: { numero: 'MAQ-1' }, idMaquina: 'TPV-02.caja_1' }));
    const list = await t.billing('GET', `/v1/registros?nifEmisor=${NIF}&limite=500`);
    const rec = list.json().registros.find((r: { idFactura: string }) => r.idFactura === a.idFactura);
    expect(rec).toMatchObject({ idMaquina: 'TPV-02.caja_1', tipo: 'alta' });
    const xml = await t.billing('GET', `/v1/facturas/${a.idFactura}/xml?nifEmisor=${NIF}`);
    expect(xml.body).not.toContain('TPV-02');
    const without = await crearOk(t, aFacturaF2({ cabecera: { numero: 'MAQ-2' } }));
    const list2 = await t.billing('GET', `/v1/registros?nifEmisor=${NIF}&limite=500`);
    const rec2 = list2.json().registros.find((r: { idFactura: string }) => r.idFactura === without.idFactura);
    expect(rec2).toBeDefined();
    expect('idMaquina' in rec2).toBe(false);
  });
});

describe('avisos: what AEAT would accept with errors is a 200 with avisos', () => {
  it('totals off within AEAT’s tolerance', async () => {
    const a = await crearOk(t, aFacturaF1({ cabecera: { numero: 'AV-1' }, importeTotal: '121.05' }));
    expect(a.avisos?.some((w) => w.startsWith('totales.importeTotal'))).toBe(true);
  });
  it('totals off beyond the tolerance (AEAT 2005/2006: accepted with errors)', async () => {
    const a = await crearOk(t, aFacturaF1({ cabecera: { numero: 'AV-2' }, importeTotal: '141.00', cuotaTotal: '41.00' }));
    expect(a.avisos?.some((w) => w.includes('2005'))).toBe(true);
    expect(a.avisos?.some((w) => w.includes('2006'))).toBe(true);
  });
  it('a simplified invoice above 400.00 (legal limit AEAT does not check)', async () => {
    const a = await crearOk(
      t,
      aFacturaF2({
        cabecera: { numero: 'AV-3' },
        detalleDesglose: [aDetalle({ baseImponible: '500.00', cuotaRepercutida: '105.00' })],
        totales: { cuotaTotal: '105.00', importeTotal: '605.00' },
      }),
    );
    expect(a.avisos?.some((w) => w.startsWith('totales.importeTotal'))).toBe(true);
  });
  it('a clean invoice has no avisos key at all', async () => {
    const a = await crearOk(t, aFacturaF1({ cabecera: { numero: 'AV-4' } }));
    expect('avisos' in a).toBe(false);
  });
});

describe('FechaHoraHusoGenRegistro with the Europe/Madrid offset (right across daylight-saving changes)', () => {
  it('+01:00 before the change of 29-03-2026, +02:00 right after it and in summer, +01:00 again after 25-10-2026', async () => {
    const cases: [string, string][] = [
      ['2026-03-29T00:59:59.000Z', '2026-03-29T01:59:59+01:00'],
      ['2026-03-29T01:00:00.000Z', '2026-03-29T03:00:00+02:00'],
      ['2026-07-15T22:30:00.000Z', '2026-07-16T00:30:00+02:00'],
      ['2026-10-25T00:59:59.000Z', '2026-10-25T02:59:59+02:00'],
      ['2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00+01:00'],
    ];
    const saved = t.clock.now();
    try {
      for (const [i, [instant, expected]] of cases.entries()) {
        t.clock.set(instant);
        const a = await crearOk(t, aFacturaF2({ cabecera: { numero: `DST-${i}` } }));
        expect(a.fechaHoraHusoGenRegistro).toBe(expected);
        const xml = await t.billing('GET', `/v1/facturas/${a.idFactura}/xml?nifEmisor=${NIF}`);
        expect(xmlText(recordElement(xml.body), 'FechaHoraHusoGenRegistro')).toBe(expected);
      }
    } finally {
      t.clock.set(saved);
    }
  });
});

describe('Until the submission issue lands, records wait in pendiente_proceso', () => {
  it('the record, its submission job and the status view say so', async () => {
    const a = await crearOk(t, aFacturaF1({ cabecera: { numero: 'PEND-1' } }));
    const rows = t.engine.context.invoices.registrosOf(a.idFactura);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tipo: 'alta', estado: 'pendiente', estadoEnvio: 'pendiente_proceso', estadoEnvioFinal: null });
    const db = t.engine.context.db;
    const job = db.first(db.kysely.selectFrom('submission_jobs').selectAll().where('registroId', '=', rows[0]?.id ?? ''));
    expect(job).toMatchObject({ estado: 'pendiente', entorno: 'test', queueKey: `test|aeat|${NIF}` });
    const estado = await t.billing('GET', `/v1/facturas/${a.idFactura}/estado?nifEmisor=${NIF}`);
    expect(estado.json()).toMatchObject({ estadoEnvio: 'pendiente_proceso', estadoFactura: null });
    expect(t.engine.context.invoices.chain(CHAIN_TEST).at(-1)?.invoiceId).toBe(a.idFactura);
  });
});

describe('Issuer rules: emisor.nif must be an active issuer of the key’s account in that environment with hacienda verifactu (else 403 FORBIDDEN, the same body whatever the reason)', () => {
  let forbiddenBody: unknown;

  async function expectForbidden(body: FacturaVerifactu, key?: string) {
    const before = counts(t);
    const res = await crear(t, body, key);
    expect(res.statusCode, res.body).toBe(403);
    const got = res.json();
    expect(got.code).toBe('FORBIDDEN');
    forbiddenBody ??= got;
    expect(got).toEqual(forbiddenBody);
    expect(counts(t)).toEqual(before);
  }

  it('an unregistered emisor.nif', async () => {
    await expectForbidden(aFacturaF2({ emisor: { nif: 'B33333337', nombre: 'Nadie SL' }, cabecera: { numero: 'FB-1' } }));
  });

  it('an issuer of another account', async () => {
    const other = anotherAccount(t);
    await expectForbidden(aFacturaF2({ emisor: { nif: other.nif, nombre: 'Otra' }, cabecera: { numero: 'FB-2' } }));
    // ...while that account itself may issue for it.
    await crearOk(t, aFacturaF2({ emisor: { nif: other.nif, nombre: 'Otra' }, cabecera: { numero: 'FB-2' } }), other.test);
    // ...and it cannot issue for ours.
    await expectForbidden(aFacturaF2({ cabecera: { numero: 'FB-2b' } }), other.test);
  });

  it('an issuer that exists only in the other environment', async () => {
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'live', nif: 'A44444446', nombre: 'Solo Live SA', hacienda: 'verifactu', estadoRepresentacion: 'firmado' });
    await expectForbidden(aFacturaF2({ emisor: { nif: 'A44444446', nombre: 'Solo Live SA' }, cabecera: { numero: 'FB-3' } }));
    await crearOk(t, aFacturaF2({ emisor: { nif: 'A44444446', nombre: 'Solo Live SA' }, cabecera: { numero: 'FB-3' } }), t.keys.live);
  });

  it('an inactive or deleted issuer', async () => {
    const nif = 'B22222228';
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif, nombre: 'Pausado SL', hacienda: 'verifactu' });
    await crearOk(t, aFacturaF2({ emisor: { nif, nombre: 'Pausado SL' }, cabecera: { numero: 'FB-4' } }));
    for (const estado of ['inactivo', 'eliminado'] as const) {
      setIssuerEstado(t, 'test', nif, estado);
      await expectForbidden(aFacturaF2({ emisor: { nif, nombre: 'Pausado SL' }, cabecera: { numero: `FB-5-${estado}` } }));
    }
    setIssuerEstado(t, 'test', nif, 'activo');
  });

  it('an issuer with hacienda tbai-*', async () => {
    for (const [i, hacienda] of (['tbai-araba', 'tbai-bizkaia', 'tbai-gipuzkoa'] as const).entries()) {
      const nif = ['B44444448', 'B55555557', 'B66666666'][i] ?? '';
      t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif, nombre: 'Foral SL', hacienda });
      await expectForbidden(aFacturaF2({ emisor: { nif, nombre: 'Foral SL' }, cabecera: { numero: `FB-6-${i}` } }));
    }
  });
});

describe('402 PAYMENT_REQUIRED: a new registration while the account’s billing is inactive (facturacionActiva: false)', () => {
  it('crear is refused with nothing stored; corrections and cancellations of existing invoices still pass', async () => {
    const existing = aFacturaF1({ cabecera: { numero: 'PAY-1' } });
    await crearOk(t, existing);
    const id = demoAccountId(t);
    t.engine.context.accounts.updateAccount(id, { facturacionActiva: 0 });
    try {
      const before = counts(t);
      const res = await expectRefused(t, crear(t, aFacturaF1({ cabecera: { numero: 'PAY-2' } })), 402, 'PAYMENT_REQUIRED');
      expect(res.message.length).toBeGreaterThan(0);
      expect(counts(t)).toEqual(before);
      const sub = await t.billing('PUT', '/v1/verifactu/subsanar', { body: aSubsanacion({ cabecera: { numero: 'PAY-1', descripcion: 'Corregida' } }) });
      expect(sub.statusCode, sub.body).toBe(200);
      const anu = await t.billing('POST', '/v1/verifactu/anular', {
        body: { version: '1.0', facturaAnulada: { nifEmisor: NIF, serie: 'A-2026/', numero: 'PAY-1', fechaExpedicion: '02-03-2026' } },
      });
      expect(anu.statusCode, anu.body).toBe(200);
    } finally {
      t.engine.context.accounts.updateAccount(id, { facturacionActiva: 1 });
    }
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'PAY-2' } }));
  });

  it('a replay is not a new registration: the invoice already issued still gets its stored answer (and a conflict its 409)', async () => {
    const first = await crearOk(t, aFacturaF2({ cabecera: { numero: 'PAY-3' } }));
    const id = demoAccountId(t);
    t.engine.context.accounts.updateAccount(id, { facturacionActiva: 0 });
    try {
      const before = counts(t);
      const again = await crearOk(t, aFacturaF2({ cabecera: { numero: 'PAY-3' } }));
      expect(again).toEqual({ ...first, yaExistente: true });
      await expectRefused(t, crear(t, aFacturaF2({ cabecera: { numero: 'PAY-3' }, importeTotal: '12.11' })), 409, 'INVOICE_IDENTITY_CONFLICT');
      expect(counts(t)).toEqual(before);
    } finally {
      t.engine.context.accounts.updateAccount(id, { facturacionActiva: 1 });
    }
  });

  it('concurrent new invoices while billing is inactive: every one 402, nothing chained', async () => {
    const id = demoAccountId(t);
    const length = t.engine.context.invoices.chain(CHAIN_TEST).length;
    t.engine.context.accounts.updateAccount(id, { facturacionActiva: 0 });
    try {
      const res = await Promise.all(Array.from({ length: 10 }, (_, i) => crear(t, aFacturaF2({ cabecera: { numero: `PAY-C${i}` } }))));
      expect(res.map((r) => r.statusCode)).toEqual(Array.from({ length: 10 }, () => 402));
    } finally {
      t.engine.context.accounts.updateAccount(id, { facturacionActiva: 1 });
    }
    expect(t.engine.context.invoices.chain(CHAIN_TEST)).toHaveLength(length);
  });
});

describe('403 REPRESENTATION_PENDING: LIVE issuing while the issuer’s representation is unsigned', () => {
  const nif = 'B11111119';
  const body = (numero: string) => aFacturaF2({ emisor: { nif, nombre: 'Cliente Representado SL' }, cabecera: { numero } });

  it('a client issuer of the account in LIVE with estadoRepresentacion pendiente: 403 with code REPRESENTATION_PENDING, nothing stored', async () => {
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'live', nif, nombre: 'Cliente Representado SL', hacienda: 'verifactu' });
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif, nombre: 'Cliente Representado SL', hacienda: 'verifactu' });
    const before = counts(t);
    await expectRefused(t, crear(t, body('REP-1'), t.keys.live), 403, 'REPRESENTATION_PENDING');
    expect(counts(t)).toEqual(before);
  });

  it('the same issuer in TEST issues freely', async () => {
    await crearOk(t, body('REP-1'));
  });

  it('once the representation is firmado, LIVE issuing opens', async () => {
    const db = t.engine.context.db;
    db.run(db.kysely.updateTable('issuers').set({ estadoRepresentacion: 'firmado' }).where('entorno', '=', 'live').where('nif', '=', nif));
    const a = await crearOk(t, body('REP-1'), t.keys.live);
    expect(a.entorno).toBe('live');
  });

  it('the account’s own company needs no representation in LIVE', async () => {
    const own = t.engine.context.issuers.find('live', NIF);
    expect(own?.estadoRepresentacion).not.toBe('firmado');
    const a = await crearOk(t, aFacturaF2({ cabecera: { numero: 'REP-OWN' } }), t.keys.live);
    expect(a.urlValidacion.startsWith('https://www2.agenciatributaria.gob.es/')).toBe(true);
  });

  it('a foreign issuer in LIVE is FORBIDDEN, not REPRESENTATION_PENDING (no enumeration)', async () => {
    const other = anotherAccount(t, 'B77777779');
    const res = await crear(t, aFacturaF2({ emisor: { nif: other.nif, nombre: 'Otra' }, cabecera: { numero: 'REP-F' } }), t.keys.live);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
  });
});
