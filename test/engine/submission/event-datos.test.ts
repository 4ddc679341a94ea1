import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const NIF = 'B12345674';

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, submission: { random: () => 0.5 } });

interface EventRow {
  evento: string;
  datos: string;
}

describe('Events written by an answered submission', () => {
  it('an alta and the cancellation of the same invoice answered together: one event each, datos keys in the spec order, the invoice ends anulada', async () => {
    const crear = await env.t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie: 'EV', numero: '1', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    expect(crear.statusCode).toBe(200);
    const idFactura = crear.json().idFactura as string;
    const anular = await env.t.billing('POST', '/v1/verifactu/anular', {
      body: { version: '1.0', facturaAnulada: { nifEmisor: NIF, serie: 'EV', numero: '1', fechaExpedicion: '20-11-2026' } },
    });
    expect(anular.statusCode).toBe(200);
    // Both records wait in the queue: they leave in one submission and are answered together.
    expect(env.jobsLeft()).toBe(2);
    await env.fileEverything();
    expect(env.emu.aeat.ledger.submissions().filter((s) => s.outcome === 'processed')).toHaveLength(1);

    const events = env.t.engine.context.db.statement('SELECT evento, datos FROM events WHERE invoiceId = ? ORDER BY rowid').all(idFactura) as EventRow[];
    expect(events.map((e) => e.evento)).toEqual(['factura.registrada', 'factura.anulada']);
    const [alta, anulacion] = events.map((e) => JSON.parse(e.datos) as Record<string, unknown>);
    const head = ['sistemaFiscal', 'nifEmisor', 'idFactura', 'numeroFactura', 'tipoFactura', 'importeTotal', 'cuotaTotal', 'estadoFactura', 'fechaRegistro', 'csvAeat', 'hashVerifactu'];
    expect(Object.keys(alta!)).toEqual(head);
    expect(Object.keys(anulacion!)).toEqual([...head, 'tipoRegistro']);
    expect(alta).toMatchObject({ idFactura, numeroFactura: 'EV1', estadoFactura: 'registrada', importeTotal: '12.10', cuotaTotal: '2.10' });
    // The cancellation's event: its record was registered (estadoFactura is the verdict on the record).
    expect(anulacion).toMatchObject({ idFactura, estadoFactura: 'registrada', tipoRegistro: 'anulacion', csvAeat: alta!.csvAeat });
    expect(anulacion!.hashVerifactu).not.toBe(alta!.hashVerifactu);
    const invoice = env.t.engine.context.db.statement('SELECT estadoFactura, csvAeat FROM invoices WHERE id = ?').get(idFactura);
    expect(invoice).toEqual({ estadoFactura: 'anulada', csvAeat: alta!.csvAeat });
  });
});
