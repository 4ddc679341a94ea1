// The hash chain under concurrency: one chain per (environment, issuer), unbroken whatever the
// interleaving of requests that group commit puts in one transaction.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RegistroRow } from '../../../engine/src/invoices/store';
import { aFacturaF1, aFacturaF2, anAnularBody, aSubsanacion } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import {
  CHAIN_TEST,
  crear,
  crearOk,
  demoAccountId,
  engineOnFixtureDay,
  huellaFromXml,
  json,
  NIF,
  parseXml,
  xmlText,
  type EmisionAnswer,
} from './helpers';
import { refuseInserts } from '../../support/db-faults';

let t: TestEngine;
beforeEach(async () => {
  t = await engineOnFixtureDay();
});
afterEach(async () => t.close());

/** Checks every link of a chain from the stored rows and from the XML each row carries. */
function expectUnbrokenChain(chain: (RegistroRow & { xml: string })[]): void {
  expect(chain.length).toBeGreaterThan(0);
  chain.forEach((rec, i) => {
    expect(rec.chainSeq).toBe(i + 1);
    const xml = parseXml(rec.xml);
    // The huella stored, the one in the XML and the one recomputed from the XML's fields agree.
    expect(xmlText(xml, 'Huella')).toBe(rec.huella);
    expect(huellaFromXml(xml)).toBe(rec.huella);
    if (i === 0) {
      expect(rec.huellaAnterior).toBeNull();
      expect(xmlText(xml, 'Encadenamiento', 'PrimerRegistro')).toBe('S');
      expect(xmlText(xml, 'Encadenamiento', 'RegistroAnterior')).toBeUndefined();
    } else {
      const prev = chain[i - 1];
      const prevXml = parseXml(prev?.xml ?? '');
      expect(rec.huellaAnterior).toBe(prev?.huella);
      expect(xmlText(xml, 'Encadenamiento', 'PrimerRegistro')).toBeUndefined();
      expect(xmlText(xml, 'Encadenamiento', 'RegistroAnterior', 'Huella')).toBe(prev?.huella);
      // RegistroAnterior identifies the previous record's invoice as that record wrote it.
      const prevIsAlta = prevXml.localName === 'RegistroAlta';
      expect(xmlText(xml, 'Encadenamiento', 'RegistroAnterior', 'IDEmisorFactura')).toBe(
        xmlText(prevXml, 'IDFactura', prevIsAlta ? 'IDEmisorFactura' : 'IDEmisorFacturaAnulada'),
      );
      expect(xmlText(xml, 'Encadenamiento', 'RegistroAnterior', 'NumSerieFactura')).toBe(
        xmlText(prevXml, 'IDFactura', prevIsAlta ? 'NumSerieFactura' : 'NumSerieFacturaAnulada'),
      );
      expect(xmlText(xml, 'Encadenamiento', 'RegistroAnterior', 'FechaExpedicionFactura')).toBe(
        xmlText(prevXml, 'IDFactura', prevIsAlta ? 'FechaExpedicionFactura' : 'FechaExpedicionFacturaAnulada'),
      );
    }
  });
}

describe('200 concurrent `crear` requests on one issuer leave one unbroken chain', () => {
  it('each record’s previous hash equals the previous record’s hash, the first says PrimerRegistro', async () => {
    const N = 200;
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) => crear(t, aFacturaF2({ cabecera: { numero: `C${String(i).padStart(4, '0')}` } }))),
    );
    for (const res of responses) expect(res.statusCode, res.body).toBe(200);
    const answers = responses.map((r) => json<EmisionAnswer>(r));
    expect(new Set(answers.map((a) => a.idFactura)).size).toBe(N);
    expect(answers.every((a) => a.yaExistente === undefined)).toBe(true);

    const chain = t.engine.context.invoices.chain(CHAIN_TEST);
    expect(chain).toHaveLength(N);
    expectUnbrokenChain(chain);
    // Every answer's huella is in the chain exactly once, on its own invoice's record.
    const byInvoice = new Map(chain.map((r) => [r.invoiceId, r.huella]));
    for (const a of answers) expect(byInvoice.get(a.idFactura)).toBe(a.huella);
    expect(new Set(chain.map((r) => r.huella)).size).toBe(N);
  });
});

describe('Encadenamiento to the previous record of the chain, whatever the record kind', () => {
  it('crear, subsanar, anular, replays and conflicts sent together keep one chain', async () => {
    const base = Array.from({ length: 40 }, (_, i) => aFacturaF1({ cabecera: { numero: `M${i}` } }));
    await Promise.all(base.map((f) => crearOk(t, f)));
    const mixed = [
      // 40 new invoices
      ...Array.from({ length: 40 }, (_, i) => crear(t, aFacturaF1({ cabecera: { numero: `N${i}` } }))),
      // 10 cancellations, 10 corrections of the first batch
      ...Array.from({ length: 10 }, (_, i) =>
        t.billing('POST', '/v1/verifactu/anular', {
          body: anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie: 'A-2026/', numero: `M${i}`, fechaExpedicion: '02-03-2026' } }),
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        t.billing('PUT', '/v1/verifactu/subsanar', { body: aSubsanacion({ cabecera: { numero: `M${10 + i}`, descripcion: 'Corregida' } }) }),
      ),
      // 10 replays (nothing chained) and 10 identity conflicts (refused inside the same batch)
      ...Array.from({ length: 10 }, (_, i) => crear(t, aFacturaF1({ cabecera: { numero: `M${20 + i}` } }))),
      ...Array.from({ length: 10 }, (_, i) => crear(t, aFacturaF1({ cabecera: { numero: `M${30 + i}` }, importeTotal: '122.00', cuotaTotal: '22.00' }))),
    ];
    const res = await Promise.all(mixed);
    const statuses = res.map((r) => r.statusCode);
    expect(statuses.slice(0, 70).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(70).every((s) => s === 409)).toBe(true);
    expect(res.slice(60, 70).every((r) => json<EmisionAnswer>(r).yaExistente === true)).toBe(true);

    const chain = t.engine.context.invoices.chain(CHAIN_TEST);
    // 40 + 40 altas, 10 anulaciones, 10 subsanaciones; replays and conflicts add nothing.
    expect(chain).toHaveLength(100);
    expect(chain.filter((r) => r.tipo === 'anulacion')).toHaveLength(10);
    expect(chain.filter((r) => r.tipo === 'subsanacion')).toHaveLength(10);
    expectUnbrokenChain(chain);
  });
});

describe('The chain is per (environment, issuer)', () => {
  it('TEST and LIVE of the same issuer, and another issuer of the account, each start with PrimerRegistro', async () => {
    const ctx = t.engine.context;
    ctx.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif: 'B11111119', nombre: 'Segundo Emisor SL', hacienda: 'verifactu' });
    await Promise.all([
      ...Array.from({ length: 15 }, (_, i) => crearOk(t, aFacturaF2({ cabecera: { numero: `T${i}` } }))),
      ...Array.from({ length: 15 }, (_, i) => crearOk(t, aFacturaF2({ cabecera: { numero: `L${i}` } }), t.keys.live)),
      ...Array.from({ length: 15 }, (_, i) =>
        crearOk(t, aFacturaF2({ emisor: { nif: 'B11111119', nombre: 'Segundo Emisor SL' }, cabecera: { numero: `S${i}` } })),
      ),
    ]);
    const chains = [CHAIN_TEST, `live|verifactu|${NIF}`, 'test|verifactu|B11111119'].map((k) => ctx.invoices.chain(k));
    for (const chain of chains) {
      expect(chain).toHaveLength(15);
      expectUnbrokenChain(chain);
    }
    expect(chains[0]?.every((r) => r.entorno === 'test' && r.nifEmisor === NIF)).toBe(true);
    expect(chains[1]?.every((r) => r.entorno === 'live' && r.nifEmisor === NIF)).toBe(true);
    expect(chains[2]?.every((r) => r.nifEmisor === 'B11111119')).toBe(true);
  });
});

describe('A request that fails inside a shared transaction rolls back alone', () => {
  it('a database error in one request of a batch leaves the others committed and the chain whole', async () => {
    // A trigger refusing one invoice number: that request fails with a real database error while
    // it shares the group-commit transaction with the others.
    const allow = refuseInserts(t.engine.context.db, 'registros', 'simulated write failure', "NEW.invoiceId IN (SELECT id FROM invoices WHERE numero = 'X07')");
    const res = await Promise.all(Array.from({ length: 12 }, (_, i) => crear(t, aFacturaF2({ cabecera: { numero: `X${String(i).padStart(2, '0')}` } }))));
    expect(res.map((r) => r.statusCode)).toEqual(res.map((_, i) => (i === 7 ? 500 : 200)));
    expect(res[7]?.json()).toMatchObject({ code: 'DATABASE_ERROR' });
    allow();
    const chain = t.engine.context.invoices.chain(CHAIN_TEST);
    expect(chain).toHaveLength(11);
    expectUnbrokenChain(chain);
    // The failed invoice left nothing behind: issuing it again is a first issue, not a replay.
    const again = await crearOk(t, aFacturaF2({ cabecera: { numero: 'X07' } }));
    expect(again.yaExistente).toBeUndefined();
    expectUnbrokenChain(t.engine.context.invoices.chain(CHAIN_TEST));
  });
});
