import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { startTestEmulators } from '../../support/emulators';

type Emulators = Awaited<ReturnType<typeof startTestEmulators>>;
let t: TestEngine;
let emu: Emulators;
const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';
const QUEUE = `test|aeat|${NIF}`;

beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: 0 });
  t = await makeTestEngine({
    clock,
    submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl }, timeoutMs: 3000 }, backoffBaseMs: 10_000, random: () => 0.5 },
  });
});
afterAll(async () => {
  await t.close();
  await emu.close();
});

const db = () => t.engine.context.db.sqlite;
const jobsLeft = () => (db().prepare('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number }).n;
const queue = () =>
  db().prepare('SELECT reintentoEn, fallosSeguidos, ultimoError, alcanzable FROM submission_queues WHERE queueKey = ?').get(QUEUE) as {
    reintentoEn: string | null;
    fallosSeguidos: number;
    ultimoError: string | null;
    alcanzable: number | null;
  };

async function issue(serie: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie, numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    expect(res.statusCode).toBe(200);
    ids.push(res.json().idFactura as string);
  }
  return ids;
}

const estados = (ids: string[]) =>
  ids.map((id) => db().prepare('SELECT estadoFactura, estadoEnvio FROM invoices WHERE id = ?').get(id) as { estadoFactura: string | null; estadoEnvio: string });
const eventCount = (ids: string[]) =>
  (db().prepare(`SELECT COUNT(*) AS n FROM events WHERE invoiceId IN (${ids.map(() => '?').join(',')})`).get(...ids) as { n: number }).n;

describe('Whole-request SOAP Client faults', () => {
  it('4102 (our bytes break the schema) rejects the records finally, never resent', async () => {
    const ids = await issue('S', 2);
    const worker = t.engine.context.submissions as unknown as { buildBatch(q: string, a: unknown): { id: string }; adapterFor(q: string): unknown };
    const batch = worker.buildBatch(QUEUE, worker.adapterFor(QUEUE));
    // A defect in the committed bytes: an element the schema does not allow in the header.
    const peticion = (db().prepare('SELECT peticion FROM submission_batches WHERE id = ?').get(batch.id) as { peticion: string }).peticion;
    db().prepare('UPDATE submission_batches SET peticion = ? WHERE id = ?').run(
      peticion.replace('</sum1:ObligadoEmision>', '</sum1:ObligadoEmision><sum1:Sobrante>x</sum1:Sobrante>'),
      batch.id,
    );
    await t.engine.context.submissions.drainDue();
    expect(emu.aeat.ledger.submissions().at(-1)).toMatchObject({ outcome: 'fault', faultCode: '4102' });
    expect(estados(ids)).toEqual(ids.map(() => ({ estadoFactura: null, estadoEnvio: 'rechazada' })));
    const r = db().prepare('SELECT estadoEnvioFinal, codigoRespuesta FROM registros WHERE invoiceId = ?').get(ids[0]) as { estadoEnvioFinal: string; codigoRespuesta: string };
    expect(r).toEqual({ estadoEnvioFinal: 'rechazada', codigoRespuesta: '4102' });
    expect(eventCount(ids)).toBe(2);
    const sent = emu.aeat.ledger.submissions().length;
    clock.advance(600_000);
    await t.engine.context.submissions.drainDue();
    expect(emu.aeat.ledger.submissions().length).toBe(sent);
    expect(jobsLeft()).toBe(0);
  });

  it('4104 (obligado not in the census) rejects nothing: the queue backs off with the fault text until the census knows the obligado', async () => {
    emu.aeat.census.addTaxpayer({ nif: NIF, nombre: 'COMERCIAL DEMO SL', estado: 'revocado' });
    const ids = await issue('C', 3);
    await t.engine.context.submissions.drainDue();
    expect(emu.aeat.ledger.submissions().at(-1)).toMatchObject({ outcome: 'fault', faultCode: '4104' });
    expect(estados(ids)).toEqual(ids.map(() => ({ estadoFactura: null, estadoEnvio: 'pendiente_envio' })));
    expect(eventCount(ids)).toBe(0);
    expect(jobsLeft()).toBe(3);
    const q = queue();
    expect(q.ultimoError).toContain('Codigo[4104]');
    expect(q.fallosSeguidos).toBe(1);
    expect(q.alcanzable).toBe(1);
    expect(Date.parse(q.reintentoEn!)).toBe(clock.now().getTime() + 10_000);

    // Backing off: nothing goes before reintentoEn; afterwards it tries again, and backs off longer.
    const sent = emu.aeat.ledger.submissions().length;
    await t.engine.context.submissions.drainDue();
    expect(emu.aeat.ledger.submissions().length).toBe(sent);
    clock.advance(10_000);
    await t.engine.context.submissions.drainDue();
    expect(emu.aeat.ledger.submissions().length).toBe(sent + 1);
    expect(queue().fallosSeguidos).toBe(2);
    expect(Date.parse(queue().reintentoEn!)).toBe(clock.now().getTime() + 20_000);

    emu.aeat.census.addTaxpayer({ nif: NIF, nombre: 'COMERCIAL DEMO SL', estado: 'alta' });
    clock.advance(20_000);
    await t.engine.context.submissions.drainDue();
    expect(jobsLeft()).toBe(0);
    expect(estados(ids).map((e) => e.estadoFactura)).toEqual(['registrada', 'registrada', 'registrada']);
    expect(emu.aeat.ledger.countRecords(NIF)).toBe(3);
    expect(queue()).toMatchObject({ fallosSeguidos: 0, reintentoEn: null });
  });
});
