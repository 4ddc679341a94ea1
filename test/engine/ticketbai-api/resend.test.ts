// A treasury's answer lost after it registered the record: the engine resends the same bytes and
// the "already registered / already cancelled" answer is reconciled, never turned into a rejection.
// Also LROE batches of several invoices whose serie+número concatenations collide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { startTestEmulators } from '../../support/emulators';

type Emulators = Awaited<ReturnType<typeof startTestEmulators>>;
let t: TestEngine;
let emu: Emulators;
const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const ISSUERS = { gipuzkoa: 'A58818501', araba: 'B87654323', bizkaia: 'B00000034' } as const;
type Prov = keyof typeof ISSUERS;

beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: 0 });
  t = await makeTestEngine({ clock, submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl }, timeoutMs: 3000 } } });
  Object.assign(t.engine.context.config.ticketbai.endpoints.base, {
    araba: { test: `${emu.url}/tbai/araba`, live: `${emu.url}/tbai/araba` },
    bizkaia: { test: `${emu.url}/tbai/bizkaia`, live: `${emu.url}/tbai/bizkaia` },
    gipuzkoa: { test: `${emu.url}/tbai/gipuzkoa`, live: `${emu.url}/tbai/gipuzkoa` },
  });
  const ctx = t.engine.context;
  const account = ctx.accounts.listAccounts()[0]!;
  for (const [prov, nif] of Object.entries(ISSUERS)) {
    ctx.issuers.create({ accountId: account.id, entorno: 'test', nif, nombre: `EMISOR ${prov.toUpperCase()} SL`, hacienda: `tbai-${prov as Prov}` });
  }
});
afterAll(async () => {
  await t.close();
  await emu.close();
});

function factura(prov: Prov, serie: string, numero: string) {
  return {
    provincia: prov,
    emisor: { nif: ISSUERS[prov], nombre: `EMISOR ${prov.toUpperCase()} SL` },
    serie,
    numero,
    fechaExpedicion: '20-11-2026',
    horaExpedicion: '10:00:00',
    tipoFactura: 'F2',
    importeTotal: '12.10',
    descripcion: 'Venta',
    desglose: [{ baseImponible: '10.00', tipoImpositivo: '21.00', cuota: '2.10', calificacionOperacion: 'S1' }],
    lineas: [{ descripcion: 'Café', cantidad: '2', importeUnitario: '5.00', importeTotal: '12.10' }],
  };
}

const sqlite = () => t.engine.context.db.sqlite;
const jobsLeft = () => (sqlite().prepare('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number }).n;
async function fileEverything(): Promise<void> {
  for (let i = 0; i < 30 && jobsLeft() > 0; i++) {
    await t.engine.context.submissions.drainDue();
    clock.advance(1000);
  }
  expect(jobsLeft()).toBe(0);
}
async function crear(prov: Prov, serie: string, numero: string): Promise<{ idFactura: string; idTbai: string }> {
  const res = await t.billing('POST', '/v1/ticketbai/crear', { body: factura(prov, serie, numero) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const eventos = (idFactura: string) =>
  (sqlite().prepare('SELECT evento FROM events WHERE invoiceId = ? ORDER BY rowid').all(idFactura) as { evento: string }[]).map((e) => e.evento);
const estado = async (prov: Prov, id: string) => (await t.billing('GET', `/v1/facturas/${id}/estado?nifEmisor=${ISSUERS[prov]}`)).json();
/** Submissions of the issuer's queue: how often each was sent and how many records it carried. */
const lotes = (prov: Prov) =>
  sqlite()
    .prepare('SELECT intentos, numRegistros, estado FROM submission_batches WHERE queueKey = ? ORDER BY rowid')
    .all(`test|tbai-${prov}|${ISSUERS[prov]}`) as { intentos: number; numRegistros: number; estado: string }[];

describe('Bizkaia LROE: the answer to a batch is lost after the treasury registered it', () => {
  it('the resend gets B4_2000003 for every record and each invoice is registrada with one event, none rejected', async () => {
    const before = lotes('bizkaia').length;
    const ids = [await crear('bizkaia', 'A', '123'), await crear('bizkaia', 'A1', '23'), await crear('bizkaia', 'B', '7')];
    emu.tbai.faults.bizkaia.set({ mode: 'malformed', afterProcessing: true, times: 1 });
    await fileEverything();
    for (const { idFactura } of ids) {
      expect(await estado('bizkaia', idFactura)).toMatchObject({ estadoFactura: 'registrada' });
      expect(eventos(idFactura)).toEqual(['factura.registrada']);
    }
    // One submission of the three invoices, sent twice; the treasury saw the duplicates.
    expect(lotes('bizkaia').slice(before)).toEqual([{ intentos: 2, numRegistros: 3, estado: 'respondido' }]);
    const dups = emu.tbai.ledger.presentations({ provincia: 'bizkaia' }).filter((p) => p.duplicate);
    expect(dups).toHaveLength(3);
    expect(emu.tbai.ledger.countInvoices('bizkaia', ISSUERS.bizkaia)).toBeGreaterThanOrEqual(3);
  });

  it('a lost answer to a cancellation batch: the resend’s duplicate means anulada', async () => {
    const { idFactura } = await crear('bizkaia', 'C', '1');
    await fileEverything();
    emu.tbai.faults.bizkaia.set({ mode: 'malformed', afterProcessing: true, times: 1 });
    const res = await t.billing('POST', '/v1/ticketbai/anular', {
      body: { nifEmisor: ISSUERS.bizkaia, serie: 'C', numero: '1', fechaExpedicion: '20-11-2026', provincia: 'bizkaia' },
    });
    expect(res.statusCode, res.body).toBe(200);
    await fileEverything();
    expect(await estado('bizkaia', idFactura)).toMatchObject({ estadoFactura: 'anulada' });
    expect(eventos(idFactura)).toEqual(['factura.registrada', 'factura.anulada']);
  });
});

describe('Bizkaia LROE: several invoices in one batch, verdicts matched on serie, número and fecha', () => {
  it('A/123 rejected and A1/23 accepted in the same batch each get their own verdict', async () => {
    const before = lotes('bizkaia').length;
    emu.tbai.faults.bizkaia.set({ rejectNext: { count: 1, codigo: 'B4_2000020' } });
    const rejected = await crear('bizkaia', 'X', '123');
    const accepted = await crear('bizkaia', 'X1', '23');
    const third = await crear('bizkaia', 'X', '124');
    await fileEverything();
    expect(lotes('bizkaia').slice(before)).toEqual([{ intentos: 1, numRegistros: 3, estado: 'respondido' }]);
    expect(await estado('bizkaia', rejected.idFactura)).toMatchObject({ estadoEnvio: 'rechazada', estadoFactura: null });
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
      emu.tbai.faults[prov].set({ mode: 'malformed', afterProcessing: true, times: 1 });
      const { idFactura } = await crear(prov, 'R', '1');
      await fileEverything();
      expect(await estado(prov, idFactura)).toMatchObject({ estadoFactura: 'registrada' });
      const altaCodes = emu.tbai.ledger.presentations({ provincia: prov, idTbai: undefined }).filter((p) => p.service === 'alta' && p.duplicate);
      expect(altaCodes.map((p) => p.codes)).toContainEqual(['005']);

      emu.tbai.faults[prov].set({ mode: 'malformed', afterProcessing: true, times: 1 });
      const res = await t.billing('POST', '/v1/ticketbai/anular', {
        body: { nifEmisor: ISSUERS[prov], serie: 'R', numero: '1', fechaExpedicion: '20-11-2026', provincia: prov },
      });
      expect(res.statusCode, res.body).toBe(200);
      await fileEverything();
      expect(await estado(prov, idFactura)).toMatchObject({ estadoFactura: 'anulada' });
      expect(eventos(idFactura)).toEqual(['factura.registrada', 'factura.anulada']);
      const anulaciones = emu.tbai.ledger.presentations({ provincia: prov }).filter((p) => p.service === 'anulacion');
      // The first cancellation went through, its resend was answered 011 "ya anulada".
      expect(anulaciones.slice(-2).map((p) => p.codes)).toEqual([[], ['011']]);
    });
  }
});
