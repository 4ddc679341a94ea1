// The spec's Errors table, row by row, for the VeriFactu issuing endpoints and the invoice and
// record reads; plus the error behaviour API-CONTRACT settles "everywhere".
//
// Rows of the table that do not apply to these endpoints: NIF batch, webhook, client, device and
// series rows (400 VALIDATION_ERROR for those fields, 404 MACHINE_NOT_FOUND / SERIE_NOT_RESERVED /
// NOT_UPLOADED_YET, the 409 CLIENT_* / SIGNING_IN_PROGRESS / SHARDING_NOT_ENABLED /
// MACHINE_ALREADY_REGISTERED / NOT_IN_PREPARATION / RESERVATION_LOCKED rows), 500
// PROPAGATION_INCOMPLETE, 503 AEAT_UNAVAILABLE. The issuing rows of the high-capacity mode
// (409 SERIE_OWNED_BY_OTHER_MACHINE and MACHINE_NOT_REGISTERED in phase `activa`, 503
// SHARDING_UNAVAILABLE) belong to the devices issue and are not built yet.
import { afterAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { aDestinatarioIdOtro, aDetalle, aFacturaF1, aFacturaF2, aFacturaF3, aFacturaR, anAnularBody, aSubsanacion } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { GENERADO_EN } from '../../fixtures/verifactu';
import {
  anotherAccount,
  counts,
  crear,
  crearOk,
  demoAccountId,
  expectRefused,
  NIF,
  useEngineOnFixtureDay,
  type EmisionAnswer,
} from './helpers';
import { refuseInserts } from '../../support/db-faults';

let t: TestEngine;
useEngineOnFixtureDay((engine) => (t = engine));

type Json = Record<string, unknown>;
/** A valid F1 as a plain JSON object, to break one field at a time. */
const f1 = (): Json => JSON.parse(JSON.stringify(aFacturaF1({ cabecera: { numero: 'VAL-1' } }))) as Json;
const set = (path: string, value: unknown) => (): Json => {
  const body = f1();
  const keys = path.split('.');
  let cur: Record<string, unknown> = body;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  const last = keys.at(-1) ?? '';
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return body;
};

describe('400 VALIDATION_ERROR: invalid fields or formats; campo names the JSON path; nothing is stored', () => {
  const CASES: [string, () => unknown, string][] = [
    // amounts: decimal strings, ≤ 12 integer digits, ≤ 2 decimals
    ['amount as a JSON number', set('totales.importeTotal', 121), 'totales.importeTotal'],
    ['amount in scientific notation', set('totales.importeTotal', '1.21e2'), 'totales.importeTotal'],
    ['amount with a decimal comma', set('totales.importeTotal', '121,00'), 'totales.importeTotal'],
    ['amount with a third decimal', set('totales.cuotaTotal', '21.001'), 'totales.cuotaTotal'],
    ['amount not a number', set('totales.importeTotal', 'ciento veinte'), 'totales.importeTotal'],
    ['amount with 13 integer digits', set('totales.importeTotal', '1234567890123.00'), 'totales.importeTotal'],
    ['amount with a leading +', set('totales.importeTotal', '+121.00'), 'totales.importeTotal'],
    ['amount empty', set('totales.importeTotal', ''), 'totales.importeTotal'],
    ['line amount as a float', () => ({ ...f1(), detalleDesglose: [{ ...aDetalle(), baseImponible: 100.5 }] }), 'detalleDesglose[0].baseImponible'],
    ['second line with a bad cuota', () => ({ ...f1(), detalleDesglose: [aDetalle(), aDetalle({ cuotaRepercutida: '2.1.0' })] }), 'detalleDesglose[1].cuotaRepercutida'],
    ['rate with a comma', () => ({ ...f1(), detalleDesglose: [aDetalle({ tipoImpositivo: '21,00' })] }), 'detalleDesglose[0].tipoImpositivo'],
    // dates: real dates dd-mm-aaaa
    ['fechaExpedicion year first', set('cabecera.fechaExpedicion', '2026-03-02'), 'cabecera.fechaExpedicion'],
    ['fechaExpedicion with slashes', set('cabecera.fechaExpedicion', '02/03/2026'), 'cabecera.fechaExpedicion'],
    ['fechaExpedicion with one-digit day', set('cabecera.fechaExpedicion', '2-03-2026'), 'cabecera.fechaExpedicion'],
    ['fechaExpedicion not a calendar date', set('cabecera.fechaExpedicion', '29-02-2026'), 'cabecera.fechaExpedicion'],
    ['fechaExpedicion after today (AEAT)', set('cabecera.fechaExpedicion', '03-03-2026'), 'cabecera.fechaExpedicion'],
    ['fechaOperacion not a date', set('cabecera.fechaOperacion', '31-04-2026'), 'cabecera.fechaOperacion'],
    // text: entities, XML-illegal characters, XSD lengths
    ['descripcion with an encoded entity &amp;', set('cabecera.descripcion', 'Tornillos &amp; tuercas'), 'cabecera.descripcion'],
    ['descripcion with a numeric entity &#38;', set('cabecera.descripcion', 'Tornillos &#38; tuercas'), 'cabecera.descripcion'],
    ['descripcion with a control character', set('cabecera.descripcion', 'Tornillos\u0001'), 'cabecera.descripcion'],
    ['descripcion with a lone surrogate', set('cabecera.descripcion', 'Tornillos \ud800'), 'cabecera.descripcion'],
    ['descripcion over 500 characters', set('cabecera.descripcion', 'x'.repeat(501)), 'cabecera.descripcion'],
    ['descripcion empty', set('cabecera.descripcion', ''), 'cabecera.descripcion'],
    ['emisor.nombre over 120 characters', set('emisor.nombre', 'N'.repeat(121)), 'emisor.nombre'],
    ['destinatario.nombre with &lt;', set('destinatario.nombre', 'Cliente &lt;SA&gt;'), 'destinatario.nombre'],
    // series and number: printable ASCII, joined ≤ 60
    ['serie with a non-ASCII character', set('cabecera.serie', 'AÑO'), 'cabecera.serie'],
    ['serie with a leading space', set('cabecera.serie', ' A'), 'cabecera.serie'],
    ['numero with a tab', set('cabecera.numero', '1\t2'), 'cabecera.numero'],
    ['numero missing', set('cabecera.numero', undefined), 'cabecera.numero'],
    ['serie + numero over 60', () => ({ ...f1(), cabecera: { ...(f1().cabecera as Json), serie: 'S'.repeat(30), numero: 'N'.repeat(31) } }), 'cabecera.numero'],
    // idMaquina pattern
    ['idMaquina with a space', set('idMaquina', 'caja 1'), 'idMaquina'],
    ['idMaquina over 64 characters', set('idMaquina', 'a'.repeat(65)), 'idMaquina'],
    // unknown keys are named themselves
    ['an unknown top-level key', set('descuento', '1.00'), 'descuento'],
    ['an unknown key in cabecera', set('cabecera.hora', '10:00'), 'cabecera.hora'],
    ['an unknown key in a line', () => ({ ...f1(), detalleDesglose: [{ ...aDetalle(), cantidad: '1' }] }), 'detalleDesglose[0].cantidad'],
    // shape
    ['version other than 1.0', set('version', '1.1'), 'version'],
    ['tipoFactura unknown', set('cabecera.tipoFactura', 'F4'), 'cabecera.tipoFactura'],
    ['emisor.nif not 9 upper-case characters', set('emisor.nif', 'b12345674'), 'emisor.nif'],
    ['no detalleDesglose line', set('detalleDesglose', []), 'detalleDesglose'],
    ['13 detalleDesglose lines', set('detalleDesglose', Array.from({ length: 13 }, () => aDetalle())), 'detalleDesglose'],
    ['calificacionOperacion and operacionExenta together', () => ({ ...f1(), detalleDesglose: [aDetalle({ operacionExenta: 'E1' })] }), 'detalleDesglose[0].operacionExenta'],
    ['idOtro with a country outside the AEAT list', () => ({ ...f1(), destinatario: aDestinatarioIdOtro({ codigoPais: 'ZZ' as 'FR' }) }), 'destinatario.idOtro.codigoPais'],
    ['rectificativa S without importes', () => ({ ...JSON.parse(JSON.stringify(aFacturaR('R1', 'S'))), rectificativa: { tipo: 'S' } }), 'rectificativa.importes'],
    // referenced invoices: serie + numero joined ≤ 60, as NumSerieFactura in the XSD
    ['facturasRectificadas[1]: serie + numero over 60', () => ({ ...JSON.parse(JSON.stringify(aFacturaR('R1', 'I'))), facturasRectificadas: [{ serie: 'T', numero: '1', fechaExpedicion: '01-03-2026' }, { serie: 'S'.repeat(30), numero: 'N'.repeat(31), fechaExpedicion: '01-03-2026' }] }), 'facturasRectificadas[1].numero'],
    ['facturasSustituidas[0]: serie + numero over 60', () => ({ ...JSON.parse(JSON.stringify(aFacturaF3())), facturasSustituidas: [{ serie: 'S'.repeat(59), numero: 'NN', fechaExpedicion: '01-03-2026' }] }), 'facturasSustituidas[0].numero'],
    // tax IDs of recipient and third party: the full check, not only the shape
    ['destinatario.nif with a wrong check letter', set('destinatario.nif', '12345678A'), 'destinatario.nif'],
    ['destinatario.nif CIF with a wrong check digit', set('destinatario.nif', 'B12345675'), 'destinatario.nif'],
    ['especial.tercero.nif with a wrong check digit', set('especial', { emitidaPor: 'T', tercero: { nif: 'B22222229', nombre: 'Gestoría' } }), 'especial.tercero.nif'],
    ['facturasSustituidas on an F1', set('facturasSustituidas', [{ serie: 'T', numero: '1', fechaExpedicion: '01-03-2026' }]), 'facturasSustituidas'],
    // AEAT rules that can be checked locally
    ['F1 without recipient (AEAT)', set('destinatario', undefined), 'destinatario'],
    ['F2 with recipient (AEAT)', () => ({ ...JSON.parse(JSON.stringify(aFacturaF2())), destinatario: { nif: '12345678Z', nombre: 'X' } }), 'destinatario'],
  ];

  for (const [name, body, campo] of CASES) {
    it(`${name} → campo ${campo}`, async () => {
      const before = counts(t);
      const res = await expectRefused(t, crear(t, body()), 400, 'VALIDATION_ERROR', campo);
      expect(res.errors?.some((e) => e.startsWith(`${campo}: `))).toBe(true);
      expect(counts(t)).toEqual(before);
    });
  }

  it('errors lists every problem as "path: text"; campo is the first', async () => {
    const body = { ...f1(), version: '2.0', totales: { cuotaTotal: 21, importeTotal: '1e2' }, extra: 1 };
    const res = await expectRefused(t, crear(t, body), 400, 'VALIDATION_ERROR');
    const paths = (res.errors ?? []).map((e) => e.split(': ')[0]);
    expect(paths).toEqual(expect.arrayContaining(['version', 'totales.cuotaTotal', 'totales.importeTotal', 'extra']));
    expect(paths[0]).toBe(res.campo);
  });

  it('a bare & is plain text and fine', async () => {
    const a = await crearOk(t, aFacturaF1({ cabecera: { numero: 'AMP-1', descripcion: 'Tornillos & tuercas' }, destinatario: { nif: '12345678Z', nombre: 'A & B' } }));
    expect(a.estado).toBe('pendiente_proceso');
  });

  it('the same rules on subsanar', async () => {
    await crearOk(t, aFacturaF1({ cabecera: { numero: 'VAL-S' } }));
    const before = counts(t);
    const bad = { ...aSubsanacion({ cabecera: { numero: 'VAL-S' } }), detalleDesglose: [aDetalle({ baseImponible: '100.001' })] };
    await expectRefused(t, t.billing('PUT', '/v1/verifactu/subsanar', { body: bad }), 400, 'VALIDATION_ERROR', 'detalleDesglose[0].baseImponible');
    expect(counts(t)).toEqual(before);
  });

  it('buscar: bad fechaExpedicion, serie or numero over 60', async () => {
    const q = `/v1/facturas/buscar?nifEmisor=${NIF}`;
    await expectRefused(t, t.billing('GET', `${q}&numero=1&fechaExpedicion=2026-03-02`), 400, 'VALIDATION_ERROR', 'fechaExpedicion');
    await expectRefused(t, t.billing('GET', `${q}&numero=1&fechaExpedicion=02%2F03%2F2026`), 400, 'VALIDATION_ERROR', 'fechaExpedicion');
    await expectRefused(t, t.billing('GET', `${q}&numero=${'1'.repeat(61)}&fechaExpedicion=02-03-2026`), 400, 'VALIDATION_ERROR', 'numero');
    await expectRefused(t, t.billing('GET', `${q}&serie=${'A'.repeat(61)}&numero=1&fechaExpedicion=02-03-2026`), 400, 'VALIDATION_ERROR', 'serie');
  });
});

describe('400 INVALID_PARAMETER: limite non-integer or below 1 on billing lists; unrecognized idRegistro', () => {
  for (const endpoint of ['facturas', 'registros']) {
    for (const limite of ['0', '-1', '-0', '1.5', '10.0', 'abc', '1e2', '%2B5', '5x', '%205']) {
      it(`GET /v1/${endpoint}?limite=${limite}`, async () => {
        const res = await expectRefused(t, t.billing('GET', `/v1/${endpoint}?nifEmisor=${NIF}&limite=${limite}`), 400, 'INVALID_PARAMETER', 'limite');
        expect(res.errors?.[0]).toMatch(/^limite: /);
      });
    }
  }

  it('an unrecognized idRegistro', async () => {
    const a = await crearOk(t, aFacturaF2({ cabecera: { numero: 'IP-1' } }));
    await expectRefused(t, t.billing('GET', `/v1/registros/zzz?nifEmisor=${NIF}&idFactura=${a.idFactura}`), 400, 'INVALID_PARAMETER', 'idRegistro');
  });
});

describe('400 MISSING_PARAMETER: numero or fechaExpedicion missing in search', () => {
  it('numero, then fechaExpedicion', async () => {
    await expectRefused(t, t.billing('GET', `/v1/facturas/buscar?nifEmisor=${NIF}&fechaExpedicion=02-03-2026`), 400, 'MISSING_PARAMETER', 'numero');
    await expectRefused(t, t.billing('GET', `/v1/facturas/buscar?nifEmisor=${NIF}&numero=1`), 400, 'MISSING_PARAMETER', 'fechaExpedicion');
  });
});

describe('402: a new registration while the account’s billing is inactive (facturacionActiva: false)', () => {
  it('code PAYMENT_REQUIRED, nothing stored; reads keep working', async () => {
    const a = await crearOk(t, aFacturaF2({ cabecera: { numero: 'PR-1' } }));
    t.engine.context.accounts.updateAccount(demoAccountId(t), { facturacionActiva: 0 });
    try {
      const before = counts(t);
      await expectRefused(t, crear(t, aFacturaF2({ cabecera: { numero: 'PR-2' } })), 402, 'PAYMENT_REQUIRED');
      expect(counts(t)).toEqual(before);
      expect((await t.billing('GET', `/v1/facturas/${a.idFactura}?nifEmisor=${NIF}`)).statusCode).toBe(200);
    } finally {
      t.engine.context.accounts.updateAccount(demoAccountId(t), { facturacionActiva: 1 });
    }
  });
});

describe('403: issuer not under the caller’s account; unregistered emisor.nif on issuing', () => {
  it('issuing, cancelling and correcting for an issuer of another account or an unregistered one: 403 FORBIDDEN', async () => {
    const other = anotherAccount(t);
    for (const nif of [other.nif, 'B33333337']) {
      const f = aFacturaF2({ emisor: { nif, nombre: 'Ajeno' }, cabecera: { numero: 'FB-1' } });
      await expectRefused(t, crear(t, f), 403, 'FORBIDDEN');
      await expectRefused(t, t.billing('PUT', '/v1/verifactu/subsanar', { body: { ...f, subsanacion: true } }), 403, 'FORBIDDEN');
      await expectRefused(
        t,
        t.billing('POST', '/v1/verifactu/anular', { body: anAnularBody({ facturaAnulada: { nifEmisor: nif, serie: 'T', numero: 'FB-1', fechaExpedicion: '02-03-2026' } }) }),
        403,
        'FORBIDDEN',
      );
    }
  });

  it('reads of an issuer of another account: 403 FORBIDDEN (every read is covered in reads.test.ts)', async () => {
    const other = anotherAccount(t, 'B99999997');
    await expectRefused(t, t.billing('GET', `/v1/facturas?nifEmisor=${other.nif}`), 403, 'FORBIDDEN');
    await expectRefused(t, t.billing('GET', `/v1/registros?nifEmisor=${other.nif}`), 403, 'FORBIDDEN');
  });
});

describe('403 REPRESENTATION_PENDING: LIVE issuing while the issuer’s representation is unsigned', () => {
  it('crear in LIVE for a client issuer without a signed representation', async () => {
    t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'live', nif: 'B11111119', nombre: 'Cliente SL', hacienda: 'verifactu' });
    const before = counts(t);
    await expectRefused(t, crear(t, aFacturaF2({ emisor: { nif: 'B11111119', nombre: 'Cliente SL' }, cabecera: { numero: 'RP-1' } }), t.keys.live), 403, 'REPRESENTATION_PENDING');
    expect(counts(t)).toEqual(before);
  });
});

describe('404 NOT_FOUND: invoice not found by search; unavailable XML or QR', () => {
  it('search without a match', async () => {
    await expectRefused(t, t.billing('GET', `/v1/facturas/buscar?nifEmisor=${NIF}&serie=T&numero=NADA&fechaExpedicion=02-03-2026`), 404, 'NOT_FOUND');
  });

  it('QR of an invoice without validation URL (known only by a cancellation without previous record)', async () => {
    const res = await t.billing('POST', '/v1/verifactu/anular', {
      body: anAnularBody({ sinRegistroPrevio: true, facturaAnulada: { nifEmisor: NIF, serie: 'Z', numero: 'NQR', fechaExpedicion: '01-03-2026' } }),
    });
    const id = res.json().data.idFactura as string;
    for (const accept of ['image/png', 'application/json', '*/*']) {
      await expectRefused(t, t.billing('GET', `/v1/facturas/${id}/qr?nifEmisor=${NIF}`, { headers: { accept } }), 404, 'NOT_FOUND');
    }
    // its XML is there (the cancellation record)
    expect((await t.billing('GET', `/v1/facturas/${id}/xml?nifEmisor=${NIF}`)).statusCode).toBe(200);
  });

  it('XML not stored', async () => {
    const a = await crearOk(t, aFacturaF2({ cabecera: { numero: 'NXML' } }));
    const db = t.engine.context.db;
    db.statement("UPDATE registro_documentos SET xml = '' WHERE registroId IN (SELECT id FROM registros WHERE invoiceId = ?)").run(a.idFactura);
    await expectRefused(t, t.billing('GET', `/v1/facturas/${a.idFactura}/xml?nifEmisor=${NIF}`), 404, 'NOT_FOUND');
  });

  it('an unknown invoice on every invoice read', async () => {
    for (const suffix of ['', '/estado', '/qr', '/xml']) {
      await expectRefused(t, t.billing('GET', `/v1/facturas/fac_unknown${suffix}?nifEmisor=${NIF}`), 404, 'NOT_FOUND');
    }
  });
});

describe('429: per-second limit or monthly quota exceeded', () => {
  let limited: TestEngine;
  afterAll(async () => limited?.close());

  it('per second: RATE_LIMITED with a short Retry-After, nothing stored; admitted again after waiting', async () => {
    limited = await makeTestEngine({ now: GENERADO_EN.toISOString(), limits: { test: { rps: 1, burst: 2, monthlyQuota: 1e9 } } });
    await crearOk(limited, aFacturaF2({ cabecera: { numero: 'RL-1' } }));
    expect((await limited.billing('GET', `/v1/facturas?nifEmisor=${NIF}`)).statusCode).toBe(200);
    const before = counts(limited);
    const refused = await crear(limited, aFacturaF2({ cabecera: { numero: 'RL-2' } }));
    await expectRefused(limited, refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(2);
    expect(counts(limited)).toEqual(before);
    await expectRefused(limited, limited.billing('GET', `/v1/facturas?nifEmisor=${NIF}`), 429, 'RATE_LIMITED');
    limited.clock.advance(1000);
    await crearOk(limited, aFacturaF2({ cabecera: { numero: 'RL-2' } }));
  });

  it('monthly quota: QUOTA_EXCEEDED with Retry-After = seconds to the 1st of next month (Madrid)', async () => {
    const q = await makeTestEngine({ now: GENERADO_EN.toISOString(), limits: { test: { rps: 1e6, burst: 1e6, monthlyQuota: 3 } } });
    try {
      await crearOk(q, aFacturaF2({ cabecera: { numero: 'QE-1' } }));
      expect((await q.billing('GET', `/v1/registros?nifEmisor=${NIF}`)).statusCode).toBe(200);
      expect((await q.billing('POST', '/v1/verifactu/anular', { body: anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie: 'T', numero: 'QE-1', fechaExpedicion: '02-03-2026' } }) })).statusCode).toBe(200);
      const before = counts(q);
      const refused = await crear(q, aFacturaF2({ cabecera: { numero: 'QE-2' } }));
      await expectRefused(q, refused, 429, 'QUOTA_EXCEEDED');
      // 2026-03-02T10:15Z → 2026-04-01T00:00+02:00 (= 2026-03-31T22:00Z)
      expect(Number(refused.headers['retry-after'])).toBe((Date.parse('2026-03-31T22:00:00Z') - GENERADO_EN.getTime()) / 1000);
      expect(counts(q)).toEqual(before);
      await expectRefused(q, q.billing('GET', `/v1/facturas?nifEmisor=${NIF}`), 429, 'QUOTA_EXCEEDED');
    } finally {
      await q.close();
    }
  });
});

describe('500 DATABASE_ERROR: data read or write failed; retryable', () => {
  it('a failed write: 500 DATABASE_ERROR, nothing stored, the retry succeeds', async () => {
    const db = t.engine.context.db;
    const allow = refuseInserts(db, 'submission_jobs', 'disk I/O error (simulated)');
    const before = counts(t);
    let res: LightMyRequestResponse;
    try {
      res = await crear(t, aFacturaF2({ cabecera: { numero: 'DB-1' } }));
    } finally {
      allow();
    }
    await expectRefused(t, res, 500, 'DATABASE_ERROR');
    expect(counts(t)).toEqual(before);
    const retry = await crearOk(t, aFacturaF2({ cabecera: { numero: 'DB-1' } }));
    expect(retry.yaExistente).toBeUndefined();
  });

  it('a failed read: 500 DATABASE_ERROR', async () => {
    const db = t.engine.context.db;
    db.statement('ALTER TABLE registros RENAME TO registros_moved').run();
    try {
      await expectRefused(t, t.billing('GET', `/v1/registros?nifEmisor=${NIF}`), 500, 'DATABASE_ERROR');
    } finally {
      db.statement('ALTER TABLE registros_moved RENAME TO registros').run();
    }
    expect((await t.billing('GET', `/v1/registros?nifEmisor=${NIF}`)).statusCode).toBe(200);
  });
});

describe('Key failures (missing, unknown, revoked x-api-key): 403 {"message":"Forbidden"} with no code, as an API gateway answers', () => {
  const endpoints: [string, string, unknown?][] = [
    ['POST', '/v1/verifactu/crear', aFacturaF2({ cabecera: { numero: 'KEY-1' } })],
    ['PUT', '/v1/verifactu/subsanar', aSubsanacion({ cabecera: { numero: 'KEY-1' } })],
    ['POST', '/v1/verifactu/anular', anAnularBody()],
    ['GET', `/v1/facturas?nifEmisor=${NIF}`],
    ['GET', `/v1/facturas/buscar?nifEmisor=${NIF}&numero=1&fechaExpedicion=02-03-2026`],
    ['GET', `/v1/facturas/fac_x?nifEmisor=${NIF}`],
    ['GET', `/v1/facturas/fac_x/estado?nifEmisor=${NIF}`],
    ['GET', `/v1/facturas/fac_x/qr?nifEmisor=${NIF}`],
    ['GET', `/v1/facturas/fac_x/xml?nifEmisor=${NIF}`],
    ['GET', `/v1/registros?nifEmisor=${NIF}`],
    ['GET', `/v1/registros/reg_x?nifEmisor=${NIF}&idFactura=fac_x`],
  ];
  it('every endpoint, before any validation; nothing stored', async () => {
    const revoked = t.engine.context.accounts.createKey(demoAccountId(t), 'test');
    t.engine.context.accounts.revokeKey(revoked.id);
    const before = counts(t);
    for (const [method, url, body] of endpoints) {
      for (const key of [null, 'sk_test_unknown', revoked.rawKey]) {
        const res = await t.billing(method, url, { key, ...(body !== undefined ? { body } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json()).toEqual({ message: 'Forbidden' });
      }
    }
    expect(counts(t)).toEqual(before);
  });
});

describe('Everywhere: unknown route 404 NOT_FOUND, body too large 413, not JSON 415 / 400, x-request-id on every answer', () => {
  it('unknown route', async () => {
    const res = await t.billing('POST', '/v1/verifactu/emitir', { body: {} });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
  });

  it('body too large', async () => {
    const big = { ...aFacturaF1({ cabecera: { numero: 'BIG' } }), aux: { refExterna: 'x'.repeat(2 * 1024 * 1024) } };
    const res = await crear(t, big);
    expect(res.statusCode).toBe(413);
  });

  it('not JSON: 415 for an unparsed content type, 400 naming body for text or malformed JSON', async () => {
    const xml = await t.billing('POST', '/v1/verifactu/crear', { body: '<a/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    // text/plain is parsed as a string, which is not an invoice: 400 naming body.
    const text = await t.billing('POST', '/v1/verifactu/crear', { body: 'hola', headers: { 'content-type': 'text/plain' } });
    await expectRefused(t, text, 400, 'VALIDATION_ERROR', 'body');
    const bad = await t.billing('POST', '/v1/verifactu/crear', { body: '{"version":', headers: { 'content-type': 'application/json' } });
    await expectRefused(t, bad, 400, 'VALIDATION_ERROR', 'body');
  });

  it('a JSON body that is not an object', async () => {
    const res = await t.billing('POST', '/v1/verifactu/crear', { body: '[1,2]', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
  });

  it('x-request-id on successes and errors of these endpoints', async () => {
    const ok: EmisionAnswer = await crearOk(t, aFacturaF2({ cabecera: { numero: 'RID-1' } }));
    const answers = [
      await crear(t, aFacturaF2({ cabecera: { numero: 'RID-1' } })),
      await crear(t, { version: '1.0' }),
      await t.billing('GET', `/v1/facturas/${ok.idFactura}/qr?nifEmisor=${NIF}`, { headers: { accept: 'image/png' } }),
      await t.billing('GET', `/v1/facturas/nope?nifEmisor=${NIF}`, { headers: { 'x-request-id': 'pos-7' } }),
    ];
    for (const res of answers) expect(res.headers['x-request-id']).toBeTruthy();
    expect(answers[3]?.headers['x-request-id']).toBe('pos-7');
  });
});
