import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import type { AuthorityAdapter } from '../../../engine/src/core/authority';
import { replaceAdapter, useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const QUEUE = `test|aeat|${NIF}`;
const WAIT_S = 60;

const env = useEngineWithEmulators({ clock, waitSeconds: WAIT_S, aeat: { timeoutMs: 3000 }, submission: { backoffBaseMs: 1000, random: () => 0.5 } });

const worker = () =>
  env.t.engine.context.submissions as unknown as {
    tick(): Promise<number>;
    drainDue(): Promise<void>;
    buildBatch(q: string, a: unknown): Promise<{ id: string }>;
    adapterFor(q: string): AuthorityAdapter;
  };

async function issue(numero: string): Promise<string> {
  const res = await env.t.billing('POST', '/v1/verifactu/crear', {
    body: aFacturaF2({ cabecera: { serie: 'E', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
  });
  expect(res.statusCode).toBe(200);
  return res.json().idFactura as string;
}

/** estadoEnvio of the invoice and of its record. */
const states = (id: string) => {
  const inv = env.t.engine.context.db.statement('SELECT estadoEnvio, estadoFactura FROM invoices WHERE id = ?').get(id) as { estadoEnvio: string; estadoFactura: string | null };
  const reg = env.t.engine.context.db.statement('SELECT estadoEnvio, estadoEnvioFinal FROM registros WHERE invoiceId = ?').get(id) as { estadoEnvio: string; estadoEnvioFinal: string | null };
  return { factura: inv.estadoFactura ?? inv.estadoEnvio, registro: reg.estadoEnvioFinal ?? reg.estadoEnvio };
};

describe('estadoEnvio on the way out', () => {
  it('pendiente_proceso → en_lote → pendiente_envio (failed send, kept through the resend) → registrada; en_cola once a stored submission is on the wire', async () => {
    const id = await issue('1');
    const seen = [states(id)];
    await worker().buildBatch(QUEUE, worker().adapterFor(QUEUE));
    seen.push(states(id));

    // What the tables say at the moment each request leaves (its attempt is committed before;
    // its records are marked en_cola only once the bytes are on the wire) and when its answer is in.
    const real = worker().adapterFor(QUEUE);
    let watched = id;
    const attemptsAtSend: number[] = [];
    const attempts = () => (env.t.engine.context.db.statement('SELECT b.intentos FROM submission_batches b JOIN registros r ON r.idLote = b.id WHERE r.invoiceId = ?').get(watched) as { intentos: number }).intentos;
    replaceAdapter(worker(), {
      autoridad: real.autoridad,
      maxRecords: real.maxRecords,
      build: (records, context) => real.build(records, context),
      lineKey: (record) => real.lineKey(record),
      interpret: (sent, records) => {
        seen.push(states(watched));
        return real.interpret(sent, records);
      },
      send: (entorno, request, onWritten) => {
        seen.push(states(watched));
        attemptsAtSend.push(attempts());
        return real.send(entorno, request, onWritten);
      },
    });
    try {
      env.emu.aeat.faults.set({ mode: 'down', times: 1 });
      await worker().tick();
      seen.push(states(id));

      clock.advance(1000);
      await worker().tick();
      seen.push(states(id));

      // A submission stored while TiempoEsperaEnvio runs leaves when it is over.
      watched = await issue('10');
      await worker().buildBatch(QUEUE, worker().adapterFor(QUEUE));
      seen.push(states(watched));
      clock.advance(WAIT_S * 1000);
      await worker().tick();
      seen.push(states(watched));
    } finally {
      replaceAdapter(worker(), real);
    }

    const both = (s: string) => ({ factura: s, registro: s });
    expect(seen).toEqual([
      both('pendiente_proceso'),
      both('en_lote'),
      // Leaving: its attempt is counted, the records are marked once the bytes are on the wire;
      // this send never got there (the connection was reset).
      both('en_lote'),
      both('pendiente_envio'),
      // A resend rewrites no record: they wait as pendiente_envio until an answer settles them.
      both('pendiente_envio'),
      both('pendiente_envio'),
      both('registrada'),
      // The second invoice: stored, leaving, answered (on the wire, awaiting the answer), settled.
      both('en_lote'),
      both('en_lote'),
      both('en_cola'),
      both('registrada'),
    ]);
    expect(attemptsAtSend).toEqual([1, 2, 1]);
    expect((await env.t.billing('GET', `/v1/facturas/${id}/estado?nifEmisor=${NIF}`)).json()).toMatchObject({ estadoFactura: 'registrada' });
  });
});

describe('A resend honours TiempoEsperaEnvio', () => {
  it('a submission left unanswered waits for the last answer\'s TiempoEsperaEnvio before it goes', async () => {
    // The previous test's answer (just now) asked for 60 s. A submission committed but not sent
    // (as a crash between commit and send leaves it) must not go before they are over.
    clock.advance(1000);
    await issue('2');
    await worker().buildBatch(QUEUE, worker().adapterFor(QUEUE));
    const sent = env.emu.aeat.ledger.submissions().length;
    expect(await worker().tick()).toBe(0);
    clock.advance(30_000);
    expect(await worker().tick()).toBe(0);
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent);

    clock.advance(30_000);
    expect(await worker().tick()).toBe(1);
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent + 1);
    expect(env.emu.aeat.ledger.flowViolations(NIF)).toEqual([]);
  });

  it('the back-off applies to the resend too', async () => {
    clock.advance(WAIT_S * 1000);
    await issue('3');
    env.emu.aeat.faults.set({ mode: 'serverFault', times: 1 });
    expect(await worker().tick()).toBe(1);
    const q = env.t.engine.context.db.statement('SELECT reintentoEn FROM submission_queues WHERE queueKey = ?').get(QUEUE) as { reintentoEn: string };
    expect(Date.parse(q.reintentoEn)).toBe(clock.now().getTime() + 1000);
    expect(await worker().tick()).toBe(0);
    clock.advance(1000);
    expect(await worker().tick()).toBe(1);
    // Invoices 1, 10, 2 and 3.
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(4);
  });
});
