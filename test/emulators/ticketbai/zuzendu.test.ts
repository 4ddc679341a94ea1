import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TBAI_PATHS } from '../../../engine/emulators/ticketbai/index';
import { NIF, TbaiChain, anulacionXml, signTicketBai, signatureValueOf, zuzenduAltaXml, zuzenduBajaXml } from './builders';
import type { Harness } from './helpers';
import { EXAMPLES, T0, codes, parseSalida, useHarness, validateTicketBaiResponse } from './helpers';

let h: Harness;

useHarness((harness) => (h = harness));

const rejectNext = async (prov: string, codigo: string): Promise<void> => {
  const r = await h.control('PUT', `/__control/tbai/${prov}/faults`, { rejectNext: { count: 1, codigo } });
  expect(r.status).toBe(200);
};

describe.each(['gipuzkoa', 'araba'] as const)('Zuzendu in %s', (prov) => {
  const P = TBAI_PATHS[prov];

  it('SUBSANAR registers an invoice rejected for content and keeps its idTbai', async () => {
    const c = new TbaiChain();
    const inv = c.next({ device: 'TPV' });
    await rejectNext(prov, '011');
    const rejected = parseSalida((await h.post(P.alta, inv.xml)).text);
    expect(rejected).toMatchObject({ estado: '01', identificadorTbai: null });
    expect(codes(rejected)).toEqual(['011']);
    expect(h.emu.ledger.getInvoice(inv.idTbai)).toMatchObject({ estado: 'rechazada', registered: false, codigo: '011' });
    expect(h.emu.ledger.countInvoices(prov)).toBe(0);

    const r = await h.post(P['zuzendu-alta'], zuzenduAltaXml(inv, 'SUBSANAR'));
    const s = parseSalida(r.text);
    expect(s.estado).toBe('00');
    expect(s.identificadorTbai).toBe(inv.idTbai);
    expect(s.csv).not.toBeNull();
    expect(await validateTicketBaiResponse(r.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.getInvoice(inv.idTbai)).toMatchObject({
      estado: 'registrada',
      registered: true,
      corrected: true,
      correction: 'SUBSANAR',
      correctedAt: new Date(T0).toISOString(),
      signatureValue: inv.signatureValue,
    });
    expect(h.emu.ledger.countInvoices(prov)).toBe(1);
    expect(h.emu.ledger.summary(prov).corrected).toBe(1);
    // The chain went on from the rejected invoice: the next one is chained to it without 010.
    const next = c.next({ device: 'TPV' });
    expect(codes(parseSalida((await h.post(P.alta, next.xml)).text))).not.toContain('010');
    // Sending the correction again: already registered.
    expect(codes(parseSalida((await h.post(P['zuzendu-alta'], zuzenduAltaXml(inv, 'SUBSANAR'))).text))).toEqual(['005']);
  });

  it('SUBSANAR with a SignatureValueFirmaFactura that is not the original one is received with 008', async () => {
    const c = new TbaiChain();
    const inv = c.next();
    await rejectNext(prov, '003');
    await h.post(P.alta, inv.xml);
    const other = c.next({ num: inv.num });
    const s = parseSalida((await h.post(P['zuzendu-alta'], zuzenduAltaXml({ ...inv, signatureValue: other.signatureValue }, 'SUBSANAR'))).text);
    expect(s.estado).toBe('00');
    expect(codes(s)).toEqual(['008']);
  });

  it('MODIFICAR changes a registered invoice; an unknown one is rejected (010 "Factura no existe en sistema")', async () => {
    const inv = new TbaiChain().next({ device: 'TPV' });
    await h.post(P.alta, inv.xml);
    const s = parseSalida((await h.post(P['zuzendu-alta'], zuzenduAltaXml(inv, 'MODIFICAR', { importeTotal: '4.00' }))).text);
    expect(s).toMatchObject({ estado: '00', identificadorTbai: inv.idTbai });
    expect(h.emu.ledger.getInvoice(inv.idTbai)).toMatchObject({ corrected: true, correction: 'MODIFICAR', importeTotal: '4.00' });
    const unknown = new TbaiChain({ serie: 'Z' }).next();
    const u = parseSalida((await h.post(P['zuzendu-alta'], zuzenduAltaXml(unknown, 'MODIFICAR'))).text);
    expect(u.estado).toBe('01');
    expect(u.resultados[0]).toMatchObject({ codigo: '010', descripcion: 'Error: Factura no existe en sistema' });
  });

  it('Zuzendu baja cancels a registered invoice after a rejected cancellation', async () => {
    const inv = new TbaiChain().next({ device: 'TPV' });
    await h.post(P.alta, inv.xml);
    const anula = signTicketBai(anulacionXml({ num: inv.num }));
    await rejectNext(prov, '012');
    expect(codes(parseSalida((await h.post(P.anulacion, anula)).text))).toEqual(['012']);
    expect(h.emu.ledger.getInvoice(inv.idTbai)?.estado).toBe('registrada');
    const s = parseSalida((await h.post(P['zuzendu-baja'], zuzenduBajaXml(inv, signatureValueOf(anula)))).text);
    expect(s).toMatchObject({ estado: '00', identificadorTbai: inv.idTbai });
    expect(h.emu.ledger.getInvoice(inv.idTbai)).toMatchObject({ estado: 'anulada', anulacionCorrected: true });
    expect(codes(parseSalida((await h.post(P['zuzendu-baja'], zuzenduBajaXml(inv, signatureValueOf(anula)))).text))).toEqual(['011']);
    const none = parseSalida((await h.post(P['zuzendu-baja'], zuzenduBajaXml({ ...inv, num: '999' }, signatureValueOf(anula)))).text);
    expect(codes(none)).toEqual(['010']);
  });
});

describe('Zuzendu schemas', () => {
  it('the official (unsigned) Zuzendu examples pass the XSD (imports preloaded under their capitalised names)', async () => {
    const ex = (f: string): string => readFileSync(path.join(EXAMPLES, 'zuzendu-official-1_2_2', f), 'utf8');
    const s = parseSalida((await h.post(TBAI_PATHS.gipuzkoa['zuzendu-alta'], ex('ZuzenduSubsanar_Adibidea_Ejemplo.xml'))).text);
    expect(s.estado).toBe('00');
    expect(s.identificadorTbai).toMatch(/^TBAI-99999972C-290224-BaJWauj62ngGI-\d{3}$/);
    const baja = parseSalida((await h.post(TBAI_PATHS.gipuzkoa['zuzendu-baja'], ex('ZuzenduBaja_Adibidea_Ejemplo.xml'))).text);
    expect(codes(baja)).toEqual(['010']); // valid, but the invoice is unknown
  });

  it('a Zuzendu document that breaks the schema is 002', async () => {
    const inv = new TbaiChain().next();
    const bad = zuzenduAltaXml(inv, 'SUBSANAR').replace('<Accion>SUBSANAR</Accion>', '<Accion>BORRAR</Accion>');
    expect(codes(parseSalida((await h.post(TBAI_PATHS.gipuzkoa['zuzendu-alta'], bad)).text))).toEqual(['002']);
    expect(h.emu.ledger.getInvoiceByKey('gipuzkoa', NIF, inv.serie, inv.num)).toBeNull();
  });
});
