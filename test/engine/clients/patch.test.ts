import { beforeEach, describe, expect, it } from 'vitest';
import { anAutonomo, anEmpresa, crear, DIRECCION, expectError, json, useEngineWithCensus, type CensusEmu, type ClientsEngine } from './helpers';

interface Cliente {
  nif: string;
  nombre: string;
  hacienda: string;
  portalHabilitado: boolean;
  ultimaModificacion: string;
  validacionCensal: { estado: string; nombreCenso: string | null; validadoEn?: string };
  [k: string]: unknown;
}

let census: CensusEmu;
let t: ClientsEngine;
useEngineWithCensus(async (engine, emu) => {
  t = engine;
  census = emu;
  expect((await crear(t, anEmpresa())).statusCode).toBe(201);
  expect((await crear(t, anAutonomo({ nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', hacienda: 'tbai-bizkaia', epigrafeIAE: '165940' }))).statusCode).toBe(201);
});

const patch = (nif: string, body: unknown) => t.manage('PATCH', `/v1/clientes/${nif}`, { body });
const detalle = async (nif: string) => json<{ cliente: Cliente }>(await t.manage('GET', `/v1/clientes/${nif}`)).cliente;

describe('PATCH rule 1: accepted fields nombre, direccion, representante, epigrafeIAE, portalHabilitado; none → 400; hacienda ignored', () => {
  it('a body with none of them → 400 VALIDATION_ERROR', async () => {
    expectError(await patch('B48123459', {}), 400, 'VALIDATION_ERROR');
    expectError(await patch('B48123459', { hacienda: 'tbai-araba' }), 400, 'VALIDATION_ERROR');
  });
  it('hacienda is ignored next to an accepted field', async () => {
    const res = await patch('B48123459', { portalHabilitado: true, hacienda: 'tbai-araba' });
    expect(res.statusCode, res.body).toBe(200);
    expect(json<{ cliente: Cliente }>(res).cliente).toMatchObject({ hacienda: 'verifactu', portalHabilitado: true });
  });
  it('an unknown or derived field is refused by name', async () => {
    expectError(await patch('B48123459', { nombre: 'X', clientePropio: true }), 400, 'VALIDATION_ERROR', 'clientePropio');
    expectError(await patch('B48123459', { estado: 'inactivo' }), 400, 'VALIDATION_ERROR', 'estado');
  });
  it('direccion and representante are replaced whole; ultimaModificacion moves', async () => {
    t.clock.advance(5000);
    const direccion = { ...DIRECCION, calle: 'Calle Nueva', numero: '7' };
    const representante = { nombre: 'LOPEZ AGIRRE ANE', nif: '78901234x' };
    const res = await patch('B48123459', { direccion, representante });
    expect(res.statusCode, res.body).toBe(200);
    const c = json<{ cliente: Cliente; entorno: string }>(res);
    expect(c.entorno).toBe('test');
    expect(c.cliente).toMatchObject({ direccion, representante: { nombre: 'LOPEZ AGIRRE ANE', nif: '78901234X' }, ultimaModificacion: '2026-11-20T10:00:05.000Z' });
  });
  it('representante is not accepted for an autonomo', async () => {
    expectError(await patch('23456789D', { representante: { nombre: 'X', nif: '12345678Z' } }), 400, 'VALIDATION_ERROR', 'representante');
  });
  it('epigrafeIAE: checked against the catalogue, and only for autonomo in tbai-bizkaia', async () => {
    expect((await patch('23456789D', { epigrafeIAE: '167320' })).statusCode).toBe(200);
    expect((await detalle('23456789D')).epigrafeIAE).toBe('167320');
    expectError(await patch('23456789D', { epigrafeIAE: '175100' }), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
    expectError(await patch('B48123459', { epigrafeIAE: '167320' }), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
  });
  it('an inactive issuer can be modified; a deleted or unknown one is 404', async () => {
    await t.manage('PATCH', '/v1/clientes/B48123459/estado', { body: { estado: 'inactivo' } });
    expect((await patch('B48123459', { portalHabilitado: true })).statusCode).toBe(200);
    await t.panel('POST', '/panel/v1/cuentas/B12345674/clientes/B48123459/eliminar', { entorno: 'test' });
    expectError(await patch('B48123459', { portalHabilitado: false }), 404, 'NOT_FOUND');
    expectError(await patch('44444444A', { portalHabilitado: false }), 404, 'NOT_FOUND');
  });
});

describe('PATCH rule 2: portalHabilitado is a strict boolean', () => {
  for (const bad of ['true', 1, '', 0, null]) {
    it(`${JSON.stringify(bad)} is rejected`, async () => {
      expectError(await patch('B48123459', { portalHabilitado: bad }), 400, 'VALIDATION_ERROR', 'portalHabilitado');
    });
  }
  it('true and false are stored; always present in detail, absent from the list', async () => {
    expect((await detalle('B48123459')).portalHabilitado).toBe(false);
    expect(json<{ cliente: Cliente }>(await patch('B48123459', { portalHabilitado: true })).cliente.portalHabilitado).toBe(true);
    expect((await detalle('B48123459')).portalHabilitado).toBe(true);
    const rows = json<{ clientes: Record<string, unknown>[] }>(await t.manage('GET', '/v1/clientes')).clientes;
    expect(rows.every((r) => !('portalHabilitado' in r))).toBe(true);
    expect(json<{ cliente: Cliente }>(await patch('B48123459', { portalHabilitado: false })).cliente.portalHabilitado).toBe(false);
  });
});

describe('A new name runs the census check again and stores it in validacionCensal', () => {
  it('a new name is checked; the same name is not', async () => {
    expect((await detalle('23456789D')).validacionCensal.estado).toBe('identificado');
    const before = census.service.stats().requests;
    t.clock.advance(1000);
    const res = await patch('23456789D', { nombre: 'ETXEBERRIA GOIKOETXEA MIKELA' });
    expect(json<{ cliente: Cliente }>(res).cliente.validacionCensal).toMatchObject({
      estado: 'similar',
      nombreCenso: 'ETXEBERRIA GOIKOETXEA MIKEL',
      validadoEn: '2026-11-20T10:00:01.000Z',
    });
    expect(census.service.stats().requests).toBe(before + 1);
    await patch('23456789D', { nombre: 'ETXEBERRIA GOIKOETXEA MIKELA' });
    expect(census.service.stats().requests).toBe(before + 1);
  });
  it('a census outage never blocks the change', async () => {
    census.service.faults.set({ mode: 'down' });
    const res = await patch('23456789D', { nombre: 'OTRO NOMBRE' });
    expect(res.statusCode).toBe(200);
    expect(json<{ cliente: Cliente }>(res).cliente).toMatchObject({ nombre: 'OTRO NOMBRE', validacionCensal: { estado: 'no_procesado' } });
  });
});

describe('PATCH rule 3: during a representation signature, nombre, direccion or representante → 409 SIGNING_IN_PROGRESS with camposBloqueados', () => {
  beforeEach(async () => {
    expect((await t.manage('GET', '/v1/clientes/B48123459/representacion/generar')).statusCode).toBe(200);
  });
  it('lists the blocked fields the request would change', async () => {
    let body = expectError(await patch('B48123459', { nombre: 'NUEVO NOMBRE SL' }), 409, 'SIGNING_IN_PROGRESS');
    expect(body.camposBloqueados).toEqual(['nombre']);
    body = expectError(
      await patch('B48123459', { direccion: { ...DIRECCION, numero: '2' }, representante: { nombre: 'OTRA', nif: '12345678Z' }, portalHabilitado: true }),
      409,
      'SIGNING_IN_PROGRESS',
    );
    expect(body.camposBloqueados).toEqual(['direccion', 'representante']);
    expect((await detalle('B48123459')).portalHabilitado).toBe(false);
  });
  it('other fields, and a document field sent unchanged, still pass', async () => {
    expect((await patch('B48123459', { portalHabilitado: true })).statusCode).toBe(200);
    expect((await patch('B48123459', { nombre: 'TALLERES BILBAO ZAHARRA SL', direccion: DIRECCION })).statusCode).toBe(200);
  });
  it('cancelling with DELETE …/representacion/firma-en-curso unlocks them', async () => {
    expect((await t.manage('DELETE', '/v1/clientes/B48123459/representacion/firma-en-curso')).statusCode).toBe(200);
    expect((await patch('B48123459', { nombre: 'NUEVO NOMBRE SL' })).statusCode).toBe(200);
  });
});
