// The issuing answers leave through a serializer compiled from the response schema
// (core/response-serializer.ts) instead of zod's check-then-stringify: the bytes must be exactly
// those the zod serializer writes, for every kind of answer, and an answer that breaks its schema
// must still fail.
import { serializerCompiler } from '@fastify/type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketbaiEmisionResponse } from '../../../src-shared/api/ticketbai';
import { verifactuAnularResponse, verifactuEmisionResponse } from '../../../src-shared/api/verifactu';
import { flatFields, flatSerializerCompiler } from '../../../engine/src/core/response-serializer';
import { aFacturaF1, aFacturaF2 } from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import { crear, engineOnFixtureDay } from './helpers';

const route = (schema: unknown) => ({ schema, method: 'POST', url: '/v1/x/crear', httpStatus: '200' });
const zodOf = (schema: unknown) => serializerCompiler(route(schema) as Parameters<typeof serializerCompiler>[0]);

const QR = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const verifactuAnswer = {
  idFactura: 'fac_0001',
  estado: 'pendiente_proceso',
  numeroFactura: 'A-1',
  sistemaFiscal: 'verifactu',
  entorno: 'test',
  huella: 'A'.repeat(64),
  fechaHoraHusoGenRegistro: '2026-03-02T11:15:00+01:00',
  urlValidacion: 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=A-1&fecha=02-03-2026&importe=12.10',
  qrBase64: QR,
};
const ticketbaiAnswer = {
  idFactura: 'fac_0002',
  estado: 'en_cola',
  numeroFactura: 'T-1',
  sistemaFiscal: 'ticketbai',
  entorno: 'live',
  idTbai: 'TBAI-A58818501-201126-ABCDEFGHIJKLM-123',
  urlValidacion: 'https://tbai.egoitza.gipuzkoa.eus/qr/?id=TBAI-A58818501-201126-ABCDEFGHIJKLM-123&s=T&nf=1&i=12.10&cr=123',
  qrBase64: QR,
};

describe('The compiled serializer writes the zod serializer\'s bytes', () => {
  const cases: [string, unknown, Record<string, unknown>][] = [
    ['VeriFactu, new', verifactuEmisionResponse, verifactuAnswer],
    ['VeriFactu, with avisos', verifactuEmisionResponse, { ...verifactuAnswer, avisos: ['importeTotal: "121.03" difiere', 'comillas " y \\ y ñ\u2028'] }],
    ['VeriFactu, replay', verifactuEmisionResponse, { ...verifactuAnswer, avisos: [], yaExistente: true }],
    ['VeriFactu, keys in another order, an optional key set to undefined', verifactuEmisionResponse, { yaExistente: false, ...Object.fromEntries(Object.entries(verifactuAnswer).reverse()), avisos: undefined }],
    ['TicketBAI, new', ticketbaiEmisionResponse, ticketbaiAnswer],
    ['TicketBAI, Zuzendu replay with avisos', ticketbaiEmisionResponse, { ...ticketbaiAnswer, avisos: ['x'], viaZuzendu: true, yaExistente: true }],
  ];
  for (const [name, schema, answer] of cases) {
    it(name, () => {
      // Not a vacuous comparison: the schema is one the compiled path handles.
      expect(flatFields(schema as never)).toBeDefined();
      const fast = flatSerializerCompiler(route(schema))(answer);
      expect(fast).toBe(zodOf(schema)(answer));
      expect(JSON.parse(fast)).toEqual(JSON.parse(JSON.stringify(answer)));
    });
  }

  it('an answer that breaks its schema still fails (wrong type, missing field, unknown key)', () => {
    const fast = flatSerializerCompiler(route(verifactuEmisionResponse));
    const { huella: _h, ...sinHuella } = verifactuAnswer;
    expect(() => fast({ ...verifactuAnswer, yaExistente: 'true' })).toThrow();
    expect(() => fast({ ...verifactuAnswer, avisos: [1] })).toThrow();
    expect(() => fast(sinHuella)).toThrow();
    expect(() => fast({ ...verifactuAnswer, extra: 'x' })).toThrow();
    expect(() => fast(null)).toThrow();
  });

  it('a schema that is not flat (a nested object) is left to the zod serializer', () => {
    expect(flatFields(verifactuAnularResponse)).toBeUndefined();
    const answer = { code: 'SUCCESS', data: { idFactura: 'f', idRegistro: 'r', numeroFactura: 'n', numero: '1', estado: 'pendiente', creadoEn: '2026-03-02T10:15:00.000Z', huella: 'B'.repeat(64) } };
    expect(flatSerializerCompiler(route(verifactuAnularResponse))(answer)).toBe(zodOf(verifactuAnularResponse)(answer));
  });
});

describe('crear over HTTP answers the bytes the zod serializer would', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await engineOnFixtureDay();
  });
  afterAll(async () => t.close());
  const zod = zodOf(verifactuEmisionResponse);

  it('a new invoice, one with avisos, and their replays', async () => {
    const bodies = [aFacturaF2({ cabecera: { numero: 'AB-1' } }), aFacturaF1({ cabecera: { numero: 'AB-2' }, importeTotal: '121.03' })];
    const answers = [];
    for (const body of [...bodies, ...bodies]) {
      const res = await crear(t, body);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).toBe(zod(JSON.parse(res.body)));
      answers.push(JSON.parse(res.body) as { avisos?: string[]; yaExistente?: boolean; qrBase64: string });
    }
    expect(answers[1]?.avisos?.length).toBeGreaterThan(0);
    expect(answers[2]?.yaExistente).toBe(true);
    expect(answers[3]?.yaExistente).toBe(true);
    expect(answers.every((a) => a.qrBase64.length > 100)).toBe(true);
  });
});
