// Identity of an invoice: (environment, emisor.nif, serie, numero, fechaExpedicion). A replay
// answers the stored answer and creates nothing; a changed importeTotal or tipoFactura is 409.
import { beforeAll, describe, expect, it } from 'vitest';
import { aFacturaF1, aFacturaF2, anAnularBody } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import {
  CHAIN_TEST,
  counts,
  crear,
  crearOk,
  expectRefused,
  json,
  NIF,
  useEngineOnFixtureDay,
  type EmisionAnswer,
} from './helpers';

let t: TestEngine;
useEngineOnFixtureDay((engine) => (t = engine));

const chainLength = () => t.engine.context.invoices.chain(CHAIN_TEST).length;

describe('A request repeating an existing identity with the same importeTotal and tipoFactura is a replay: 200 with the stored answer plus yaExistente: true; nothing new is chained or sent', () => {
  it('the same body twice', async () => {
    const first = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-1' } }));
    expect('yaExistente' in first).toBe(false);
    const before = counts(t);
    const length = chainLength();
    t.clock.advance(60_000);
    const again = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-1' } }));
    t.clock.advance(-60_000);
    expect(again).toEqual({ ...first, yaExistente: true });
    expect(chainLength()).toBe(length);
    expect(counts(t)).toEqual(before);
  });

  it('"121" equals "121.00" (and "21" equals "21.00")', async () => {
    const first = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-2' } }));
    const length = chainLength();
    const again = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-2' }, importeTotal: '121', cuotaTotal: '21' }));
    expect(again).toEqual({ ...first, yaExistente: true });
    const again2 = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-2' }, importeTotal: '121.0' }));
    expect(again2.huella).toBe(first.huella);
    expect(chainLength()).toBe(length);
  });

  it('fields outside identity, importeTotal and tipoFactura do not matter: still the stored answer', async () => {
    const first = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-3' } }));
    const length = chainLength();
    const again = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-3', descripcion: 'Otra descripción' }, idMaquina: 'caja-9' }));
    expect(again).toEqual({ ...first, yaExistente: true });
    expect(chainLength()).toBe(length);
    const detail = await t.billing('GET', `/v1/facturas/${first.idFactura}?nifEmisor=${NIF}`);
    expect(detail.json().factura.descripcion).toBe('Venta de herramientas');
  });

  it('the stored answer keeps its avisos', async () => {
    const first = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-4' }, importeTotal: '121.03' }));
    expect(first.avisos?.length).toBeGreaterThan(0);
    const again = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-4' }, importeTotal: '121.03' }));
    expect(again.avisos).toEqual(first.avisos);
    expect(again.yaExistente).toBe(true);
  });

  it('20 identical requests at once: one invoice, one record, the other 19 are replays of it', async () => {
    const length = chainLength();
    const res = await Promise.all(Array.from({ length: 20 }, () => crear(t, aFacturaF2({ cabecera: { numero: 'RP-5' } }))));
    expect(res.every((r) => r.statusCode === 200)).toBe(true);
    const answers = res.map((r) => json<EmisionAnswer>(r));
    expect(new Set(answers.map((a) => a.idFactura)).size).toBe(1);
    expect(new Set(answers.map((a) => a.huella)).size).toBe(1);
    expect(answers.filter((a) => a.yaExistente === true)).toHaveLength(19);
    expect(chainLength()).toBe(length + 1);
  });

  it('a replay of a cancelled invoice still answers the stored answer and chains nothing', async () => {
    const first = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-6' } }));
    const anu = await t.billing('POST', '/v1/verifactu/anular', {
      body: anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie: 'A-2026/', numero: 'RP-6', fechaExpedicion: '02-03-2026' } }),
    });
    expect(anu.statusCode).toBe(200);
    const length = chainLength();
    const again = await crearOk(t, aFacturaF1({ cabecera: { numero: 'RP-6' } }));
    expect(again).toEqual({ ...first, yaExistente: true });
    expect(chainLength()).toBe(length);
  });
});

describe('With a different importeTotal or tipoFactura: 409 INVOICE_IDENTITY_CONFLICT, errors naming those fields', () => {
  let original: EmisionAnswer;
  beforeAll(async () => {
    original = await crearOk(t, aFacturaF1({ cabecera: { numero: 'IC-1' } }));
  });

  it('different importeTotal', async () => {
    const before = counts(t);
    const body = await expectRefused(t, crear(t, aFacturaF1({ cabecera: { numero: 'IC-1' }, importeTotal: '121.01' })), 409, 'INVOICE_IDENTITY_CONFLICT');
    expect(body.errors).toHaveLength(1);
    expect(body.errors?.[0]).toMatch(/^totales\.importeTotal: /);
    expect(counts(t)).toEqual(before);
  });

  it('different tipoFactura', async () => {
    const f = aFacturaF1({ cabecera: { numero: 'IC-1', tipoFactura: 'F2' } });
    delete f.destinatario;
    const body = await expectRefused(t, crear(t, f), 409, 'INVOICE_IDENTITY_CONFLICT');
    expect(body.errors).toHaveLength(1);
    expect(body.errors?.[0]).toMatch(/^cabecera\.tipoFactura: /);
  });

  it('both different: both named', async () => {
    const f = aFacturaF1({ cabecera: { numero: 'IC-1', tipoFactura: 'F2' }, importeTotal: '12.10', cuotaTotal: '2.10' });
    delete f.destinatario;
    f.detalleDesglose = aFacturaF2().detalleDesglose;
    const body = await expectRefused(t, crear(t, f), 409, 'INVOICE_IDENTITY_CONFLICT');
    expect(body.errors?.map((e) => e.split(':')[0]).sort()).toEqual(['cabecera.tipoFactura', 'totales.importeTotal']);
  });

  it('the stored invoice is untouched by the refused requests', async () => {
    const detail = await t.billing('GET', `/v1/facturas/${original.idFactura}?nifEmisor=${NIF}`);
    expect(detail.json().factura).toMatchObject({ importeTotal: '121.00', tipoFactura: 'F1', hashVerifactu: original.huella });
    expect(detail.json().totalRegistros).toBe(1);
  });
});

describe('Identity of an invoice: (environment, emisor.nif, serie, numero, fechaExpedicion)', () => {
  it('changing any one part of it is a new invoice with its own record', async () => {
    const base = aFacturaF1({ cabecera: { serie: 'ID', numero: '1' } });
    const first = await crearOk(t, base);
    const variants = [
      aFacturaF1({ cabecera: { serie: 'ID2', numero: '1' } }),
      aFacturaF1({ cabecera: { serie: 'ID', numero: '2' } }),
      aFacturaF1({ cabecera: { serie: 'ID', numero: '1', fechaExpedicion: '01-03-2026' } }),
    ];
    for (const v of variants) {
      const a = await crearOk(t, v);
      expect(a.yaExistente).toBeUndefined();
      expect(a.idFactura).not.toBe(first.idFactura);
    }
    // Another environment: the same identity under the LIVE key is a LIVE invoice of its own.
    const live = await crearOk(t, base, t.keys.live);
    expect(live.yaExistente).toBeUndefined();
    expect(live.entorno).toBe('live');
    expect(live.idFactura).not.toBe(first.idFactura);
    // ...and replaying it in TEST is still TEST's stored answer.
    expect(await crearOk(t, base)).toEqual({ ...first, yaExistente: true });
  });

  it('serie and numero are separate: ("A", "12") and ("A1", "2") read the same numeroFactura but are two invoices', async () => {
    const a = await crearOk(t, aFacturaF2({ cabecera: { serie: 'A', numero: '12' } }));
    const b = await crearOk(t, aFacturaF2({ cabecera: { serie: 'A1', numero: '2' } }));
    expect(a.numeroFactura).toBe('A12');
    expect(b.numeroFactura).toBe('A12');
    expect(b.yaExistente).toBeUndefined();
    expect(b.idFactura).not.toBe(a.idFactura);
  });
});
