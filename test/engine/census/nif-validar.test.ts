import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { estadoFromLabel, nombreCenso } from '../../../engine/src/census/verdicts';
import { expectError, json, makeClientsEngine, startCensus, type CensusEmu, type ClientsEngine } from '../clients/helpers';

interface Resultado {
  nif: string;
  nombre: string;
  estado: string;
  resultadoAeat?: string;
  nombreCenso: string | null;
  validadoEn: string;
}

let census: CensusEmu;
let t: ClientsEngine;
const TIMEOUT_MS = 400;

beforeAll(async () => {
  census = await startCensus();
  t = await makeClientsEngine({ census: { url: census.soapUrl, timeoutMs: TIMEOUT_MS, cacheTtlMs: 60 * 60 * 1000 } });
});
afterAll(async () => {
  await t.close();
  await census.close();
});
afterEach(() => {
  census.service.reset();
  // Every test starts with an empty verdict cache.
  t.engine.context.db.statement('DELETE FROM census_verdicts').run();
});

const validar = (nifs: unknown) => t.manage('POST', '/v1/nif/validar', { body: { nifs } });
const resultados = async (nifs: unknown): Promise<Resultado[]> => {
  const res = await validar(nifs);
  expect(res.statusCode, res.body).toBe(200);
  return json<{ resultados: Resultado[] }>(res).resultados;
};

describe('Rule 1: a batch of 0 or more than 100 entries, invalid fields or a missing nombre give 400 VALIDATION_ERROR pointing at the entry', () => {
  it('an empty batch', async () => {
    const body = expectError(await validar([]), 400, 'VALIDATION_ERROR', 'nifs');
    expect(body.message).toContain('nifs');
  });

  it('101 entries (100 pass)', async () => {
    const entry = { nif: '44444444A', nombre: 'X' };
    expectError(await validar(Array.from({ length: 101 }, () => entry)), 400, 'VALIDATION_ERROR', 'nifs');
    expect((await validar(Array.from({ length: 100 }, () => entry))).statusCode).toBe(200);
  });

  it('a missing nombre names nifs[0].nombre in campo and message', async () => {
    const body = expectError(await validar([{ nif: '12345678Z' }]), 400, 'VALIDATION_ERROR', 'nifs[0].nombre');
    expect(body.message).toMatch(/^nifs\[0\]\.nombre/);
    expect(body.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^nifs\[0\]\.nombre: /)]));
  });

  it('nombre is required even for a CIF, and at most 120 characters', async () => {
    expectError(await validar([{ nif: '12345678Z', nombre: 'A' }, { nif: 'B12345674' }]), 400, 'VALIDATION_ERROR', 'nifs[1].nombre');
    expectError(await validar([{ nif: 'B12345674', nombre: 'x'.repeat(121) }]), 400, 'VALIDATION_ERROR', 'nifs[0].nombre');
    expect((await validar([{ nif: 'B12345674', nombre: 'x'.repeat(120) }])).statusCode).toBe(200);
  });

  it('invalid fields: nif missing or not a string, unknown keys, nifs not an array', async () => {
    expectError(await validar([{ nombre: 'X' }]), 400, 'VALIDATION_ERROR', 'nifs[0].nif');
    expectError(await validar([{ nif: 12345678, nombre: 'X' }]), 400, 'VALIDATION_ERROR', 'nifs[0].nif');
    expectError(await validar([{ nif: '12345678Z', nombre: 'X', extra: 1 }]), 400, 'VALIDATION_ERROR', 'nifs[0].extra');
    expectError(await validar('12345678Z'), 400, 'VALIDATION_ERROR', 'nifs');
    expectError(await validar([{ nif: '12345678Z', nombre: '' }]), 400, 'VALIDATION_ERROR', 'nifs[0].nombre');
  });

  it('nothing is asked to the census on a 400', async () => {
    await validar([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }, { nif: 'B12345674' }]);
    expect(census.service.stats().requests).toBe(0);
  });
});

describe('The seven estado values and their mapping from the census labels', () => {
  it('answers one result per entry, in order, with nif and nombre as sent and the label in upper case', async () => {
    const r = await resultados([
      { nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }, // identificado
      { nif: '34567890V', nombre: 'FERNANDES GOMEZ LAURA' }, // similar (one letter off)
      { nif: 'B22222228', nombre: 'cualquier nombre' }, // identificado_baja (company)
      { nif: 'A11111119', nombre: 'SOCIEDAD REVOCADA SA' }, // identificado_revocado
      { nif: '44444444A', nombre: 'NADIE' }, // no_identificado (valid, not in the census)
      { nif: '12345678A', nombre: 'GARCIA LOPEZ MARIA' }, // formato_invalido (wrong letter)
      { nif: ' 12345678z ', nombre: 'garcia lopez maria' }, // as sent, normalized for the query
    ]);
    expect(r.map((x) => x.estado)).toEqual([
      'identificado',
      'similar',
      'identificado_baja',
      'identificado_revocado',
      'no_identificado',
      'formato_invalido',
      'identificado',
    ]);
    expect(r.map((x) => x.resultadoAeat)).toEqual([
      'IDENTIFICADO',
      'NO IDENTIFICADO-SIMILAR',
      'IDENTIFICADO-BAJA',
      'IDENTIFICADO-REVOCADO',
      'NO IDENTIFICADO',
      undefined,
      'IDENTIFICADO',
    ]);
    expect(r[6]).toMatchObject({ nif: ' 12345678z ', nombre: 'garcia lopez maria', nombreCenso: null });
    expect(r[1]?.nombreCenso).toBe('FERNANDEZ GOMEZ LAURA');
    for (const x of r) expect(x.validadoEn).toMatch(/Z$/);
  });

  it('a deregistered person with the right name is identificado_baja; with a wrong name, no_identificado', async () => {
    const r = await resultados([
      { nif: '56789012B', nombre: 'RUIZ MORENO ANTONIO' },
      { nif: '56789012B', nombre: 'OTRA PERSONA DISTINTA' },
      { nif: '67890123B', nombre: 'SANCHEZ DIAZ CARMEN' },
    ]);
    expect(r.map((x) => x.estado)).toEqual(['identificado_baja', 'no_identificado', 'identificado_revocado']);
  });

  it('no_procesado when the census answers NO PROCESADO for an entry', async () => {
    census.service.faults.set({ noProcesado: ['12345678Z'] });
    const [r] = await resultados([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }]);
    expect(r).toMatchObject({ estado: 'no_procesado', resultadoAeat: 'NO PROCESADO', nombreCenso: null });
  });

  it('formato_invalido is never queried', async () => {
    const r = await resultados([
      { nif: 'B1234567', nombre: 'CORTO' },
      { nif: 'X1234567A', nombre: 'SMITH JOHN' },
      { nif: 'ÑÑÑ', nombre: 'RARO' },
    ]);
    expect(r.map((x) => x.estado)).toEqual(['formato_invalido', 'formato_invalido', 'formato_invalido']);
    expect(r.every((x) => x.nombreCenso === null && x.resultadoAeat === undefined)).toBe(true);
    expect(census.service.stats()).toEqual({ requests: 0, entries: 0 });
  });

  it('the label mapping tolerates case and spacing, and an unknown label is no_procesado', () => {
    expect(estadoFromLabel('Identificado')).toBe('identificado');
    expect(estadoFromLabel('NO IDENTIFICADO - SIMILAR')).toBe('similar');
    expect(estadoFromLabel('identificado-baja')).toBe('identificado_baja');
    expect(estadoFromLabel(' IDENTIFICADO-REVOCADO ')).toBe('identificado_revocado');
    expect(estadoFromLabel('No identificado')).toBe('no_identificado');
    expect(estadoFromLabel('NO PROCESADO')).toBe('no_procesado');
    expect(estadoFromLabel('NO IDENTIFICABLE')).toBe('no_procesado');
    expect(estadoFromLabel('ALGO NUEVO')).toBe('no_procesado');
  });
});

describe('nombreCenso: the official name for a CIF; the full name for a partial DNI/NIE name', () => {
  it('CIF: the census ignores the name; identificado with the official company name', async () => {
    const r = await resultados([
      { nif: 'B76543214', nombre: 'LA PRUEBA' },
      { nif: 'B76543214', nombre: 'cafeteria la prueba sl' },
    ]);
    expect(r[0]).toMatchObject({ estado: 'identificado', nombreCenso: 'CAFETERIA LA PRUEBA SL' });
    // The same name (case and spaces aside) is not "a different name": null.
    expect(r[1]).toMatchObject({ estado: 'identificado', nombreCenso: null });
  });

  it('DNI/NIE: a partial name identifies with the full name; a wrong name is no_identificado without a name', async () => {
    const r = await resultados([
      { nif: '12345678Z', nombre: 'GARCIA LOPEZ' },
      { nif: '12345678Z', nombre: 'PEREZ MARTIN JUAN' },
      { nif: 'Y2345678Z', nombre: 'MULLER A' },
      { nif: 'K1234567L', nombre: 'Pérez Núñez Lucía' },
    ]);
    expect(r[0]).toMatchObject({ estado: 'identificado', nombreCenso: 'GARCIA LOPEZ MARIA' });
    expect(r[1]).toMatchObject({ estado: 'no_identificado', nombreCenso: null });
    expect(r[2]).toMatchObject({ estado: 'identificado', nombreCenso: 'MULLER ANNA' });
    expect(r[3]).toMatchObject({ estado: 'identificado', nombreCenso: 'PEREZ NUÑEZ LUCIA' });
  });

  it('near-miss names of two different people are similar, with the name on record', async () => {
    const [r] = await resultados([{ nif: '45678901G', nombre: 'FERNANDEZ GOMEZ LAURA' }]);
    expect(r).toMatchObject({ estado: 'similar', nombreCenso: 'FERNANDEZ GOMEZ LAUREANO' });
  });

  it('rule as a function: only present IDs show a name, and only a different one', () => {
    expect(nombreCenso('identificado', 'A SL', 'B SL')).toBe('B SL');
    expect(nombreCenso('identificado', 'a  sl', 'A SL')).toBeNull();
    expect(nombreCenso('no_identificado', 'A', 'B')).toBeNull();
    expect(nombreCenso('no_procesado', 'A', 'B')).toBeNull();
  });
});

describe('validadoEn is the time of the census query that produced the verdict; the local cache keeps repeated checks fast', () => {
  it('a repeated check is answered from the cache with the first query time, without asking the census', async () => {
    const first = await resultados([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }, { nif: 'B12345674', nombre: 'X' }]);
    const askedAt = t.clock.now().toISOString();
    expect(first.map((r) => r.validadoEn)).toEqual([askedAt, askedAt]);
    t.clock.advance(10 * 60 * 1000);
    // A CIF is cached by NIF alone (the census ignores its name).
    const again = await resultados([{ nif: '12345678Z', nombre: 'garcia  lopez maria' }, { nif: 'B12345674', nombre: 'OTRO NOMBRE' }]);
    expect(again.map((r) => r.validadoEn)).toEqual([askedAt, askedAt]);
    expect(again[1]).toMatchObject({ estado: 'identificado', nombreCenso: 'COMERCIAL DEMO SL' });
    expect(census.service.stats()).toEqual({ requests: 1, entries: 2 });
  });

  it('an expired verdict is asked again and gets the new query time', async () => {
    await resultados([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }]);
    t.clock.advance(2 * 60 * 60 * 1000);
    const [r] = await resultados([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }]);
    expect(r?.validadoEn).toBe(t.clock.now().toISOString());
    expect(census.service.stats().requests).toBe(2);
  });

  it('duplicates in one batch are asked once', async () => {
    await resultados(Array.from({ length: 5 }, () => ({ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' })));
    expect(census.service.stats()).toEqual({ requests: 1, entries: 1 });
  });
});

describe('Rule 3: when the census omits an ID, the entry returns in a 200 with estado no_procesado', () => {
  it('next to the verdicts of the rest, and it is asked again next time', async () => {
    census.service.faults.set({ omit: ['B12345674'] });
    const r = await resultados([
      { nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' },
      { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
    ]);
    expect(r[0]?.estado).toBe('identificado');
    expect(r[1]).toMatchObject({ nif: 'B12345674', estado: 'no_procesado', nombreCenso: null, validadoEn: t.clock.now().toISOString() });
    expect(r[1]?.resultadoAeat).toBeUndefined();
    census.service.faults.set({ omit: [] });
    const [again] = await resultados([{ nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' }]);
    expect(again?.estado).toBe('identificado');
  });
});

describe('Rule 2: when the census cannot be reached, 503 AEAT_UNAVAILABLE with resultados for the entries that could be resolved', () => {
  for (const mode of ['down', 'http500', 'serverFault', 'malformed', 'timeout'] as const) {
    it(`census ${mode}`, async () => {
      // One verdict in the cache from before the outage.
      await resultados([{ nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' }]);
      const cachedAt = t.clock.now().toISOString();
      t.clock.advance(5 * 60 * 60 * 1000); // older than the cache's freshness: the census is asked
      census.service.faults.set({ mode });
      const res = await validar([
        { nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' },
        { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
        { nif: '12345678A', nombre: 'MAL' },
      ]);
      const body = expectError(res, 503, 'AEAT_UNAVAILABLE');
      const r = body.resultados as Resultado[];
      expect(r.map((x) => [x.nif, x.estado])).toEqual([
        ['B12345674', 'identificado'],
        ['12345678A', 'formato_invalido'],
      ]);
      // The cached verdict says how old it is.
      expect(r[0]?.validadoEn).toBe(cachedAt);
    });
  }

  it('when every entry is resolved from the cache, an outage still answers 200 (offline checks)', async () => {
    await resultados([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }]);
    const cachedAt = t.clock.now().toISOString();
    t.clock.advance(5 * 60 * 60 * 1000);
    census.service.faults.set({ mode: 'down' });
    const [r] = await resultados([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }]);
    expect(r).toMatchObject({ estado: 'identificado', validadoEn: cachedAt });
  });
});

describe('A slow census', () => {
  it('within the time-out: the verdicts come', async () => {
    census.service.faults.set({ mode: 'slow', delayMs: 50 });
    const [r] = await resultados([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }]);
    expect(r?.estado).toBe('identificado');
  });

  it('beyond the time-out: 503 AEAT_UNAVAILABLE, and the answer comes within the time-out', async () => {
    census.service.faults.set({ mode: 'slow', delayMs: TIMEOUT_MS * 5 });
    const started = Date.now();
    const res = await validar([{ nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' }, { nif: '1', nombre: 'X' }]);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);
    const body = expectError(res, 503, 'AEAT_UNAVAILABLE');
    expect(body.resultados).toEqual([expect.objectContaining({ nif: '1', estado: 'formato_invalido' })]);
  });
});
