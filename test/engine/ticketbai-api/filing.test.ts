import { describe, expect, it } from 'vitest';
import type { OutgoingRecord } from '../../../engine/src/submission/authority';
import { TransportError } from '../../../engine/src/submission/transport';
import { TbaiRestAdapter } from '../../../engine/src/ticketbai/filing';

const adapter = new TbaiRestAdapter('gipuzkoa', { base: { araba: { test: '', live: '' }, bizkaia: { test: '', live: '' }, gipuzkoa: { test: '', live: '' } }, timeoutMs: 1000 });
const record: OutgoingRecord = {
  registroId: 'reg_1',
  tipo: 'alta',
  xml: '<T:TicketBai xmlns:T="urn:ticketbai:emision"/>',
  entorno: 'test',
  nifEmisor: 'A58818501',
  numeroFactura: 'T1',
  fechaExpedicion: '20-11-2026',
  creadoEn: '2026-11-20T10:00:00.000Z',
};

function response(estado: string, resultados: [string, string][], csv?: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><ns2:TicketBaiResponse xmlns:ns2="urn:ticketbai:emision"><Salida><FechaRecepcion>20-11-2026 10:00:00</FechaRecepcion><Estado>${estado}</Estado><Descripcion>x</Descripcion>${resultados
    .map(([c, d]) => `<ResultadosValidacion><Codigo>${c}</Codigo><Descripcion>${d}</Descripcion></ResultadosValidacion>`)
    .join('')}${csv ? `<CSV>${csv}</CSV>` : ''}</Salida></ns2:TicketBaiResponse>`;
}

describe('Gipuzkoa/Araba answers → verdicts', () => {
  it('01 with several reasons: the first on the record, the rest as motivosAdicionales (webhook only)', () => {
    const out = adapter.interpret({ status: 200, body: response('01', [['004', 'Datos de identificación'], ['010', 'Encadenamiento']]) }, [record]);
    expect(out.kind).toBe('verdicts');
    const verdict = out.kind === 'verdicts' ? out.verdicts.get('reg_1') : undefined;
    expect(verdict).toMatchObject({ kind: 'rechazado', codigo: '004', motivosAdicionales: [{ codigo: '010', descripcion: 'Encadenamiento' }] });
  });
  it('00 with warnings: accepted with errors, TicketBAI fields kept', () => {
    const out = adapter.interpret({ status: 200, body: response('00', [['009', 'Aviso']], 'TBAI-CSV-1') }, [record]);
    const verdict = out.kind === 'verdicts' ? out.verdicts.get('reg_1') : undefined;
    expect(verdict).toMatchObject({ kind: 'aceptado', conErrores: true, codigo: '009', extra: { tipoRespuestaTbai: '00', codigoRespuestaTbai: '009', idRegistroTbai: 'TBAI-CSV-1' } });
  });
  it('005 already registered on a resend: the original acceptance is reconciled', () => {
    const out = adapter.interpret({ status: 200, body: response('01', [['005', 'Factura ya registrada en sistema']]) }, [record]);
    expect(out.kind === 'verdicts' && out.verdicts.get('reg_1')).toMatchObject({ kind: 'aceptado' });
  });
  it('006 service unavailable, HTTP 500 and garbage are transient (retried, same bytes)', () => {
    expect(() => adapter.interpret({ status: 200, body: response('01', [['006', 'No disponible']]) }, [record])).toThrow(TransportError);
    expect(() => adapter.interpret({ status: 500, body: 'oops' }, [record])).toThrow(TransportError);
    expect(() => adapter.interpret({ status: 200, body: '<not-xml' }, [record])).toThrow(TransportError);
  });
});
