// TicketBAI signatures are made on the worker pool ahead of their transaction, one chain at a
// time and chains in parallel (engine/src/issuing/chain-pipeline.ts). Whatever the interleaving,
// every chain must come out whole: checked with the chain verifier (engine/src/verification),
// which verifies each XAdES signature and each link from the stored XML alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificacionCadenasSchema } from '../../../src-shared/api/verificacion';
import { DeviceStore } from '../../../engine/src/devices/store';
import { ticketbaiChainKey } from '../../../engine/src/regimes/ticketbai/service';
import { verificarCadenasEn } from '../../../engine/src/verification/verificar';
import { aTicketTbai } from '../../fixtures/ticketbai';
import { makeTestEngine, type TestEngine } from '../../support/engine';

const NOW = new Date('2026-11-20T10:00:00.000Z');
const NIF = 'A58818501';
const CAJAS = ['caja-1', 'caja-2', 'caja-3', 'caja-4'];

let t: TestEngine;
beforeAll(async () => {
  t = await makeTestEngine({ now: NOW.toISOString() });
  const ctx = t.engine.context;
  const accountId = ctx.accounts.listAccounts()[0]!.id;
  ctx.issuers.create({ accountId, entorno: 'test', nif: NIF, nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
  new DeviceStore(ctx.db).setPhase(accountId, NIF, 'activa', NOW.toISOString());
  for (const idMaquina of CAJAS) {
    const res = await t.manage('POST', `/v1/clientes/${NIF}/dispositivos`, { body: { idMaquina } });
    expect([200, 201], res.body).toContain(res.statusCode);
  }
});
afterAll(async () => t.close());

const ticket = (serie: string, numero: number, idMaquina?: string) => ({
  ...aTicketTbai('gipuzkoa', { nif: NIF, nombre: 'EMISOR GIPUZKOA SL' }, serie, String(numero)),
  ...(idMaquina ? { idMaquina } : {}),
});
const crear = (body: ReturnType<typeof ticket>) => t.billing('POST', '/v1/ticketbai/crear', { body });

function verify() {
  return verificacionCadenasSchema.parse(verificarCadenasEn(t.engine.context.db, { nif: NIF }, NOW));
}
const registrosOf = (v: ReturnType<typeof verify>, chainKey: string) => v.cadenas.find((c) => c.clave === chainKey)?.registros;

describe('concurrent TicketBAI issuing', () => {
  it('4 device chains and the issuer chain at once: every request 200, every chain whole and every signature valid', async () => {
    const requests = [];
    for (let n = 1; n <= 8; n++) {
      for (const [i, caja] of CAJAS.entries()) requests.push(crear(ticket(`S${i + 1}-`, n, caja)));
      // No idMaquina in `activa`: the centralized writer, on the issuer's single chain.
      requests.push(crear(ticket('C-', n)));
    }
    const answers = await Promise.all(requests);
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    expect(new Set(answers.map((r) => r.json<{ idTbai: string }>().idTbai)).size).toBe(answers.length);

    const v = verify();
    expect(v.problemas).toEqual([]);
    expect(v.correcto).toBe(true);
    for (const caja of CAJAS) expect(registrosOf(v, ticketbaiChainKey('test', NIF, caja))).toBe(8);
    expect(registrosOf(v, ticketbaiChainKey('test', NIF))).toBe(8);
  });

  it('one chain, 24 requests at once: one unbroken chain of 24 in the stored order', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, (_, k) => crear(ticket('S3-', 100 + k, 'caja-3'))));
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    expect(verify().correcto).toBe(true);
    const chain = t.engine.context.invoices.chain(ticketbaiChainKey('test', NIF, 'caja-3'));
    expect(chain.map((r) => r.chainSeq)).toEqual(Array.from({ length: 32 }, (_, k) => k + 1));
  });

  it('a request refused in its transaction after it was signed ahead: the ones signed after it are chained to the stored head', async () => {
    // S1- belongs to caja-1: caja-2's first request is signed ahead (the look before the
    // transaction does not claim series) and refused in the transaction; the next ones of
    // caja-2 were signed against it and must not stay chained to it.
    expect((await crear(ticket('S1-', 899, 'caja-1'))).statusCode).toBe(200);
    const before = t.engine.context.invoices.chain(ticketbaiChainKey('test', NIF, 'caja-2')).length;
    const answers = await Promise.all([
      crear(ticket('S1-', 900, 'caja-2')),
      ...Array.from({ length: 6 }, (_, k) => crear(ticket('S2-', 200 + k, 'caja-2'))),
    ]);
    expect(answers[0]!.statusCode).toBe(409);
    expect(answers[0]!.json<{ code: string }>().code).toBe('SERIE_OWNED_BY_OTHER_MACHINE');
    for (const res of answers.slice(1)) expect(res.statusCode, res.body).toBe(200);
    const v = verify();
    expect(v.problemas).toEqual([]);
    expect(v.correcto).toBe(true);
    expect(registrosOf(v, ticketbaiChainKey('test', NIF, 'caja-2'))).toBe(before + 6);
    // And the chain goes on from the stored head.
    expect((await crear(ticket('S2-', 300, 'caja-2'))).statusCode).toBe(200);
    expect(verify().correcto).toBe(true);
  });

  it('a replay in the middle of a burst answers the stored invoice (yaExistente) and changes nothing', async () => {
    const first = (await crear(ticket('S4-', 500, 'caja-4'))).json<{ idTbai: string; qrBase64: string }>();
    const answers = await Promise.all([crear(ticket('S4-', 501, 'caja-4')), crear(ticket('S4-', 500, 'caja-4')), crear(ticket('S4-', 502, 'caja-4'))]);
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const replay = answers[1]!.json<{ idTbai: string; qrBase64: string; yaExistente?: boolean }>();
    expect(replay).toMatchObject({ idTbai: first.idTbai, qrBase64: first.qrBase64, yaExistente: true });
    const v = verify();
    expect(v.correcto).toBe(true);
    expect(registrosOf(v, ticketbaiChainKey('test', NIF, 'caja-4'))).toBe(8 + 3);
  });
});
