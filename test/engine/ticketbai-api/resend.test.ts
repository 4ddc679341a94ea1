// A treasury's answer lost after it registered the record: the engine resends the same bytes and
// the "already registered / already cancelled" answer is reconciled, never turned into a rejection.
// Also LROE batches of several invoices whose serie+número concatenations collide.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aTicketTbai, TBAI_ISSUER_LIST, TBAI_ISSUERS as ISSUERS, tbaiEmisor, type TbaiProvincia as Prov } from '../../fixtures/ticketbai';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, ticketbaiIssuers: TBAI_ISSUER_LIST });

function factura(prov: Prov, serie: string, numero: string) {
  return aTicketTbai(prov, tbaiEmisor(prov), serie, numero);
}

async function crear(prov: Prov, serie: string, numero: string): Promise<{ idFactura: string; idTbai: string }> {
  const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura(prov, serie, numero) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const eventos = (idFactura: string) =>
  (env.t.engine.context.db.statement('SELECT evento FROM events WHERE invoiceId = ? ORDER BY rowid').all(idFactura) as { evento: string }[]).map((e) => e.evento);
const estado = async (prov: Prov, id: string) => (await env.t.billing('GET', `/v1/facturas/${id}/estado?nifEmisor=${ISSUERS[prov]}`)).json();
/** Submissions of the issuer's queue: how often each was sent and how many records it carried. */
const lotes = (prov: Prov) =>
  env.t.engine.context.db
    .statement('SELECT intentos, numRegistros, estado FROM submission_batches WHERE queueKey = ? ORDER BY rowid')
    .all(`test|tbai-${prov}|${ISSUERS[prov]}`) as { intentos: number; numRegistros: number; estado: string }[];

describe('Bizkaia LROE: the answer to a batch is lost after the treasury registered it', () => {
  it('the resend gets B4_2000003 for every record and each invoice is registrada with one event, none rejected', async () => {
    const before = lotes('bizkaia').length;
    const ids = [await crear('bizkaia', 'A', '123'), await crear('bizkaia', 'A1', '23'), await crear('bizkaia', 'B', '7')];
    env.emu.tbai.faults.bizkaia.set({ mode: 'malformed', afterProcessing: true, times: 1 });
    await env.fileEverything();
    for (const { idFactura } of ids) {
      expect(await estado('bizkaia', idFactura)).toMatchObject({ estadoFactura: 'registrada' });
      expect(eventos(idFactura)).toEqual(['factura.registrada']);
    }
    // One submission of the three invoices, sent twice; the treasury saw the duplicates.
    expect(lotes('bizkaia').slice(before)).toEqual([{ intentos: 2, numRegistros: 3, estado: 'respondido' }]);
    const dups = env.emu.tbai.ledger.presentations({ provincia: 'bizkaia' }).filter((p) => p.duplicate);
    expect(dups).toHaveLength(3);
    expect(env.emu.tbai.ledger.countInvoices('bizkaia', ISSUERS.bizkaia)).toBeGreaterThanOrEqual(3);
  });

  it('a lost answer to a cancellation batch: the resend’s duplicate means anulada', async () => {
    const { idFactura } = await crear('bizkaia', 'C', '1');
    await env.fileEverything();
    env.emu.tbai.faults.bizkaia.set({ mode: 'malformed', afterProcessing: true, times: 1 });
    const res = await env.t.billing('POST', '/v1/ticketbai/anular', {
      body: { nifEmisor: ISSUERS.bizkaia, serie: 'C', numero: '1', fechaExpedicion: '20-11-2026', provincia: 'bizkaia' },
    });
    expect(res.statusCode, res.body).toBe(200);
    await env.fileEverything();
    expect(await estado('bizkaia', idFactura)).toMatchObject({ estadoFactura: 'anulada' });
    expect(eventos(idFactura)).toEqual(['factura.registrada', 'factura.anulada']);
  });
});

describe('Bizkaia LROE: several invoices in one batch, verdicts matched on serie, número and fecha', () => {
  it('A/123 rejected and A1/23 accepted in the same batch each get their own verdict', async () => {
    const before = lotes('bizkaia').length;
    env.emu.tbai.faults.bizkaia.set({ rejectNext: { count: 1, codigo: 'B4_2000020' } });
    const rejected = await crear('bizkaia', 'X', '123');
    const accepted = await crear('bizkaia', 'X1', '23');
    const third = await crear('bizkaia', 'X', '124');
    await env.fileEverything();
    expect(lotes('bizkaia').slice(before)).toEqual([{ intentos: 1, numRegistros: 3, estado: 'respondido' }]);
    expect(await estado('bizkaia', rejected.idFactura)).toMatchObject({ estadoEnvio: 'rechazada' });
    expect(await estado('bizkaia', rejected.idFactura)).not.toHaveProperty('estadoFactura');
    expect(eventos(rejected.idFactura)).toEqual(['factura.rechazada']);
    for (const ok of [accepted, third]) {
      expect(await estado('bizkaia', ok.idFactura)).toMatchObject({ estadoFactura: 'registrada' });
      expect(eventos(ok.idFactura)).toEqual(['factura.registrada']);
    }
  });
});

describe('Araba and Gipuzkoa: an answer lost after the treasury processed the request', () => {
  for (const prov of ['gipuzkoa', 'araba'] as const) {
    it(`${prov}: alta resent → 005 reconciled to registrada; anulación resent → 011 reconciled to anulada`, async () => {
      env.emu.tbai.faults[prov].set({ mode: 'malformed', afterProcessing: true, times: 1 });
      const { idFactura } = await crear(prov, 'R', '1');
      await env.fileEverything();
      expect(await estado(prov, idFactura)).toMatchObject({ estadoFactura: 'registrada' });
      const altaCodes = env.emu.tbai.ledger.presentations({ provincia: prov, idTbai: undefined }).filter((p) => p.service === 'alta' && p.duplicate);
      expect(altaCodes.map((p) => p.codes)).toContainEqual(['005']);

      env.emu.tbai.faults[prov].set({ mode: 'malformed', afterProcessing: true, times: 1 });
      const res = await env.t.billing('POST', '/v1/ticketbai/anular', {
        body: { nifEmisor: ISSUERS[prov], serie: 'R', numero: '1', fechaExpedicion: '20-11-2026', provincia: prov },
      });
      expect(res.statusCode, res.body).toBe(200);
      await env.fileEverything();
      expect(await estado(prov, idFactura)).toMatchObject({ estadoFactura: 'anulada' });
      expect(eventos(idFactura)).toEqual(['factura.registrada', 'factura.anulada']);
      const anulaciones = env.emu.tbai.ledger.presentations({ provincia: prov }).filter((p) => p.service === 'anulacion');
      // The first cancellation went through, its resend was answered 011 "ya anulada".
      expect(anulaciones.slice(-2).map((p) => p.codes)).toEqual([[], ['011']]);
    });
  }
});
