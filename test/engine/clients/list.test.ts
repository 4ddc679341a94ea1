import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anAutonomo, crear, dniNumber, expectError, json, makeClientsEngine, type ClientsEngine } from './helpers';

interface Lista {
  entorno: string;
  clientes: Record<string, unknown>[];
  total: number;
  limitePlan?: number;
  clientesUsados?: number;
  clientesDisponibles?: number;
  proximaPagina?: string;
}

let t: ClientsEngine;
const N = 25; // third parties, besides the seeded own company

beforeAll(async () => {
  t = await makeClientsEngine();
  t.setLimits(null);
  for (let i = 0; i < N; i++) {
    t.clock.advance(1000);
    expect((await crear(t, anAutonomo({ nif: dniNumber(i), nombre: `PERSONA ${i}` }))).statusCode).toBe(201);
  }
  t.setLimits(50, 3);
});
afterAll(async () => t.close());

const lista = async (query = '', key?: string): Promise<Lista> => {
  const res = await t.manage('GET', `/v1/clientes${query}`, key ? { key } : {});
  expect(res.statusCode, res.body).toBe(200);
  return json<Lista>(res);
};

describe('GET /v1/clientes: limite default 20, max 100; an invalid value falls back to the default; never rejected', () => {
  it('default 20, with proximaPagina', async () => {
    const page = await lista();
    expect(page.clientes).toHaveLength(20);
    expect(page.total).toBe(20);
    expect(typeof page.proximaPagina).toBe('string');
  });
  it('a larger value is cut to 100 (all 26 fit, no proximaPagina)', async () => {
    const page = await lista('?limite=1000');
    expect(page.clientes).toHaveLength(N + 1);
    expect(page).not.toHaveProperty('proximaPagina');
  });
  for (const bad of ['abc', '0', '-3', '2.5', '', '1e2', '%20']) {
    it(`limite=${bad} → default`, async () => {
      expect((await lista(`?limite=${bad}`)).clientes).toHaveLength(20);
    });
  }
});

describe('cursor: the previous proximaPagina; total = rows in this page', () => {
  it('walks every issuer once, in creation order, and the last page has no proximaPagina', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await lista(`?limite=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.total).toBe(page.clientes.length);
      seen.push(...page.clientes.map((c) => String(c.nif)));
      cursor = page.proximaPagina;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toHaveLength(N + 1);
    expect(new Set(seen).size).toBe(N + 1);
    expect(seen[0]).toBe('B12345674');
  });
  it('a tampered cursor, or one from the other environment → 400 INVALID_CURSOR', async () => {
    const { proximaPagina } = await lista('?limite=2');
    expectError(await t.manage('GET', `/v1/clientes?cursor=${proximaPagina}x`), 400, 'INVALID_CURSOR', 'cursor');
    expectError(await t.manage('GET', `/v1/clientes?cursor=${proximaPagina}`, { key: t.keys.live }), 400, 'INVALID_CURSOR', 'cursor');
  });
});

describe('List rows: nif, nombre, hacienda, estado, estadoRepresentacion, estadoCenso, modoCadena, faseAltaCapacidad', () => {
  it('has exactly those fields (no portalHabilitado, no validacionCensal)', async () => {
    const [row] = (await lista('?limite=1')).clientes;
    expect(Object.keys(row ?? {}).sort()).toEqual(
      ['estado', 'estadoCenso', 'estadoRepresentacion', 'faseAltaCapacidad', 'hacienda', 'modoCadena', 'modoSif', 'nif', 'nombre'].sort(),
    );
    expect(row).toMatchObject({ nif: 'B12345674', estadoCenso: 'no_procesado', modoCadena: 'unica', faseAltaCapacidad: 'no_contratada', modoSif: 'verifactu' });
  });
});

describe('Counters: limitePlan, clientesUsados, clientesDisponibles', () => {
  it('all three together, per environment; clientesUsados counts active issuers (own company included)', async () => {
    expect(await lista('?limite=1')).toMatchObject({ entorno: 'test', limitePlan: 50, clientesUsados: N + 1, clientesDisponibles: 50 - N - 1 });
    expect(await lista('?limite=1', t.keys.live)).toMatchObject({ entorno: 'live', limitePlan: 3, clientesUsados: 1, clientesDisponibles: 2 });
  });
  it('clientesDisponibles has a floor of 0', async () => {
    t.setLimits(10, 3);
    expect(await lista('?limite=1')).toMatchObject({ limitePlan: 10, clientesUsados: N + 1, clientesDisponibles: 0 });
    t.setLimits(50, 3);
  });
  it('absent, all three, when the account has no configured limit; the list still answers', async () => {
    t.setLimits(null, 3);
    const page = await lista('?limite=1');
    for (const k of ['limitePlan', 'clientesUsados', 'clientesDisponibles']) expect(page).not.toHaveProperty(k);
    expect(page.clientes).toHaveLength(1);
    t.setLimits(50, 3);
  });
  it('absent, all three, when their read fails; the list still answers 200', async () => {
    const issuers = t.engine.context.issuers;
    const original = issuers.seatsUsed.bind(issuers);
    issuers.seatsUsed = () => {
      throw new Error('disk I/O error');
    };
    try {
      const page = await lista('?limite=2');
      expect(page).not.toHaveProperty('limitePlan');
      expect(page).not.toHaveProperty('clientesUsados');
      expect(page.clientes).toHaveLength(2);
    } finally {
      issuers.seatsUsed = original;
    }
  });
});
