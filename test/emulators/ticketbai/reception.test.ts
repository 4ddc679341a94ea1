import { describe, expect, it } from 'vitest';
import { TBAI_PATHS, isValidTbaiIdentifier, tbaiIdentifier } from '../../../engine/emulators/ticketbai/index';
import { ARABA_POLICY, NIF, TbaiChain, altaXml, anulacionXml, signTicketBai, signatureValueOf } from './builders';
import type { Harness } from './helpers';
import { OFFICIAL_1, OFFICIAL_2, OFFICIAL_ANULA_2, codes, official, parseSalida, useHarness, validateTicketBaiResponse } from './helpers';

let h: Harness;
const G = TBAI_PATHS.gipuzkoa;
const A = TBAI_PATHS.araba;

useHarness((harness) => (h = harness));

describe('Gipuzkoa reception (alta)', () => {
  it('accepts the official signed examples: 00 Recibido, identifier, CSV, and the answer validates', async () => {
    const r1 = await h.post(G.alta, official(OFFICIAL_1));
    expect(r1.status).toBe(200);
    expect(r1.headers.get('content-type')).toMatch(/^application\/xml/);
    const s1 = parseSalida(r1.text);
    expect(s1).toMatchObject({ estado: '00', descripcion: 'Recibido', azalpena: 'Jasota', resultados: [] });
    expect(s1.csv).toMatch(/^TBAI[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(s1.identificadorTbai).toBe(tbaiIdentifier('99999974E', '29-02-2024', signatureValueOf(official(OFFICIAL_1))));
    expect(isValidTbaiIdentifier(s1.identificadorTbai ?? '')).toBe(true);
    expect(s1.fechaRecepcion).toBe('01-03-2025 11:00:00'); // Europe/Madrid
    expect(await validateTicketBaiResponse(r1.text)).toEqual({ valid: true, errors: [] });
    // Invoice 2 is chained to invoice 1 (first 100 characters of its SignatureValue): no 010.
    const s2 = parseSalida((await h.post(G.alta, official(OFFICIAL_2))).text);
    expect(s2).toMatchObject({ estado: '00', resultados: [] });
    expect(h.emu.ledger.chainIntact('gipuzkoa', '99999974E')).toBe(true);
    expect(h.emu.ledger.countInvoices('gipuzkoa', '99999974E')).toBe(2);
  });

  it('copies the shape of the real Gipuzkoa answers', async () => {
    const r = await h.post(G.alta, new TbaiChain().next().xml);
    expect(r.text).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8" standalone="yes"\?>\n<ns2:TicketBaiResponse xmlns:ns2="urn:ticketbai:emision">\n {4}<Salida>\n {8}<IdentificadorTBAI>TBAI-B12345674-010325-.{13}-\d{3}<\/IdentificadorTBAI>\n {8}<FechaRecepcion>01-03-2025 11:00:00<\/FechaRecepcion>\n {8}<Estado>00<\/Estado>\n {8}<Descripcion>Recibido<\/Descripcion>\n {8}<Azalpena>Jasota<\/Azalpena>\n {8}<CSV>TBAI[-0-9a-f]{36}<\/CSV>\n {4}<\/Salida>\n<\/ns2:TicketBaiResponse>\n$/,
    );
  });

  it('accepts invoices signed by the test signer and records them in the ledger', async () => {
    const c = new TbaiChain();
    const inv = c.next();
    const s = parseSalida((await h.post(G.alta, inv.xml)).text);
    expect(s).toMatchObject({ estado: '00', identificadorTbai: inv.idTbai, resultados: [] });
    const rec = h.emu.ledger.getInvoice(inv.idTbai);
    expect(rec).toMatchObject({ provincia: 'gipuzkoa', nif: NIF, serie: 'T', num: '1', estado: 'registrada', registered: true, csv: s.csv });
    expect(h.emu.ledger.presentations({ idTbai: inv.idTbai })).toEqual([
      expect.objectContaining({ signatureOk: true, chainOk: true, verdict: 'accepted', codes: [] }),
    ]);
  });

  it('XSD failure: 01 Rechazado with 002, no identifier, no CSV, nothing registered', async () => {
    const bad = signTicketBai(altaXml({ num: '9', rawInCabecera: '<Foo/>' }));
    const r = await h.post(G.alta, bad);
    const s = parseSalida(r.text);
    expect(s).toMatchObject({ estado: '01', descripcion: 'Rechazado', azalpena: 'Baztertua', identificadorTbai: null, csv: null });
    expect(codes(s)).toEqual(['002']);
    expect(s.resultados[0]?.descripcion).toMatch(/^Error: El mensaje no cumple el esquema XSD: .*Foo/);
    expect(await validateTicketBaiResponse(r.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.countInvoices('gipuzkoa')).toBe(0);
  });

  it('malformed XML and a document for another service are 002 too', async () => {
    expect(codes(parseSalida((await h.post(G.alta, '<T:TicketBai xmlns:T="urn:ticketbai:emision"><oops>')).text))).toEqual(['002']);
    const anula = signTicketBai(anulacionXml({ num: '1' }));
    const s = parseSalida((await h.post(G.alta, anula)).text);
    expect(codes(s)).toEqual(['002']);
    expect(s.resultados[0]?.descripcion).toContain('se esperaba {urn:ticketbai:emision}TicketBai');
  });

  it('bad signature: received with warning 008 (a warning per the service description), signature flagged in the ledger', async () => {
    const inv = new TbaiChain().next();
    const tampered = inv.xml.replace('<ImporteTotalFactura>3.63</ImporteTotalFactura>', '<ImporteTotalFactura>3.64</ImporteTotalFactura>');
    const r = await h.post(G.alta, tampered);
    const s = parseSalida(r.text);
    expect(s.estado).toBe('00');
    expect(codes(s)).toEqual(['008']);
    expect(s.resultados[0]?.descripcion).toMatch(/^Aviso: Error en verificación de firma: resumen incorrecto en la referencia ""/);
    expect(s.resultados[0]?.azalpena).toMatch(/^Abisua: Errorea sinadura egiaztatzean/);
    expect(await validateTicketBaiResponse(r.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.presentations({ provincia: 'gipuzkoa' })[0]).toMatchObject({ signatureOk: false });
    expect(h.emu.ledger.summary('gipuzkoa').signatureFailures).toBe(1);
  });

  it('a tampered official example fails verification (008)', async () => {
    const x = official(OFFICIAL_1).replace('<Version>1.0</Version>', '<Version>1.1</Version>');
    expect(codes(parseSalida((await h.post(G.alta, x)).text))).toEqual(['008']);
  });

  it('a signature with an unknown policy is a signature error (008)', async () => {
    const xml = signTicketBai(altaXml({ num: '1' }), { policy: { identifier: 'https://example.com/policy', digest: 'AAAA' } });
    const s = parseSalida((await h.post(G.alta, xml)).text);
    expect(codes(s)).toEqual(['008']);
    expect(s.resultados[0]?.descripcion).toContain('política de firma no reconocida');
    // The other treasuries' policies are recognised (reciprocity clause).
    const ok = signTicketBai(altaXml({ num: '2', device: 'OTRA' }), { policy: ARABA_POLICY });
    expect(codes(parseSalida((await h.post(G.alta, ok)).text))).toEqual([]);
  });

  it('duplicate: 005 "Factura ya registrada en sistema" in the shape of the real answer', async () => {
    const inv = new TbaiChain().next();
    await h.post(G.alta, inv.xml);
    h.clock.ms += 60_000;
    const r = await h.post(G.alta, inv.xml);
    const s = parseSalida(r.text);
    expect(s).toEqual({
      identificadorTbai: null,
      fechaRecepcion: '01-03-2025 11:01:00',
      estado: '01',
      descripcion: 'Rechazado',
      azalpena: 'Baztertua',
      resultados: [
        {
          codigo: '005',
          descripcion: 'Error: Factura ya registrada en sistema',
          azalpena: 'Akatsa: Faktura dagoeneko erregistratuta dago sisteman',
        },
      ],
      csv: null,
    });
    expect(h.emu.ledger.duplicatesReceived()).toEqual([
      { provincia: 'gipuzkoa', key: `gipuzkoa|${NIF}|T|1`, idTbai: inv.idTbai, times: 2, sameSignature: true },
    ]);
    expect(h.emu.ledger.getInvoice(inv.idTbai)).toMatchObject({ receivedCount: 2, estado: 'registrada' });
    // A duplicate does not move the chain.
    expect(h.emu.ledger.chainHead('gipuzkoa', NIF)).toMatchObject({ num: '1', length: 1 });
  });

  it('chain: a broken link is received with warning 010 and the chain is reported broken', async () => {
    const c = new TbaiChain();
    const i1 = c.next();
    c.next(); // invoice 2 is never sent
    const i3 = c.next(); // chained to 2
    expect(codes(parseSalida((await h.post(G.alta, i1.xml)).text))).toEqual([]);
    const s = parseSalida((await h.post(G.alta, i3.xml)).text);
    expect(s.estado).toBe('00');
    expect(codes(s)).toEqual(['010']);
    expect(s.resultados[0]).toEqual({
      codigo: '010',
      descripcion: 'Aviso: Posible error de encadenamiento',
      azalpena: 'Abisua: Posiblea da Kateamendu errorea gertatu izatea',
    });
    expect(h.emu.ledger.chainIntact('gipuzkoa', NIF)).toBe(false);
    expect(h.emu.ledger.chainBreaks('gipuzkoa', NIF)[0]?.chainProblem).toContain('NumFacturaAnterior 2 <> 1');
    // The chain continues from invoice 3.
    expect(codes(parseSalida((await h.post(G.alta, c.next().xml)).text))).toEqual([]);
  });

  it('chain: an invoice without EncadenamientoFacturaAnterior after the first one gets 010', async () => {
    const c = new TbaiChain();
    await h.post(G.alta, c.next().xml);
    expect(codes(parseSalida((await h.post(G.alta, c.next({ skipChain: true }).xml)).text))).toEqual(['010']);
  });

  it('chains are kept per device (NumSerieDispositivo)', async () => {
    const c = new TbaiChain();
    const a1 = c.next({ device: 'TPV-1' });
    const b1 = c.next({ device: 'TPV-2' });
    const a2 = c.next({ device: 'TPV-1' });
    for (const x of [a1, b1, a2]) expect(codes(parseSalida((await h.post(G.alta, x.xml)).text))).toEqual([]);
    expect(h.emu.ledger.chainHead('gipuzkoa', NIF, 'TPV-1')).toMatchObject({ num: a2.num, length: 2 });
    expect(h.emu.ledger.chainHead('gipuzkoa', NIF, 'TPV-2')).toMatchObject({ num: b1.num, length: 1 });
    expect(h.emu.ledger.chainIntact('gipuzkoa', NIF, 'TPV-1')).toBe(true);
  });

  it('004 when the identifier cannot be built (FechaExpedicionFactura is not a date)', async () => {
    const xml = new TbaiChain().next({ fecha: '31-02-2025' }).xml;
    const s = parseSalida((await h.post(G.alta, xml)).text);
    expect(s.estado).toBe('01');
    expect(s.resultados).toEqual([
      {
        codigo: '004',
        descripcion: 'Error: Falta dato necesario para ID TicketBAI: FechaExpedicionFactura',
        azalpena: 'Akatsa: TicketBAI IDrako beharrezko datua falta da: FechaExpedicionFactura',
      },
    ]);
  });

  it('Gipuzkoa accepts invoices without detail lines; Gipuzkoa never answers 009', async () => {
    const s = parseSalida((await h.post(G.alta, new TbaiChain().next({ lines: [], device: 'NEW-DEVICE' }).xml)).text);
    expect(s).toMatchObject({ estado: '00', resultados: [] });
  });
});

describe('Araba reception', () => {
  it('flags the first invoice of a new device with 009 and accepts it; not the second', async () => {
    const c = new TbaiChain({ policy: ARABA_POLICY });
    const first = parseSalida((await h.post(A.alta, c.next({ device: 'CAJA-01' }).xml)).text);
    expect(first.estado).toBe('00');
    expect(first.csv).not.toBeNull();
    expect(first.resultados).toEqual([
      {
        codigo: '009',
        descripcion: 'Aviso: Certificado firmante no válido para emisor factura: dispositivo CAJA-01 no vinculado al emisor',
        azalpena: 'Abisua: Sinatzailearen ziurtagiria ez da baliozkoa fakturaren jaulkitzailearentzat: dispositivo CAJA-01 no vinculado al emisor',
      },
    ]);
    const second = parseSalida((await h.post(A.alta, c.next({ device: 'CAJA-01' }).xml)).text);
    expect(second).toMatchObject({ estado: '00', resultados: [] });
    // Another device is new again.
    expect(codes(parseSalida((await h.post(A.alta, c.next({ device: 'CAJA-02' }).xml)).text))).toEqual(['009']);
    expect(h.emu.ledger.devices('araba', NIF).map((d) => d.device)).toEqual(['CAJA-01', 'CAJA-02']);
    expect(h.emu.ledger.presentations({ provincia: 'araba' }).map((p) => p.newDevice)).toEqual([true, false, true]);
  });

  it('the same device is new per province (the 009 is Araba’s; Gipuzkoa does not flag it)', async () => {
    const c = new TbaiChain();
    await h.post(A.alta, c.next({ device: 'CAJA-09' }).xml);
    expect(codes(parseSalida((await h.post(G.alta, c.next({ device: 'CAJA-09', skipChain: true }).xml)).text))).toEqual([]);
  });

  it('invoices without NumSerieDispositivo form their own "no device" chain, flagged once', async () => {
    const c = new TbaiChain();
    expect(codes(parseSalida((await h.post(A.alta, c.next().xml)).text))).toEqual(['009']);
    expect(codes(parseSalida((await h.post(A.alta, c.next().xml)).text))).toEqual([]);
  });

  it('requires detail lines (003)', async () => {
    const s = parseSalida((await h.post(A.alta, new TbaiChain().next({ lines: [] }).xml)).text);
    expect(s.estado).toBe('01');
    expect(codes(s)).toEqual(['003']);
    expect(h.emu.ledger.countInvoices('araba')).toBe(0);
  });

  it('accepts the paths with and without the trailing slash, and answers a valid TicketBaiResponse', async () => {
    const c = new TbaiChain();
    const r = await h.post(A.alta.replace(/\/$/, ''), c.next({ device: 'X' }).xml);
    expect(parseSalida(r.text).estado).toBe('00');
    expect(await validateTicketBaiResponse(r.text)).toEqual({ valid: true, errors: [] });
  });
});

describe('anulación', () => {
  it('cancels a registered invoice (00 with its identifier); a second cancellation is 011', async () => {
    const inv = new TbaiChain().next();
    await h.post(G.alta, inv.xml);
    const r = await h.post(G.anulacion, signTicketBai(anulacionXml({ num: inv.num })));
    const s = parseSalida(r.text);
    expect(s).toMatchObject({ estado: '00', identificadorTbai: inv.idTbai, resultados: [] });
    expect(s.csv).not.toBeNull();
    expect(await validateTicketBaiResponse(r.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.getInvoice(inv.idTbai)).toMatchObject({ estado: 'anulada', registered: true });
    const again = parseSalida((await h.post(G.anulacion, signTicketBai(anulacionXml({ num: inv.num })))).text);
    expect(again.resultados).toEqual([
      { codigo: '011', descripcion: 'Error: La factura ya ha sido anulada previamente', azalpena: 'Akatsa: Faktura aurretik baliogabetu da' },
    ]);
  });

  it('unknown invoice: 01 with 010 "Factura no existe en sistema"', async () => {
    const s = parseSalida((await h.post(A.anulacion, signTicketBai(anulacionXml({ num: '404' })))).text);
    expect(s.estado).toBe('01');
    expect(s.resultados[0]).toMatchObject({ codigo: '010', descripcion: 'Error: Factura no existe en sistema' });
  });

  it('the official cancellation of invoice 2 is accepted after invoices 1 and 2', async () => {
    await h.post(G.alta, official(OFFICIAL_1));
    await h.post(G.alta, official(OFFICIAL_2));
    const s = parseSalida((await h.post(G.anulacion, official(OFFICIAL_ANULA_2))).text);
    expect(s).toMatchObject({ estado: '00', resultados: [] });
    expect(h.emu.ledger.getInvoiceByKey('gipuzkoa', '99999974E', 'TB-2024-S', '2')?.estado).toBe('anulada');
  });

  it('a cancellation with a broken signature is received with the anulación warning 004', async () => {
    const inv = new TbaiChain().next();
    await h.post(G.alta, inv.xml);
    const anula = signTicketBai(anulacionXml({ num: inv.num })).replace('TILL ENGINE', 'TILL ENGINF');
    const s = parseSalida((await h.post(G.anulacion, anula)).text);
    expect(s.estado).toBe('00');
    expect(s.resultados[0]).toMatchObject({ codigo: '004', descripcion: expect.stringMatching(/^Aviso: Error en verificación de firma/) });
  });

  it('after a cancellation the same number can be registered again', async () => {
    const c = new TbaiChain();
    const inv = c.next();
    await h.post(G.alta, inv.xml);
    await h.post(G.anulacion, signTicketBai(anulacionXml({ num: inv.num })));
    const again = c.next({ num: inv.num });
    expect(parseSalida((await h.post(G.alta, again.xml)).text)).toMatchObject({ estado: '00', resultados: [] });
    expect(h.emu.ledger.getInvoiceByKey('gipuzkoa', NIF, 'T', inv.num)).toMatchObject({ estado: 'registrada', idTbai: again.idTbai });
  });
});

describe('HTTP edges', () => {
  it('405 for GET, 415 without an XML content type, 404 for unknown paths', async () => {
    expect((await fetch(h.base + G.alta)).status).toBe(405);
    const r = await h.post(G.alta, '<x/>', { headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect((await h.post('/tbai/gipuzkoa/sarrerak/otra', '<x/>')).status).toBe(404);
    expect(h.emu.ledger.submissions()).toEqual([]);
  });
});
