import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, onPostgres, type TestEngine } from '../../support/engine';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { invalidAeatReplies } from '../../support/xsd';

let t: TestEngine;
let emu: Emulators;
const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const WAIT_S = 5; // a short TiempoEsperaEnvio

beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: WAIT_S });
  t = await makeTestEngine({ clock, submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl }, timeoutMs: 2000 }, random: () => 0.5 } });
});
afterAll(async () => {
  await t.close();
  await emu.close();
});

const jobsLeft = () => (t.engine.context.db.statement('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number }).n;

describe('Emulator down while 5,000 invoices are issued', () => {
  it('every issue answers 200; after recovery the backlog drains with 0 lost, 0 duplicated, no batch over 1000, the wait respected', async () => {
    emu.aeat.faults.set({ mode: 'down' });
    const ids: string[] = [];
    for (let start = 0; start < 5000; start += 250) {
      const answers = await Promise.all(
        Array.from({ length: 250 }, (_, k) =>
          t.billing('POST', '/v1/verifactu/crear', {
            body: aFacturaF2({ cabecera: { serie: 'D', numero: String(start + k), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
          }),
        ),
      );
      for (const res of answers) {
        expect(res.statusCode).toBe(200);
        ids.push(res.json().idFactura);
      }
      // The worker keeps trying while the authority is down; nothing is lost meanwhile.
      await t.engine.context.submissions.tick();
      clock.advance(500);
    }
    const queue = t.engine.context.db.statement('SELECT alcanzable, fallosSeguidos FROM submission_queues').get() as { alcanzable: number; fallosSeguidos: number };
    expect(queue.alcanzable).toBe(0);
    expect(queue.fallosSeguidos).toBeGreaterThan(0);
    expect(emu.aeat.ledger.countRecords(NIF)).toBe(0);

    clock.advance(5 * 60_000); // the outage lasts past AEAT's 240 s
    emu.aeat.faults.set({ mode: 'none' });
    for (let i = 0; i < 200 && jobsLeft() > 0; i++) {
      await t.engine.context.submissions.drainDue();
      clock.advance(1000);
    }
    expect(jobsLeft()).toBe(0);
    expect(emu.aeat.ledger.countRecords(NIF)).toBe(5000);
    expect(emu.aeat.ledger.duplicatesReceived()).toEqual([]);
    expect(emu.aeat.ledger.maxBatchSize()).toBeLessThanOrEqual(1000);
    expect(emu.aeat.ledger.flowViolations(NIF)).toEqual([]);
    expect(emu.aeat.ledger.chainIntact(NIF)).toBe(true);
    const states = t.engine.context.db
      .statement("SELECT estadoFactura, COUNT(*) AS n FROM invoices WHERE numeroFactura LIKE 'D%' GROUP BY estadoFactura")
      .all() as { estadoFactura: string; n: number }[];
    expect(states).toEqual([{ estadoFactura: 'registrada', n: 5000 }]);
    // Records generated long before they could be sent travel with Incidencia = S.
    const late = t.engine.context.db.statement('SELECT COUNT(*) AS n FROM submission_batches WHERE incidencia = 1').get() as { n: number };
    expect(late.n).toBeGreaterThan(0);
    // 5,000 issues at a round trip per statement: PostgreSQL sharing the CI machine's two cores takes longer.
  }, onPostgres() ? 240_000 : undefined);

  it('every reply the engine parsed validates against RespuestaSuministro.xsd', async () => {
    const replies = t.engine.context.db.statement("SELECT respuesta FROM submission_batches WHERE respuesta IS NOT NULL").all() as { respuesta: string }[];
    expect(replies.length).toBeGreaterThan(0);
    // The same check every test engine runs on close (test/support/engine.ts), here explicitly.
    expect(await invalidAeatReplies(t.engine.context.db)).toEqual([]);
  });
});

describe('Transport failures and Server faults are retried with the same bytes; data rejections are final', () => {
  for (const mode of ['http500', 'serverFault', 'malformed', 'timeout'] as const) {
    it(`${mode}: retried until accepted, the same request bytes every time`, async () => {
      emu.aeat.faults.set({ mode, times: 2, ...(mode === 'timeout' ? {} : {}) });
      const res = await t.billing('POST', '/v1/verifactu/crear', {
        body: aFacturaF2({ cabecera: { serie: 'F', numero: mode, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
      });
      expect(res.statusCode).toBe(200);
      clock.advance(WAIT_S * 1000 + 1);
      for (let i = 0; i < 20 && jobsLeft() > 0; i++) {
        await t.engine.context.submissions.drainDue();
        clock.advance(10 * 60_000);
      }
      expect(jobsLeft()).toBe(0);
      const estado = (await t.billing('GET', `/v1/facturas/${res.json().idFactura}/estado?nifEmisor=${NIF}`)).json();
      expect(estado.estadoFactura).toBe('registrada');
      const batch = t.engine.context.db
        .statement('SELECT b.intentos FROM submission_batches b JOIN registros r ON r.idLote = b.id WHERE r.invoiceId = ?')
        .get(res.json().idFactura) as { intentos: number };
      expect(batch.intentos).toBe(3);
    }, 30_000);
  }
});

describe('A lost answer (AEAT registered, the engine never heard back) → resend of the same bytes, duplicate reconciled', () => {
  it('registers the invoice from the 3000 answer with the original verdict and writes one event', async () => {
    emu.aeat.faults.set({ mode: 'http500', afterProcessing: true, times: 1 });
    const res = await t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie: 'L', numero: '1', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    const id = res.json().idFactura as string;
    clock.advance(WAIT_S * 1000 + 1);
    for (let i = 0; i < 20 && jobsLeft() > 0; i++) {
      await t.engine.context.submissions.drainDue();
      clock.advance(10 * 60_000);
    }
    expect(emu.aeat.ledger.duplicatesReceived().length).toBeGreaterThan(0);
    const estado = (await t.billing('GET', `/v1/facturas/${id}/estado?nifEmisor=${NIF}`)).json();
    expect(estado.estadoFactura).toBe('registrada');
    const events = t.engine.context.db.statement('SELECT evento FROM events WHERE invoiceId = ?').all(id) as { evento: string }[];
    expect(events).toEqual([{ evento: 'factura.registrada' }]);
    const detail = (await t.billing('GET', `/v1/facturas/${id}?nifEmisor=${NIF}`)).json();
    expect(detail.registros[0]).toMatchObject({ estado: 'aceptada', estadoEnvioFinal: 'registrada' });
  });
});
