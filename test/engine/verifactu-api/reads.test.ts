// Invoice and record reads of the billing API: lists with filters, limite and cursors; search;
// detail; status; record list and detail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aFacturaF1, aFacturaF2, aFacturaR, anAnularBody, aSubsanacion } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import {
  anotherAccount,
  crearOk,
  demoAccountId,
  engineOnFixtureDay,
  expectRefused,
  NIF,
  type EmisionAnswer,
} from './helpers';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

interface FacturaItem {
  idFactura: string;
  fechaRegistro: string;
  [k: string]: unknown;
}
interface FacturasPage {
  facturas: FacturaItem[];
  total: number;
  nifEmisor: string;
  nombreEmisor: string;
  proximaPagina: string | null;
  filtros?: Record<string, string>;
}
interface RegistrosPage {
  registros: { idRegistro: string; idFactura: string; tipo: string; creadoEn: string; [k: string]: unknown }[];
  total: number;
  nifEmisor: string;
  nombreEmisor: string;
  proximaPagina: string | null;
}

/** No value of a read is null or an empty string, except where a table says null. */
function expectNoNullsOrEmpty(value: unknown, path = ''): void {
  if (Array.isArray(value)) value.forEach((v, i) => expectNoNullsOrEmpty(v, `${path}[${i}]`));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'proximaPagina' || k === 'estadoFactura') continue;
      expect(v, `${path}.${k}`).not.toBeNull();
      expect(v, `${path}.${k}`).not.toBe('');
      expectNoNullsOrEmpty(v, `${path}.${k}`);
    }
  }
}

function setInvoice(t: TestEngine, id: string, changes: Record<string, unknown>): void {
  const db = t.engine.context.db;
  db.run(db.kysely.updateTable('invoices').set(changes).where('id', '=', id));
}

/** 250 invoices issued at 5 instants 1 s apart (50 concurrent each), newest last. */
async function issueMany(t: TestEngine, n: number, prefix: string, nif = NIF): Promise<EmisionAnswer[]> {
  const out: EmisionAnswer[] = [];
  for (let start = 0; start < n; start += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - start) }, (_, i) =>
        crearOk(t, aFacturaF2({ emisor: { nif, nombre: 'Emisor' }, cabecera: { numero: `${prefix}${String(start + i).padStart(4, '0')}` } })),
      ),
    );
    out.push(...batch);
    t.clock.advance(1000);
  }
  return out;
}

// ======================================================================= lists and cursors

describe('GET /v1/facturas and GET /v1/registros with many rows', () => {
  let t: TestEngine;
  let issued: EmisionAnswer[];
  beforeAll(async () => {
    t = await engineOnFixtureDay();
    issued = await issueMany(t, 250, 'P');
  });
  afterAll(async () => t.close());

  const page = async (url: string) => {
    const res = await t.billing('GET', url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  describe('Pagination: limite=100 over 250 invoices gives 3 pages, no duplicates, no gaps, proximaPagina null at the end', () => {
    it('GET /v1/facturas', async () => {
      const seen: FacturaItem[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const p = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as FacturasPage;
        sizes.push(p.facturas.length);
        expect(p.total).toBe(p.facturas.length);
        expect(p.nifEmisor).toBe(NIF);
        expect(p.nombreEmisor).toBe('COMERCIAL DEMO SL');
        expect('filtros' in p).toBe(false);
        seen.push(...p.facturas);
        cursor = p.proximaPagina;
      } while (cursor !== null && sizes.length < 10);
      expect(sizes).toEqual([100, 100, 50]);
      const ids = seen.map((f) => f.idFactura);
      expect(new Set(ids).size).toBe(250);
      expect(new Set(ids)).toEqual(new Set(issued.map((a) => a.idFactura)));
      // Newest first by creation time.
      for (let i = 1; i < seen.length; i++) expect(seen[i - 1]!.fechaRegistro >= seen[i]!.fechaRegistro).toBe(true);
      expect(seen[0]?.fechaRegistro).toBe('2026-03-02T10:15:04.000Z');
      expect(seen.at(-1)?.fechaRegistro).toBe('2026-03-02T10:15:00.000Z');
    });

    it('GET /v1/registros', async () => {
      const seen: RegistrosPage['registros'] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const p = (await page(`/v1/registros?nifEmisor=${NIF}&limite=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as RegistrosPage;
        expect(Object.keys(p).sort()).toEqual(['nifEmisor', 'nombreEmisor', 'proximaPagina', 'registros', 'total']);
        expect(p.total).toBe(p.registros.length);
        sizes.push(p.registros.length);
        seen.push(...p.registros);
        cursor = p.proximaPagina;
      } while (cursor !== null && sizes.length < 10);
      expect(sizes).toEqual([100, 100, 50]);
      expect(new Set(seen.map((r) => r.idRegistro)).size).toBe(250);
      for (let i = 1; i < seen.length; i++) expect(seen[i - 1]!.creadoEn >= seen[i]!.creadoEn).toBe(true);
    });

    it('an exact multiple: limite=125 gives two pages and the second says proximaPagina null', async () => {
      const p1 = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=125`)) as FacturasPage;
      expect(p1.facturas).toHaveLength(125);
      expect(p1.proximaPagina).not.toBeNull();
      const p2 = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=125&cursor=${encodeURIComponent(p1.proximaPagina ?? '')}`)) as FacturasPage;
      expect(p2.facturas).toHaveLength(125);
      expect(p2.proximaPagina).toBeNull();
    });

    it('rows issued after the first page was read do not shift the following pages', async () => {
      const p1 = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=100`)) as FacturasPage;
      const extra = await crearOk(t, aFacturaF2({ cabecera: { numero: 'LATE-1' } }));
      const p2 = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=100&cursor=${encodeURIComponent(p1.proximaPagina ?? '')}`)) as FacturasPage;
      const ids1 = new Set(p1.facturas.map((f) => f.idFactura));
      expect(p2.facturas.some((f) => ids1.has(f.idFactura))).toBe(false);
      expect(p2.facturas.some((f) => f.idFactura === extra.idFactura)).toBe(false);
      const first = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=1`)) as FacturasPage;
      expect(first.facturas[0]?.idFactura).toBe(extra.idFactura);
      issued.push(extra);
    });
  });

  describe('limite: optional, default 100, max 500; above the max it is cut to 500; empty limite= uses the default', () => {
    it('absent and empty → 100 rows', async () => {
      for (const url of [`/v1/facturas?nifEmisor=${NIF}`, `/v1/facturas?nifEmisor=${NIF}&limite=`, `/v1/registros?nifEmisor=${NIF}`, `/v1/registros?nifEmisor=${NIF}&limite=`]) {
        const p = await page(url);
        expect((p.facturas ?? p.registros).length, url).toBe(100);
        expect(p.total).toBe(100);
      }
    });

    it('above 500 is cut to 500 (505 invoices of another issuer)', async () => {
      const nif = 'B11111119';
      t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif, nombre: 'Emisor Grande SL', hacienda: 'verifactu' });
      await issueMany(t, 505, 'G', nif);
      for (const endpoint of ['facturas', 'registros']) {
        for (const limite of ['501', '600', '99999999999999999999']) {
          const p = await page(`/v1/${endpoint}?nifEmisor=${nif}&limite=${limite}`);
          expect((p.facturas ?? p.registros).length, `${endpoint} ${limite}`).toBe(500);
          expect(p.proximaPagina).not.toBeNull();
        }
        const p500 = await page(`/v1/${endpoint}?nifEmisor=${nif}&limite=500`);
        const rest = await page(`/v1/${endpoint}?nifEmisor=${nif}&limite=500&cursor=${encodeURIComponent(p500.proximaPagina)}`);
        expect((rest.facturas ?? rest.registros).length).toBe(5);
        expect(rest.proximaPagina).toBeNull();
      }
    });

    it('limite=1 is a page of one', async () => {
      const p = await page(`/v1/registros?nifEmisor=${NIF}&limite=1`);
      expect(p.registros).toHaveLength(1);
      expect(p.proximaPagina).not.toBeNull();
    });
  });

  describe('Cursors: opaque, tamper-proof, bound to account + endpoint + environment + issuer, expire after 24 h; bad or expired → 400 INVALID_CURSOR (campo cursor)', () => {
    let cursor: string;
    beforeAll(async () => {
      cursor = ((await page(`/v1/facturas?nifEmisor=${NIF}&limite=10`)) as FacturasPage).proximaPagina ?? '';
      expect(cursor).not.toBe('');
    });
    const withCursor = (c: string, endpoint = 'facturas', nif = NIF) => `/v1/${endpoint}?nifEmisor=${nif}&limite=10&cursor=${encodeURIComponent(c)}`;
    const expectInvalid = async (url: string, key?: string) => {
      const body = await expectRefused(t, t.billing('GET', url, key ? { key } : {}), 400, 'INVALID_CURSOR', 'cursor');
      expect(body.errors?.[0]).toMatch(/^cursor: /);
    };

    it('the cursor as given works', async () => {
      expect((await t.billing('GET', withCursor(cursor))).statusCode).toBe(200);
    });

    it('tampered: a changed character, a forged position, garbage, a truncated cursor', async () => {
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const [payload = '', signature = ''] = cursor.split('.');
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p: [string, string]; x: number };
      const forged = Buffer.from(JSON.stringify({ ...decoded, p: [decoded.p[0], 'fac_999999'] })).toString('base64url');
      const longer = Buffer.from(JSON.stringify({ ...decoded, x: decoded.x + 365 * 24 * 3600 * 1000 })).toString('base64url');
      for (const bad of [flip(cursor, 3), flip(cursor, cursor.length - 2), `${forged}.${signature}`, `${longer}.${signature}`, 'abc', cursor.slice(0, -1), `${cursor}.x`, `.${signature}`, `${payload}.`]) {
        await expectInvalid(withCursor(bad));
      }
    });

    it('used on another endpoint', async () => {
      await expectInvalid(withCursor(cursor, 'registros'));
      const registrosCursor = ((await page(`/v1/registros?nifEmisor=${NIF}&limite=10`)) as RegistrosPage).proximaPagina ?? '';
      await expectInvalid(withCursor(registrosCursor, 'facturas'));
    });

    it('used with another issuer of the same account', async () => {
      await expectInvalid(withCursor(cursor, 'facturas', 'B11111119'));
    });

    it('used with the key of the other environment', async () => {
      await expectInvalid(withCursor(cursor), t.keys.live);
    });

    it('used by another account on its own issuer', async () => {
      const other = anotherAccount(t);
      await expectInvalid(withCursor(cursor, 'facturas', other.nif), other.test);
    });

    it('older than 24 h', async () => {
      const saved = t.clock.now();
      try {
        t.clock.advance(24 * 3600 * 1000 - 1000);
        expect((await t.billing('GET', withCursor(cursor))).statusCode).toBe(200);
        t.clock.advance(2000);
        await expectInvalid(withCursor(cursor));
      } finally {
        t.clock.set(saved);
      }
    });

    it('an empty cursor= reads the first page', async () => {
      const p = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=10&cursor=`)) as FacturasPage;
      const first = (await page(`/v1/facturas?nifEmisor=${NIF}&limite=10`)) as FacturasPage;
      expect(p.facturas.map((f) => f.idFactura)).toEqual(first.facturas.map((f) => f.idFactura));
    });
  });
});

// ======================================================================= the other reads

describe('Invoice and record reads on a small data set', () => {
  let t: TestEngine;
  let f1: EmisionAnswer; // registered later (simulated acceptance)
  let f2: EmisionAnswer; // pending
  let r1: EmisionAnswer; // a rectificativa, cancelled later (simulated acceptance)
  let sinSerie: EmisionAnswer;
  let anulacion: { idFactura: string; idRegistro: string };
  const times: string[] = [];

  beforeAll(async () => {
    t = await engineOnFixtureDay();
    times.push(t.clock.now().toISOString());
    f1 = await crearOk(t, aFacturaF1());
    t.clock.advance(3600_000);
    times.push(t.clock.now().toISOString());
    f2 = await crearOk(t, aFacturaF2({ idMaquina: 'caja-7' }));
    t.clock.advance(24 * 3600_000);
    times.push(t.clock.now().toISOString());
    r1 = await crearOk(t, aFacturaR('R1', 'S'));
    const sinSerieBody = aFacturaF2({ cabecera: { numero: 'NS-1' } });
    delete sinSerieBody.cabecera.serie;
    sinSerie = await crearOk(t, sinSerieBody);
    t.clock.advance(60_000);
    const sub = await t.billing('PUT', '/v1/verifactu/subsanar', { body: aSubsanacion({ cabecera: { descripcion: 'Venta corregida' } }) });
    expect(sub.statusCode, sub.body).toBe(200);
    t.clock.advance(60_000);
    const anu = await t.billing('POST', '/v1/verifactu/anular', {
      body: anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie: 'R-', numero: '12', fechaExpedicion: '02-03-2026' }, idMaquina: 'caja-8' }),
    });
    expect(anu.statusCode, anu.body).toBe(200);
    anulacion = anu.json().data;
    setInvoice(t, f1.idFactura, { estadoFactura: 'registrada', csvAeat: 'A-CSV-0001', estadoEnvio: 'desconocido' });
    setInvoice(t, r1.idFactura, { estadoFactura: 'anulada' });
  });
  afterAll(async () => t.close());

  const list = async (qs: string) => {
    const res = await t.billing('GET', `/v1/facturas?nifEmisor=${NIF}${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as FacturasPage;
  };

  describe('GET /v1/facturas: facturas[], total, nifEmisor, nombreEmisor, proximaPagina, and filtros only when the request had a filter', () => {
    it('list items: the spec’s fields, newest first, absent values omitted', async () => {
      const p = await list('');
      expect(Object.keys(p).sort()).toEqual(['facturas', 'nifEmisor', 'nombreEmisor', 'proximaPagina', 'total']);
      expect(p.facturas.map((f) => f.idFactura)).toEqual([sinSerie.idFactura, r1.idFactura, f2.idFactura, f1.idFactura]);
      expect(p.total).toBe(4);
      expect(p.proximaPagina).toBeNull();
      expectNoNullsOrEmpty(p);
      const item = p.facturas.find((f) => f.idFactura === f2.idFactura);
      expect(item).toMatchObject({
        nifEmisor: NIF,
        numeroFactura: 'T000123',
        tipoFactura: 'F2',
        importeTotal: '12.10',
        cuotaTotal: '2.10',
        sistemaFiscal: 'verifactu',
        estadoEnvio: 'pendiente_proceso',
        fechaRegistro: times[1],
        ultimaModificacion: times[1],
        hashVerifactu: f2.huella,
      });
      expect(item?.urlQr).toMatch(new RegExp(`/v1/facturas/${f2.idFactura}/qr\\?nifEmisor=${NIF}$`));
      expect('estadoFactura' in (item ?? {})).toBe(false);
      const registered = p.facturas.find((f) => f.idFactura === f1.idFactura);
      expect(registered).toMatchObject({ estadoFactura: 'registrada', csvAeat: 'A-CSV-0001', importeTotal: '121.00' });
      expect('estadoEnvio' in (registered ?? {})).toBe(false);
      for (const f of p.facturas) {
        expect(f.fechaRegistro).toMatch(ISO_Z);
        expect(f.ultimaModificacion).toMatch(ISO_Z);
      }
    });

    it('estado filter, echoed in filtros', async () => {
      const reg = await list('&estado=registrada');
      expect(reg.facturas.map((f) => f.idFactura)).toEqual([f1.idFactura]);
      expect(reg.filtros).toEqual({ estado: 'registrada' });
      const anu = await list('&estado=anulada');
      expect(anu.facturas.map((f) => f.idFactura)).toEqual([r1.idFactura]);
      expect((await list('&estado=rectificada')).facturas).toEqual([]);
    });

    it('sistemaFiscal filter, echoed in filtros', async () => {
      const vf = await list('&sistemaFiscal=verifactu');
      expect(vf.facturas).toHaveLength(4);
      expect(vf.filtros).toEqual({ sistemaFiscal: 'verifactu' });
      const tb = await list('&sistemaFiscal=ticketbai');
      expect(tb.facturas).toEqual([]);
      expect(tb.total).toBe(0);
      expect(tb.proximaPagina).toBeNull();
    });

    it('fechaInicio / fechaFin bound the registration date (ISO 8601, date or date-time), echoed as sent', async () => {
      const a = await list(`&fechaInicio=${times[1]}`);
      expect(a.facturas.map((f) => f.idFactura)).toEqual([sinSerie.idFactura, r1.idFactura, f2.idFactura]);
      expect(a.filtros).toEqual({ fechaInicio: times[1] });
      const b = await list(`&fechaFin=${encodeURIComponent('2026-03-02T10:15:00Z')}`);
      expect(b.facturas.map((f) => f.idFactura)).toEqual([f1.idFactura]);
      const c = await list('&fechaInicio=2026-03-02&fechaFin=2026-03-02');
      expect(c.facturas.map((f) => f.idFactura)).toEqual([f2.idFactura, f1.idFactura]);
      expect(c.filtros).toEqual({ fechaInicio: '2026-03-02', fechaFin: '2026-03-02' });
      const d = await list('&fechaInicio=2026-03-03');
      expect(d.facturas.map((f) => f.idFactura)).toEqual([sinSerie.idFactura, r1.idFactura]);
      const e = await list(`&fechaInicio=${encodeURIComponent('2026-03-02T12:00:00+01:00')}&fechaFin=${encodeURIComponent('2026-03-02T12:30:00+01:00')}`);
      expect(e.facturas.map((f) => f.idFactura)).toEqual([f2.idFactura]);
    });

    it('filters combine, and all sent filters are echoed', async () => {
      const p = await list('&estado=registrada&sistemaFiscal=verifactu&fechaInicio=2026-03-01&fechaFin=2026-03-31&limite=5');
      expect(p.facturas.map((f) => f.idFactura)).toEqual([f1.idFactura]);
      expect(p.filtros).toEqual({ estado: 'registrada', sistemaFiscal: 'verifactu', fechaInicio: '2026-03-01', fechaFin: '2026-03-31' });
    });

    it('a filtered list pages with cursors too', async () => {
      const p1 = await list('&fechaInicio=2026-03-02&limite=1');
      expect(p1.facturas).toHaveLength(1);
      const p2 = await list(`&fechaInicio=2026-03-02&limite=1&cursor=${encodeURIComponent(p1.proximaPagina ?? '')}`);
      const p3 = await list(`&fechaInicio=2026-03-02&limite=1&cursor=${encodeURIComponent(p2.proximaPagina ?? '')}`);
      expect([p1, p2, p3].map((p) => p.facturas[0]?.idFactura)).toEqual([sinSerie.idFactura, r1.idFactura, f2.idFactura]);
      expect(p3.filtros).toEqual({ fechaInicio: '2026-03-02' });
    });

    it('invalid filter values are 400 naming the parameter', async () => {
      await expectRefused(t, t.billing('GET', `/v1/facturas?nifEmisor=${NIF}&estado=procesando`), 400, 'VALIDATION_ERROR', 'estado');
      await expectRefused(t, t.billing('GET', `/v1/facturas?nifEmisor=${NIF}&sistemaFiscal=sii`), 400, 'VALIDATION_ERROR', 'sistemaFiscal');
      await expectRefused(t, t.billing('GET', `/v1/facturas?nifEmisor=${NIF}&fechaInicio=02-03-2026`), 400, 'VALIDATION_ERROR', 'fechaInicio');
      await expectRefused(t, t.billing('GET', `/v1/facturas?nifEmisor=${NIF}&fechaFin=2026-13-45`), 400, 'VALIDATION_ERROR', 'fechaFin');
    });
  });

  describe('Status GET /v1/facturas/{idFactura}/estado: estadoFactura is null and estadoEnvio present during submission; after acceptance estadoFactura takes over', () => {
    it('pending', async () => {
      const res = await t.billing('GET', `/v1/facturas/${f2.idFactura}/estado?nifEmisor=${NIF}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        idFactura: f2.idFactura,
        numeroFactura: 'T000123',
        estadoEnvio: 'pendiente_proceso',
        estadoFactura: null,
        sistemaFiscal: 'verifactu',
        ultimaModificacion: times[1],
      });
    });

    it('registered: estadoFactura and csvAeat, no estadoEnvio', async () => {
      const body = (await t.billing('GET', `/v1/facturas/${f1.idFactura}/estado?nifEmisor=${NIF}`)).json();
      expect(body).toMatchObject({ idFactura: f1.idFactura, estadoFactura: 'registrada', csvAeat: 'A-CSV-0001', sistemaFiscal: 'verifactu' });
      expect('estadoEnvio' in body).toBe(false);
    });

    it('rejected: estadoEnvio rechazada without estadoFactura', async () => {
      const x = await crearOk(t, aFacturaF2({ cabecera: { numero: 'REJ-1' } }));
      setInvoice(t, x.idFactura, { estadoEnvio: 'rechazada' });
      const body = (await t.billing('GET', `/v1/facturas/${x.idFactura}/estado?nifEmisor=${NIF}`)).json();
      // Both views agree with the spec: `estadoEnvio: rechazada`, no `estadoFactura` (not null).
      expect(body).toMatchObject({ estadoEnvio: 'rechazada' });
      expect('estadoFactura' in body).toBe(false);
      const detail = (await t.billing('GET', `/v1/facturas/${x.idFactura}?nifEmisor=${NIF}`)).json();
      expect(detail.factura.estadoEnvio).toBe('rechazada');
      expect('estadoFactura' in detail.factura).toBe(false);
    });
  });

  describe('Detail GET /v1/facturas/{idFactura}: envelope factura, registros, totalRegistros; the minimal view while processing carries estadoFactura: procesando', () => {
    it('processing', async () => {
      const res = await t.billing('GET', `/v1/facturas/${f2.idFactura}?nifEmisor=${NIF}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['factura', 'registros', 'totalRegistros']);
      expect(body.factura).toMatchObject({
        idFactura: f2.idFactura,
        estadoFactura: 'procesando',
        serie: 'T',
        numero: '000123',
        fechaExpedicion: '02-03-2026',
        numeroFactura: 'T000123',
        urlValidacion: f2.urlValidacion,
        idMaquina: 'caja-7',
      });
      expect(body.totalRegistros).toBe(1);
      expect(body.registros[0]).toMatchObject({ tipo: 'alta', estado: 'pendiente', estadoEnvio: 'pendiente_proceso', idMaquina: 'caja-7', cuotaTotal: '2.10', esRectificativa: false });
      expectNoNullsOrEmpty(body);
    });

    it('registered: the stored state, not procesando', async () => {
      const body = (await t.billing('GET', `/v1/facturas/${f1.idFactura}?nifEmisor=${NIF}`)).json();
      expect(body.factura.estadoFactura).toBe('registrada');
      // alta and subsanación, newest first.
      expect(body.registros.map((r: { tipo: string }) => r.tipo)).toEqual(['subsanacion', 'alta']);
      expect(body.totalRegistros).toBe(2);
    });

    it('a rectificativa: its records say esRectificativa and tipoRectificativa; its cancellation is listed', async () => {
      const body = (await t.billing('GET', `/v1/facturas/${r1.idFactura}?nifEmisor=${NIF}`)).json();
      expect(body.registros.map((r: { tipo: string }) => r.tipo)).toEqual(['anulacion', 'alta']);
      expect(body.registros[1]).toMatchObject({ esRectificativa: true, tipoRectificativa: 'S' });
      expect(body.registros[0]).toMatchObject({ idRegistro: anulacion.idRegistro, fechaExpedicion: '02-03-2026', sinRegistroPrevio: false, idMaquina: 'caja-8' });
    });

    it('404 NOT_FOUND for an unknown idFactura, an invoice of another issuer of the account, or of the other environment', async () => {
      await expectRefused(t, t.billing('GET', `/v1/facturas/fac_nope?nifEmisor=${NIF}`), 404, 'NOT_FOUND');
      const nif = 'B11111119';
      t.engine.context.issuers.create({ accountId: demoAccountId(t), entorno: 'test', nif, nombre: 'Segundo SL', hacienda: 'verifactu' });
      await expectRefused(t, t.billing('GET', `/v1/facturas/${f2.idFactura}?nifEmisor=${nif}`), 404, 'NOT_FOUND');
      const live = await crearOk(t, aFacturaF2({ cabecera: { numero: 'LV-1' } }), t.keys.live);
      await expectRefused(t, t.billing('GET', `/v1/facturas/${live.idFactura}?nifEmisor=${NIF}`), 404, 'NOT_FOUND');
      expect((await t.billing('GET', `/v1/facturas/${live.idFactura}?nifEmisor=${NIF}`, { key: t.keys.live })).statusCode).toBe(200);
    });

    it('path segments are percent-decoded once', async () => {
      const res = await t.billing('GET', `/v1/facturas/${encodeURIComponent(f2.idFactura)}?nifEmisor=${NIF}`);
      expect(res.statusCode).toBe(200);
    });
  });

  describe('Search GET /v1/facturas/buscar: serie and numero sent separately, never joined; fechaExpedicion dd-mm-aaaa', () => {
    const buscar = (qs: string) => t.billing('GET', `/v1/facturas/buscar?nifEmisor=${NIF}${qs}`);

    it('found: the same envelope as the detail', async () => {
      const res = await buscar('&serie=T&numero=000123&fechaExpedicion=02-03-2026');
      expect(res.statusCode, res.body).toBe(200);
      const detail = await t.billing('GET', `/v1/facturas/${f2.idFactura}?nifEmisor=${NIF}`);
      expect(res.json()).toEqual(detail.json());
    });

    it('a series with reserved characters, URL-encoded in the query', async () => {
      const res = await buscar(`&serie=${encodeURIComponent('A-2026/')}&numero=0001&fechaExpedicion=02-03-2026`);
      expect(res.json().factura.idFactura).toBe(f1.idFactura);
      const amp = await crearOk(t, aFacturaF2({ cabecera: { serie: 'A&B', numero: '7' } }));
      expect((await buscar(`&serie=${encodeURIComponent('A&B')}&numero=7&fechaExpedicion=02-03-2026`)).json().factura.idFactura).toBe(amp.idFactura);
    });

    it('serie omitted when the invoice has none', async () => {
      const found = (await buscar('&numero=NS-1&fechaExpedicion=02-03-2026')).json();
      expect(found.factura.idFactura).toBe(sinSerie.idFactura);
      // Absent values are omitted, never "": the invoice without series has no serie in its view.
      expect('serie' in found.factura).toBe(false);
      expect(found.factura).toMatchObject({ numero: 'NS-1', numeroFactura: 'NS-1' });
      expectNoNullsOrEmpty(found);
      expect((await buscar('&serie=&numero=NS-1&fechaExpedicion=02-03-2026')).json().factura.idFactura).toBe(sinSerie.idFactura);
      // ...and an invoice with a series is not found without it.
      await expectRefused(t, buscar('&numero=000123&fechaExpedicion=02-03-2026'), 404, 'NOT_FOUND');
    });

    it('sending the concatenation in numero finds nothing (404)', async () => {
      await expectRefused(t, buscar('&numero=T000123&fechaExpedicion=02-03-2026'), 404, 'NOT_FOUND');
    });

    it('different pairs that read the same numeroFactura are told apart', async () => {
      const a = await crearOk(t, aFacturaF2({ cabecera: { serie: 'X', numero: '12' } }));
      const b = await crearOk(t, aFacturaF2({ cabecera: { serie: 'X1', numero: '2' } }));
      expect((await buscar('&serie=X&numero=12&fechaExpedicion=02-03-2026')).json().factura.idFactura).toBe(a.idFactura);
      expect((await buscar('&serie=X1&numero=2&fechaExpedicion=02-03-2026')).json().factura.idFactura).toBe(b.idFactura);
    });

    it('404 NOT_FOUND for another date or an invoice of the other environment', async () => {
      await expectRefused(t, buscar('&serie=T&numero=000123&fechaExpedicion=03-03-2026'), 404, 'NOT_FOUND');
      await expectRefused(t, buscar('&serie=T&numero=LV-1&fechaExpedicion=02-03-2026'), 404, 'NOT_FOUND');
    });

    it('400 MISSING_PARAMETER for a missing numero or fechaExpedicion, naming it in campo', async () => {
      await expectRefused(t, buscar('&serie=T&fechaExpedicion=02-03-2026'), 400, 'MISSING_PARAMETER', 'numero');
      await expectRefused(t, buscar('&serie=T&numero=&fechaExpedicion=02-03-2026'), 400, 'MISSING_PARAMETER', 'numero');
      await expectRefused(t, buscar('&serie=T&numero=000123'), 400, 'MISSING_PARAMETER', 'fechaExpedicion');
      await expectRefused(t, buscar('&serie=T&numero=000123&fechaExpedicion='), 400, 'MISSING_PARAMETER', 'fechaExpedicion');
      await expectRefused(t, buscar(''), 400, 'MISSING_PARAMETER', 'numero');
    });

    it('400 VALIDATION_ERROR: serie or numero longer than 60 characters', async () => {
      await expectRefused(t, buscar(`&serie=T&numero=${'9'.repeat(61)}&fechaExpedicion=02-03-2026`), 400, 'VALIDATION_ERROR', 'numero');
      await expectRefused(t, buscar(`&serie=${'S'.repeat(61)}&numero=1&fechaExpedicion=02-03-2026`), 400, 'VALIDATION_ERROR', 'serie');
      await expectRefused(t, buscar(`&serie=${'S'.repeat(60)}&numero=${'9'.repeat(60)}&fechaExpedicion=02-03-2026`), 404, 'NOT_FOUND');
    });

    it('400 VALIDATION_ERROR: other date forms (slashes, year first, one digit, not a date)', async () => {
      for (const fecha of ['02/03/2026', '2026-03-02', '2-3-2026', '31-02-2026', '02-03-26', 'hoy']) {
        await expectRefused(t, buscar(`&serie=T&numero=000123&fechaExpedicion=${encodeURIComponent(fecha)}`), 400, 'VALIDATION_ERROR', 'fechaExpedicion');
      }
    });
  });

  describe('Record list GET /v1/registros: registration and cancellation records ordered by creation date descending', () => {
    it('every record of the issuer, newest first, with tipo telling alta, subsanacion and anulacion apart', async () => {
      const res = await t.billing('GET', `/v1/registros?nifEmisor=${NIF}&limite=500`);
      const p = res.json() as RegistrosPage;
      for (let i = 1; i < p.registros.length; i++) expect(p.registros[i - 1]!.creadoEn >= p.registros[i]!.creadoEn).toBe(true);
      const mine = p.registros.filter((r) => [f1.idFactura, f2.idFactura, r1.idFactura].includes(r.idFactura));
      expect(mine.map((r) => [r.tipo, r.idFactura])).toEqual([
        ['anulacion', r1.idFactura],
        ['subsanacion', f1.idFactura],
        ['alta', r1.idFactura],
        ['alta', f2.idFactura],
        ['alta', f1.idFactura],
      ]);
      expect(mine[0]).toMatchObject({ idRegistro: anulacion.idRegistro, idFactura: r1.idFactura, idMaquina: 'caja-8', estado: 'pendiente', estadoEnvio: 'pendiente_proceso' });
      expect(mine[1]).toMatchObject({ idFactura: f1.idFactura, numeroFactura: 'A-2026/0001' });
      expectNoNullsOrEmpty(p);
      for (const r of p.registros) expect(r.creadoEn).toMatch(ISO_Z);
    });
  });

  describe('Record detail GET /v1/registros/{idRegistro}: nifEmisor and idFactura both required; an unrecognized identifier gives 400 INVALID_PARAMETER', () => {
    const regOf = (idFactura: string) => t.engine.context.invoices.registrosOf(idFactura);

    it('the detail extras: cuotaTotal, sistemaFiscal, ultimaModificacion, esRectificativa, tipoRectificativa', async () => {
      const alta = regOf(r1.idFactura).find((r) => r.tipo === 'alta');
      const res = await t.billing('GET', `/v1/registros/${alta?.id}?nifEmisor=${NIF}&idFactura=${r1.idFactura}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        idRegistro: alta?.id,
        idFactura: r1.idFactura,
        tipo: 'alta',
        cuotaTotal: '21.00',
        sistemaFiscal: 'verifactu',
        esRectificativa: true,
        tipoRectificativa: 'S',
        numeroFactura: 'R-12',
        huella: r1.huella,
      });
      expect(res.json().ultimaModificacion).toMatch(ISO_Z);
    });

    it('missing idFactura or nifEmisor: 400 naming it', async () => {
      const id = regOf(f2.idFactura)[0]?.id;
      await expectRefused(t, t.billing('GET', `/v1/registros/${id}?nifEmisor=${NIF}`), 400, 'VALIDATION_ERROR', 'idFactura');
      await expectRefused(t, t.billing('GET', `/v1/registros/${id}?idFactura=${f2.idFactura}`), 400, 'VALIDATION_ERROR', 'nifEmisor');
    });

    it('unknown idRegistro, or a record of another invoice: 400 INVALID_PARAMETER campo idRegistro', async () => {
      await expectRefused(t, t.billing('GET', `/v1/registros/reg_nope?nifEmisor=${NIF}&idFactura=${f2.idFactura}`), 400, 'INVALID_PARAMETER', 'idRegistro');
      const other = regOf(f1.idFactura)[0]?.id;
      await expectRefused(t, t.billing('GET', `/v1/registros/${other}?nifEmisor=${NIF}&idFactura=${f2.idFactura}`), 400, 'INVALID_PARAMETER', 'idRegistro');
      // The previous REC#/CNC# forms are not accepted either.
      await expectRefused(t, t.billing('GET', `/v1/registros/${encodeURIComponent(`REC#${other}`)}?nifEmisor=${NIF}&idFactura=${f1.idFactura}`), 400, 'INVALID_PARAMETER', 'idRegistro');
    });

    it('an unknown idFactura: 404 NOT_FOUND', async () => {
      const id = regOf(f2.idFactura)[0]?.id;
      await expectRefused(t, t.billing('GET', `/v1/registros/${id}?nifEmisor=${NIF}&idFactura=fac_nope`), 404, 'NOT_FOUND');
    });
  });

  describe('Every read requires query nifEmisor and verifies that the issuer belongs to the caller’s account; a foreign issuer gives 403', () => {
    const reads = () => {
      const reg = t.engine.context.invoices.registrosOf(f2.idFactura)[0]?.id ?? '';
      return [
        (nif?: string) => `/v1/facturas${q(nif)}`,
        (nif?: string) => `/v1/facturas/buscar${q(nif)}${sep(nif)}serie=T&numero=000123&fechaExpedicion=02-03-2026`,
        (nif?: string) => `/v1/facturas/${f2.idFactura}${q(nif)}`,
        (nif?: string) => `/v1/facturas/${f2.idFactura}/estado${q(nif)}`,
        (nif?: string) => `/v1/facturas/${f2.idFactura}/qr${q(nif)}`,
        (nif?: string) => `/v1/facturas/${f2.idFactura}/xml${q(nif)}`,
        (nif?: string) => `/v1/registros${q(nif)}`,
        (nif?: string) => `/v1/registros/${reg}${q(nif)}${sep(nif)}idFactura=${f2.idFactura}`,
      ];
    };
    const q = (nif?: string) => (nif === undefined ? '' : `?nifEmisor=${nif}`);
    const sep = (nif?: string) => (nif === undefined ? '?' : '&');

    it('every read answers 200 for the caller’s issuer', async () => {
      for (const url of reads()) expect((await t.billing('GET', url(NIF))).statusCode, url(NIF)).toBe(200);
    });

    it('missing nifEmisor: 400 VALIDATION_ERROR campo nifEmisor', async () => {
      for (const url of reads()) await expectRefused(t, t.billing('GET', url()), 400, 'VALIDATION_ERROR', 'nifEmisor');
      for (const url of reads()) await expectRefused(t, t.billing('GET', url('')), 400, 'VALIDATION_ERROR', 'nifEmisor');
    });

    it('an issuer of another account, an unknown issuer, or the account’s issuer read with the other account’s key: the same 403 FORBIDDEN', async () => {
      const other = anotherAccount(t);
      const bodies: string[] = [];
      for (const url of reads()) {
        for (const [nif, key] of [[other.nif, undefined], ['B33333337', undefined], [NIF, other.test]] as const) {
          const res = await t.billing('GET', url(nif), key ? { key } : {});
          expect(res.statusCode, url(nif)).toBe(403);
          bodies.push(res.body);
        }
      }
      expect(new Set(bodies).size).toBe(1);
      expect(JSON.parse(bodies[0] ?? '{}')).toMatchObject({ code: 'FORBIDDEN' });
    });
  });
});
