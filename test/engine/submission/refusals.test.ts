import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { issueTickets, useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const QUEUE = `test|aeat|${NIF}`;

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { backoffBaseMs: 10_000, random: () => 0.5 } });

const queue = () =>
  env.db().prepare('SELECT reintentoEn, fallosSeguidos, ultimoError, alcanzable FROM submission_queues WHERE queueKey = ?').get(QUEUE) as {
    reintentoEn: string | null;
    fallosSeguidos: number;
    ultimoError: string | null;
    alcanzable: number | null;
  };

const issue = (serie: string, n: number) => issueTickets(env, serie, n);

const estados = (ids: string[]) =>
  ids.map((id) => env.db().prepare('SELECT estadoFactura, estadoEnvio FROM invoices WHERE id = ?').get(id) as { estadoFactura: string | null; estadoEnvio: string });
const eventCount = (ids: string[]) =>
  (env.db().prepare(`SELECT COUNT(*) AS n FROM events WHERE invoiceId IN (${ids.map(() => '?').join(',')})`).get(...ids) as { n: number }).n;

describe('Whole-request SOAP Client faults', () => {
  it('4102 (our bytes break the schema) rejects the records finally, never resent', async () => {
    const ids = await issue('S', 2);
    const worker = env.t.engine.context.submissions as unknown as { buildBatch(q: string, a: unknown): Promise<{ id: string }>; adapterFor(q: string): unknown };
    const batch = await worker.buildBatch(QUEUE, worker.adapterFor(QUEUE));
    // A defect in the committed bytes: an element the schema does not allow in the header.
    const peticion = (env.db().prepare('SELECT peticion FROM submission_requests WHERE idLote = ?').get(batch.id) as { peticion: string }).peticion;
    env.db().prepare('UPDATE submission_requests SET peticion = ? WHERE idLote = ?').run(
      peticion.replace('</sum1:ObligadoEmision>', '</sum1:ObligadoEmision><sum1:Sobrante>x</sum1:Sobrante>'),
      batch.id,
    );
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().at(-1)).toMatchObject({ outcome: 'fault', faultCode: '4102' });
    expect(estados(ids)).toEqual(ids.map(() => ({ estadoFactura: null, estadoEnvio: 'rechazada' })));
    const r = env.db().prepare('SELECT estadoEnvioFinal, codigoRespuesta FROM registros WHERE invoiceId = ?').get(ids[0]) as { estadoEnvioFinal: string; codigoRespuesta: string };
    expect(r).toEqual({ estadoEnvioFinal: 'rechazada', codigoRespuesta: '4102' });
    expect(eventCount(ids)).toBe(2);
    const sent = env.emu.aeat.ledger.submissions().length;
    clock.advance(600_000);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent);
    expect(env.jobsLeft()).toBe(0);
  });

  it('4104 (obligado not in the census) rejects nothing: the queue backs off with the fault text until the census knows the obligado', async () => {
    env.emu.aeat.census.addTaxpayer({ nif: NIF, nombre: 'COMERCIAL DEMO SL', estado: 'revocado' });
    const ids = await issue('C', 3);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().at(-1)).toMatchObject({ outcome: 'fault', faultCode: '4104' });
    expect(estados(ids)).toEqual(ids.map(() => ({ estadoFactura: null, estadoEnvio: 'pendiente_envio' })));
    expect(eventCount(ids)).toBe(0);
    expect(env.jobsLeft()).toBe(3);
    const q = queue();
    expect(q.ultimoError).toContain('Codigo[4104]');
    expect(q.fallosSeguidos).toBe(1);
    expect(q.alcanzable).toBe(1);
    expect(Date.parse(q.reintentoEn!)).toBe(clock.now().getTime() + 10_000);

    // Backing off: nothing goes before reintentoEn; afterwards it tries again, and backs off longer.
    const sent = env.emu.aeat.ledger.submissions().length;
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent);
    clock.advance(10_000);
    await env.t.engine.context.submissions.drainDue();
    expect(env.emu.aeat.ledger.submissions().length).toBe(sent + 1);
    expect(queue().fallosSeguidos).toBe(2);
    expect(Date.parse(queue().reintentoEn!)).toBe(clock.now().getTime() + 20_000);

    env.emu.aeat.census.addTaxpayer({ nif: NIF, nombre: 'COMERCIAL DEMO SL', estado: 'alta' });
    clock.advance(20_000);
    await env.t.engine.context.submissions.drainDue();
    expect(env.jobsLeft()).toBe(0);
    expect(estados(ids).map((e) => e.estadoFactura)).toEqual(['registrada', 'registrada', 'registrada']);
    expect(env.emu.aeat.ledger.countRecords(NIF)).toBe(3);
    expect(queue()).toMatchObject({ fallosSeguidos: 0, reintentoEn: null });
  });
});
