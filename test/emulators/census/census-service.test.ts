import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CENSUS_SEED, CENSUS_SOAP_PATH, SEED_TAXPAYERS, startEmulators } from '../../../engine/emulators/index';
import { matchPersonName, normalizeName } from '../../../engine/emulators/census/names';
import { validateNif } from '../../../src-shared/nif';
import { startCensus, type CensusEmu } from '../../engine/clients/helpers';

let emu: CensusEmu;
beforeAll(async () => {
  emu = await startCensus();
});
afterAll(async () => emu.close());
afterEach(() => {
  emu.service.reset();
  emu.directory.reset();
});

const NS = 'http://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/burt/jdit/ws/VNifV2Ent.xsd';
const envelope = (items: { nif: string; nombre: string }[]) =>
  `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:vnif="${NS}"><soapenv:Body><vnif:VNifV2Ent>` +
  items.map((i) => `<vnif:Contribuyente><vnif:Nif>${i.nif}</vnif:Nif><vnif:Nombre>${i.nombre}</vnif:Nombre></vnif:Contribuyente>`).join('') +
  `</vnif:VNifV2Ent></soapenv:Body></soapenv:Envelope>`;

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (n) => n === 'Contribuyente' });

async function post(body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(emu.soapUrl, { method: 'POST', headers: { 'content-type': 'text/xml' }, body });
  return { status: res.status, text: await res.text() };
}

async function check(items: { nif: string; nombre: string }[]): Promise<{ Nif: string; Nombre: string; Resultado: string }[]> {
  const r = await post(envelope(items));
  expect(r.status, r.text).toBe(200);
  const doc = parser.parse(r.text) as { Envelope: { Body: { VNifV2Sal: { Contribuyente?: { Nif: string; Nombre: string; Resultado: string }[] } | '' } } };
  const sal = doc.Envelope.Body.VNifV2Sal;
  return sal === '' ? [] : (sal.Contribuyente ?? []);
}

const control = (method: string, sub: string, body?: unknown) =>
  fetch(`${emu.url}/__control/census/${sub}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

describe('Seeded fictitious taxpayers', () => {
  it('every seeded NIF has a valid check character and appears once', () => {
    for (const t of CENSUS_SEED) expect(validateNif(t.nif), t.nif).toMatchObject({ valid: true, normalized: t.nif });
    expect(new Set(CENSUS_SEED.map((t) => t.nif)).size).toBe(CENSUS_SEED.length);
  });

  it('covers persons, companies, deregistered, revoked and near-miss names, on top of the shared seed', () => {
    expect(CENSUS_SEED.slice(0, SEED_TAXPAYERS.length)).toEqual(SEED_TAXPAYERS);
    const person = (nif: string) => /^[0-9XYZKLM]/.test(nif);
    expect(CENSUS_SEED.filter((t) => person(t.nif) && t.estado === 'alta').length).toBeGreaterThanOrEqual(5);
    expect(CENSUS_SEED.filter((t) => !person(t.nif) && t.estado === 'alta').length).toBeGreaterThanOrEqual(5);
    for (const estado of ['baja', 'revocado'] as const) {
      expect(CENSUS_SEED.some((t) => person(t.nif) && t.estado === estado)).toBe(true);
      expect(CENSUS_SEED.some((t) => !person(t.nif) && t.estado === estado)).toBe(true);
    }
    expect(matchPersonName('FERNANDEZ GOMEZ LAURA', 'FERNANDEZ GOMEZ LAUREANO')).toBe('similar');
  });
});

describe('Verdict labels, upper case', () => {
  it('persons: exact, partial, accent-insensitive, similar, wrong name, deregistered, revoked, unknown', async () => {
    const r = await check([
      { nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' },
      { nif: '12345678Z', nombre: 'GARCIA LOPEZ' },
      { nif: 'K1234567L', nombre: 'Perez Nunez Lucia' },
      { nif: '34567890V', nombre: 'FERNANDES GOMEZ LAURA' },
      { nif: '34567890V', nombre: 'GOMEZ FERNANDEZ LAURA' },
      { nif: '12345678Z', nombre: 'PEREZ MARTIN JUAN' },
      { nif: '56789012B', nombre: 'RUIZ MORENO ANTONIO' },
      { nif: '67890123B', nombre: 'SANCHEZ DIAZ CARMEN' },
      { nif: '44444444A', nombre: 'NADIE' },
    ]);
    expect(r.map((x) => x.Resultado)).toEqual([
      'IDENTIFICADO',
      'IDENTIFICADO',
      'IDENTIFICADO',
      'NO IDENTIFICADO-SIMILAR',
      'NO IDENTIFICADO-SIMILAR',
      'NO IDENTIFICADO',
      'IDENTIFICADO-BAJA',
      'IDENTIFICADO-REVOCADO',
      'NO IDENTIFICADO',
    ]);
    // The full name comes back for a partial one; a wrong name is echoed, revealing nothing.
    expect(r[1]?.Nombre).toBe('GARCIA LOPEZ MARIA');
    expect(r[5]?.Nombre).toBe('PEREZ MARTIN JUAN');
    expect(r[3]?.Nombre).toBe('FERNANDEZ GOMEZ LAURA');
  });

  it('companies: the queried name is ignored; the official name comes back', async () => {
    const r = await check([
      { nif: 'B76543214', nombre: 'LO QUE SEA' },
      { nif: 'B33333337', nombre: '' },
      { nif: 'A44444446', nombre: 'X' },
      { nif: 'B88888888', nombre: 'NO EXISTE SL' },
    ]);
    expect(r.map((x) => [x.Resultado, x.Nombre])).toEqual([
      ['IDENTIFICADO', 'CAFETERIA LA PRUEBA SL'],
      ['IDENTIFICADO-BAJA', 'COMERCIO CERRADO NORTE SL'],
      ['IDENTIFICADO-REVOCADO', 'INVERSIONES REVOCADAS SA'],
      ['NO IDENTIFICADO', 'NO EXISTE SL'],
    ]);
  });

  it('a taxpayer added through /__control/census is found', async () => {
    const add = await fetch(`${emu.url}/__control/census`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nif: '55555555K', nombre: 'NUEVA PERSONA' }),
    });
    expect(add.status).toBe(201);
    expect((await check([{ nif: '55555555K', nombre: 'NUEVA PERSONA' }]))[0]?.Resultado).toBe('IDENTIFICADO');
  });

  it('a malformed request is a SOAP Client fault', async () => {
    const r = await post('<not-soap/>');
    expect(r.status).toBe(500);
    expect(r.text).toContain('env:Client');
    const empty = await post(envelope([]));
    expect(empty.text).toContain('env:Client');
  });
});

describe('Name comparison', () => {
  it('normalizes case, accents and punctuation', () => {
    expect(normalizeName('  Pérez  Núñez,  Lucía ')).toBe('PEREZ NUNEZ LUCIA');
    expect(matchPersonName('garcia lopez maria', 'GARCIA LOPEZ MARIA')).toBe('exact');
    expect(matchPersonName('GARCIA LOPEZ M', 'GARCIA LOPEZ MARIA')).toBe('partial');
    expect(matchPersonName('LOPEZ MARIA', 'GARCIA LOPEZ MARIA')).toBe('none');
    expect(matchPersonName('GARCIA', 'GARCIA LOPEZ MARIA')).toBe('none');
    expect(matchPersonName('MARIA GARCIA LOPEZ', 'GARCIA LOPEZ MARIA')).toBe('similar');
  });
});

describe('Fault injection through /__control/census/faults', () => {
  it('omit leaves entries out of the answer; noProcesado answers NO PROCESADO', async () => {
    expect((await control('PUT', 'faults', { omit: ['b12345674'], noProcesado: ['12345678Z'] })).status).toBe(200);
    const r = await check([
      { nif: 'B12345674', nombre: 'X' },
      { nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA' },
      { nif: 'B76543214', nombre: 'X' },
    ]);
    expect(r.map((x) => [x.Nif, x.Resultado])).toEqual([
      ['12345678Z', 'NO PROCESADO'],
      ['B76543214', 'IDENTIFICADO'],
    ]);
    // Omitting every entry answers an empty VNifV2Sal.
    await control('PUT', 'faults', { omit: ['B76543214'] });
    expect(await check([{ nif: 'B76543214', nombre: 'X' }])).toEqual([]);
  });

  it('down resets the connection; http500, serverFault and malformed break the answer; times limits the fault', async () => {
    await control('PUT', 'faults', { mode: 'down', times: 1 });
    await expect(post(envelope([{ nif: 'B12345674', nombre: 'X' }]))).rejects.toThrow();
    expect((await post(envelope([{ nif: 'B12345674', nombre: 'X' }]))).status).toBe(200);
    await control('PUT', 'faults', { mode: 'http500' });
    expect((await post(envelope([{ nif: 'B12345674', nombre: 'X' }]))).status).toBe(500);
    await control('PUT', 'faults', { mode: 'serverFault' });
    expect((await post(envelope([{ nif: 'B12345674', nombre: 'X' }]))).text).toContain('env:Server');
    await control('PUT', 'faults', { mode: 'malformed' });
    const broken = await post(envelope([{ nif: 'B12345674', nombre: 'X' }]));
    expect(broken.status).toBe(200);
    expect(broken.text).not.toContain('</env:Envelope>');
    const state = (await (await control('GET', 'faults')).json()) as { mode: string };
    expect(state.mode).toBe('malformed');
    await control('DELETE', 'faults');
    expect(((await (await control('GET', 'faults')).json()) as { mode: string }).mode).toBe('none');
  });

  it('slow delays the answer by delayMs', async () => {
    await control('PUT', 'faults', { mode: 'slow', delayMs: 150 });
    const started = Date.now();
    await check([{ nif: 'B12345674', nombre: 'X' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('refuses an invalid fault body; counts requests and entries', async () => {
    expect((await control('PUT', 'faults', { mode: 'broken' })).status).toBe(400);
    await control('DELETE', 'stats');
    await check([{ nif: 'B12345674', nombre: 'X' }, { nif: '12345678Z', nombre: 'Y' }]);
    expect(await (await control('GET', 'stats')).json()).toEqual({ requests: 1, entries: 2 });
  });
});

describe('startEmulators mounts the census service beside AEAT', () => {
  it('serves VNifV2 at CENSUS_SOAP_PATH over the shared directory', async () => {
    const emus = await startEmulators({ port: 0, dataDir: mkdtempSync(path.join(tmpdir(), 'emus-')) });
    try {
      const res = await fetch(`${emus.url}${CENSUS_SOAP_PATH}`, { method: 'POST', body: envelope([{ nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL' }]) });
      expect(await res.text()).toContain('<VNifV2Sal:Resultado>IDENTIFICADO</VNifV2Sal:Resultado>');
      expect(emus.census.get('B48123459')?.nombre).toBe('TALLERES BILBAO ZAHARRA SL');
      expect(emus.censusService.stats().requests).toBe(1);
    } finally {
      await emus.close();
    }
  });
});
