import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { motivoBloqueo } from '../../../engine/src/submission/blocked';
import { issueTickets, useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const QUEUE = `test|aeat|${NIF}`;

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { backoffBaseMs: 10_000, random: () => 0.5 } });

const queue = () =>
  env.t.engine.context.db.statement('SELECT reintentoEn, fallosSeguidos, ultimoError, alcanzable FROM submission_queues WHERE queueKey = ?').get(QUEUE) as {
    reintentoEn: string | null;
    fallosSeguidos: number;
    ultimoError: string | null;
    alcanzable: number | null;
  };

const issue = (serie: string, n: number) => issueTickets(env, serie, n);

const estados = (ids: string[]) =>
  ids.map((id) => env.t.engine.context.db.statement('SELECT estadoFactura, estadoEnvio FROM invoices WHERE id = ?').get(id) as { estadoFactura: string | null; estadoEnvio: string });
const eventCount = (ids: string[]) =>
  (env.t.engine.context.db.statement(`SELECT COUNT(*) AS n FROM events WHERE invoiceId IN (${ids.map(() => '?').join(',')})`).get(...ids) as { n: number }).n;

describe('Whole-request SOAP Client faults', () => {
  it('4102 (our bytes break the schema) rejects the records finally, never resent', async () => {
    const ids = await issue('S', 2);
    const worker = env.t.engine.context.submissions as unknown as { buildBatch(q: string, a: unknown): Promise<{ id: string }>; adapterFor(q: string): unknown };
    const batch = await worker.buildBatch(QUEUE, worker.adapterFor(QUEUE));
    // A defect in the committed bytes: an element the schema does not allow in the header.
    const peticion = (env.t.engine.context.db.statement('SELECT peticion FROM submission_requests WHERE idLote = ?').get(batch.id) as { peticion: string }).peticion;
    env.t.engine.context.db.statement('UPDATE submission_requests SET peticion = ? WHERE idLote = ?').run(
      peticion.replace('</sum1:ObligadoEmision>', '</sum1:ObligadoEmision><sum1:Sobrante>x</sum1:Sobrante>'),
      batch.id,
    );
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().at(-1)).toMatchObject({ outcome: 'fault', faultCode: '4102' });
    expect(estados(ids)).toEqual(ids.map(() => ({ estadoFactura: null, estadoEnvio: 'rechazada' })));
    const r = env.t.engine.context.db.statement('SELECT estadoEnvioFinal, codigoRespuesta FROM registros WHERE invoiceId = ?').get(ids[0]) as { estadoEnvioFinal: string; codigoRespuesta: string };
    expect(r).toEqual({ estadoEnvioFinal: 'rechazada', codigoRespuesta: '4102' });
    expect(eventCount(ids)).toBe(2);
    const sent = env.emu.aeat.ledger.submissions().length;
    clock.advance(600_000);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent);
    expect(env.jobsLeft()).toBe(0);
  });

  it('4104 (obligado not in the census) rejects nothing: the queue waits an hour, and the sync view and the invoice’s status say why and what to do', async () => {
    env.emu.aeat.census.addTaxpayer({ nif: NIF, nombre: 'COMERCIAL DEMO SL', estado: 'revocado' });
    const ids = await issue('C', 3);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().at(-1)).toMatchObject({ outcome: 'fault', faultCode: '4104' });
    // Records kept, nothing rejected, no event (the spec's events are final verdicts only).
    expect(estados(ids)).toEqual(ids.map(() => ({ estadoFactura: null, estadoEnvio: 'pendiente_envio' })));
    expect(eventCount(ids)).toBe(0);
    expect(env.jobsLeft()).toBe(3);
    const q = queue();
    expect(q.ultimoError).toContain('Codigo[4104]');
    expect(q.fallosSeguidos).toBe(1);
    expect(q.alcanzable).toBe(1);
    // Resending cannot cure it: a long wait (1 h), not the few seconds of the back-off.
    expect(Date.parse(q.reintentoEn!)).toBe(clock.now().getTime() + 60 * 60_000);

    // The sync view: the queue's block, in words the till UI maps, with what to do.
    const panel = (method: 'GET' | 'POST', url: string, body?: unknown) =>
      env.t.panel(method, url, body);
    const sync = (await panel('GET', '/panel/v1/sync')).json() as { colas: { queueKey: string; bloqueo: unknown }[] };
    expect(sync.colas.find((c) => c.queueKey === QUEUE)?.bloqueo).toEqual({
      codigo: '4104',
      motivo: 'nif_emisor_no_identificado',
      descripcion: expect.stringContaining('Codigo[4104]'),
      accion: expect.stringMatching(/NIF del emisor.*censo/),
      desde: clock.now().toISOString(),
      reintentoEn: q.reintentoEn,
    });
    // The invoice's status read says it too (still in flight: estadoFactura null).
    const estado = (await env.t.billing('GET', `/v1/facturas/${ids[0]}/estado?nifEmisor=${NIF}`)).json();
    expect(estado).toMatchObject({ estadoFactura: null, estadoEnvio: 'pendiente_envio', bloqueoEnvio: { codigo: '4104', motivo: 'nif_emisor_no_identificado' } });

    // Waiting: nothing goes before the hour is up, not after a few minutes either.
    const sent = env.emu.aeat.ledger.submissions().length;
    clock.advance(10 * 60_000);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent);
    clock.advance(50 * 60_000);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent + 1);
    expect(queue().fallosSeguidos).toBe(2);
    expect(Date.parse(queue().reintentoEn!)).toBe(clock.now().getTime() + 60 * 60_000);

    // Fixed in the census, "retry now" in the panel: sent at once, and the block is gone.
    env.emu.aeat.census.addTaxpayer({ nif: NIF, nombre: 'COMERCIAL DEMO SL', estado: 'alta' });
    expect((await panel('POST', '/panel/v1/sync/reintentar', {})).statusCode).toBe(200);
    await env.t.engine.context.submissions.drainDue();
    expect(env.jobsLeft()).toBe(0);
    expect(estados(ids).map((e) => e.estadoFactura)).toEqual(['registrada', 'registrada', 'registrada']);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(3);
    expect(queue()).toMatchObject({ fallosSeguidos: 0, reintentoEn: null });
    const after = (await panel('GET', '/panel/v1/sync')).json() as { colas: { queueKey: string; bloqueo: unknown }[] };
    expect(after.colas.find((c) => c.queueKey === QUEUE)?.bloqueo).toBeNull();
    expect((await env.t.billing('GET', `/v1/facturas/${ids[0]}/estado?nifEmisor=${NIF}`)).json()).not.toHaveProperty('bloqueoEnvio');
  });

  it('only the faults that need a person are blocks (4104, 4105, 4112); others keep the back-off', async () => {
    expect(motivoBloqueo('4135')).toBeUndefined();
    expect(motivoBloqueo('4104')).toBe('nif_emisor_no_identificado');
  });
});
