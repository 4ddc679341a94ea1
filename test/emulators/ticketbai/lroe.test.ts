import { beforeEach, describe, expect, it } from 'vitest';
import { BIZKAIA_POLICY, NIF, TbaiChain, altaXml, anulacionXml, gz, lroeHeaders, lroeXml, signTicketBai } from './builders';
import type { Harness } from './helpers';
import { parseLroe, useHarness, validateLroeResponse } from './helpers';

let h: Harness;
let chain: TbaiChain;

useHarness((harness) => (h = harness));
beforeEach(() => {
  chain = new TbaiChain({ policy: BIZKAIA_POLICY });
});

const headerOf = (r: { headers: Headers }, n: string): string | null => r.headers.get(`eus-bizkaia-n3-${n}`);

describe('Bizkaia LROE model 240 (legal persons)', () => {
  it('accepts a gzipped alta batch: Correcto headers and a gzipped Respuesta that validates', async () => {
    const invs = [chain.next(), chain.next(), chain.next()];
    const r = await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: invs.map((i) => i.xml) }));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect(r.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(headerOf(r, 'tipo-respuesta')).toBe('Correcto');
    expect(headerOf(r, 'codigo-respuesta')).toBe('');
    expect(headerOf(r, 'identificativo')).toMatch(/^\d{7}$/);
    const p = parseLroe(r.text);
    expect(p.root).toBe('LROEPJ240FacturasEmitidasConSGAltaRespuesta');
    expect(p.presentacion).toBe(true);
    expect(p.registros).toEqual(
      invs.map((i) => ({ id: { serie: 'T', num: i.num, fecha: '01-03-2025' }, estado: 'Correcto', codigo: null, es: null })),
    );
    expect(await validateLroeResponse(r.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.countInvoices('bizkaia', NIF)).toBe(3);
    expect(h.emu.ledger.getInvoice(invs[0]!.idTbai)).toMatchObject({ provincia: 'bizkaia', estado: 'registrada' });
    expect(h.emu.ledger.chainIntact('bizkaia', NIF)).toBe(true);
    expect(h.emu.ledger.submissions('bizkaia')[0]).toMatchObject({ service: 'lroe', recordCount: 3, estado: 'Correcto', nif: NIF });
  });

  it('per-record results: duplicate B4_2000003, bad signature and broken chain AceptadoConErrores → ParcialmenteCorrecto', async () => {
    const i1 = chain.next();
    await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: [i1.xml] }));
    const i2 = chain.next();
    chain.next(); // never sent
    const i4 = chain.next(); // chained to the unsent one
    const i5 = chain.next();
    const tampered = i5.xml.replace('Venta en caja', 'Venta en cajo');
    const r = await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: [i1.xml, i2.xml, i4.xml, tampered] }));
    expect(headerOf(r, 'tipo-respuesta')).toBe('ParcialmenteCorrecto');
    expect(headerOf(r, 'mensaje-respuesta')).toBe('ParcialmenteCorrecto');
    const p = parseLroe(r.text);
    expect(p.registros.map((x) => [x.id?.num, x.estado, x.codigo])).toEqual([
      ['1', 'Incorrecto', 'B4_2000003'],
      ['2', 'Correcto', null],
      ['4', 'AceptadoConErrores', 'B4_2000060'],
      ['5', 'AceptadoConErrores', 'B4_2000070'],
    ]);
    expect(p.registros[0]?.es).toBe('Registro duplicado.');
    expect(await validateLroeResponse(r.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.duplicatesReceived('bizkaia')).toHaveLength(1);
    expect(h.emu.ledger.chainIntact('bizkaia', NIF)).toBe(false);
  });

  it('all records incorrect: Incorrecto with B4_1000002, body still answered without DatosPresentacion', async () => {
    const i1 = chain.next();
    await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: [i1.xml] }));
    const r = await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: [i1.xml] }));
    expect(headerOf(r, 'tipo-respuesta')).toBe('Incorrecto');
    expect(headerOf(r, 'codigo-respuesta')).toBe('B4_1000002');
    expect(headerOf(r, 'mensaje-respuesta')).toBe('Todos los registros incluidos en la petición son incorrectos.');
    const p = parseLroe(r.text);
    expect(p.presentacion).toBe(false);
    expect(p.registros[0]).toMatchObject({ estado: 'Incorrecto', codigo: 'B4_2000003' });
    expect(await validateLroeResponse(r.text)).toEqual({ valid: true, errors: [] });
  });

  it('cancels through the 240 Anulación petition; an unknown invoice is Incorrecto', async () => {
    const i1 = chain.next();
    await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: [i1.xml] }));
    const r = await h.lroe(
      '240',
      lroeXml({ model: '240', op: 'anulacion', files: [signTicketBai(anulacionXml({ num: i1.num })), signTicketBai(anulacionXml({ num: '77' }))] }),
    );
    expect(headerOf(r, 'tipo-respuesta')).toBe('ParcialmenteCorrecto');
    const p = parseLroe(r.text);
    expect(p.root).toBe('LROEPJ240FacturasEmitidasConSGAnulacionRespuesta');
    expect(p.registros.map((x) => [x.estado, x.codigo])).toEqual([
      ['Correcto', null],
      ['Incorrecto', 'B4_2000002'],
    ]);
    expect(await validateLroeResponse(r.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.getInvoice(i1.idTbai)?.estado).toBe('anulada');
  });

  it('record-level checks: embedded file breaking the TicketBAI XSD (B4_2000001), issuer other than the obligado (B4_2000000)', async () => {
    const broken = signTicketBai(altaXml({ num: '50', rawInCabecera: '<Foo/>' }));
    const other = new TbaiChain({ nif: 'A23456783', policy: BIZKAIA_POLICY }).next();
    const r = await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: [broken, other.xml, chain.next().xml] }));
    const p = parseLroe(r.text);
    expect(p.registros.map((x) => [x.estado, x.codigo])).toEqual([
      ['Incorrecto', 'B4_2000001'],
      ['Incorrecto', 'B4_2000000'],
      ['Correcto', null],
    ]);
    expect(p.registros[0]?.id).toEqual({ serie: 'T', num: '50', fecha: '01-03-2025' });
    expect(await validateLroeResponse(r.text)).toEqual({ valid: true, errors: [] });
  });

  it('Bizkaia does not flag new devices (no 009 equivalent)', async () => {
    const r = await h.lroe('240', lroeXml({ model: '240', op: 'alta', files: [chain.next({ device: 'NUEVA' }).xml] }));
    expect(parseLroe(r.text).registros[0]).toMatchObject({ estado: 'Correcto', codigo: null });
  });
});

describe('Bizkaia LROE model 140 (natural persons)', () => {
  it('accepts an alta of Ingresos con factura (TicketBai + Renta) and then its cancellation', async () => {
    const i1 = chain.next({ nif: '12345678Z' });
    const r = await h.lroe('140', lroeXml({ model: '140', op: 'alta', nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA', files: [i1.xml] }), {
      headers: lroeHeaders('140', '2025', '12345678Z'),
    });
    expect(headerOf(r, 'tipo-respuesta')).toBe('Correcto');
    const p = parseLroe(r.text);
    expect(p.root).toBe('LROEPF140IngresosConFacturaConSGAltaRespuesta');
    expect(p.registros[0]).toMatchObject({ estado: 'Correcto' });
    expect(await validateLroeResponse(r.text)).toEqual({ valid: true, errors: [] });
    const a = await h.lroe(
      '140',
      lroeXml({ model: '140', op: 'anulacion', nif: '12345678Z', nombre: 'GARCIA LOPEZ MARIA', files: [signTicketBai(anulacionXml({ nif: '12345678Z', num: i1.num }))] }),
      { headers: lroeHeaders('140', '2025', '12345678Z') },
    );
    expect(headerOf(a, 'tipo-respuesta')).toBe('Correcto');
    expect(parseLroe(a.text).root).toBe('LROEPF140IngresosConFacturaConSGAnulacionRespuesta');
    expect(await validateLroeResponse(a.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.ledger.getInvoiceByKey('bizkaia', '12345678Z', 'T', i1.num)?.estado).toBe('anulada');
  });
});

describe('LROE request-level errors', () => {
  const xml = (): string => lroeXml({ model: '240', op: 'alta', files: [chain.next().xml] });

  it('missing or wrong N3 headers: Incorrecto N3_0000011 with a message and no body', async () => {
    const hdr = lroeHeaders('240');
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ...hdr, 'eus-bizkaia-n3-version': '' }, /eus-bizkaia-n3-version/],
      [{ ...hdr, 'eus-bizkaia-n3-content-type': 'text/plain' }, /content-type/],
      [{ ...hdr, 'eus-bizkaia-n3-data': '{nope' }, /no es JSON/],
      [{ ...hdr, 'eus-bizkaia-n3-data': JSON.stringify({ con: 'LROE', apa: '2', inte: { nif: NIF, nrs: 'X' }, drs: { mode: '240', ejer: '2025' } }) }, /apa/],
      [lroeHeaders('140'), /drs.mode 140/],
      [lroeHeaders('240', '2024'), /drs.ejer 2024/],
    ];
    for (const [headers, msg] of cases) {
      const r = await h.lroe('240', xml(), { headers });
      expect(headerOf(r, 'tipo-respuesta')).toBe('Incorrecto');
      expect(headerOf(r, 'codigo-respuesta')).toBe('N3_0000011');
      expect(headerOf(r, 'mensaje-respuesta')).toMatch(msg);
      expect(r.text).toBe('');
    }
    expect(h.emu.ledger.countInvoices('bizkaia')).toBe(0);
  });

  it('a body that is not gzip is refused', async () => {
    const r = await h.lroe('240', '', { raw: Buffer.from(xml(), 'utf8') });
    expect(headerOf(r, 'codigo-respuesta')).toBe('N3_0000011');
    expect(headerOf(r, 'mensaje-respuesta')).toMatch(/gzip/);
  });

  it('a petition that breaks the LROE XSD is B4_1000001; a wrong Operacion is refused', async () => {
    const bad = xml().replace('<Version>1.0</Version>', '<Version>9.9</Version>');
    const r = await h.lroe('240', bad);
    expect(headerOf(r, 'codigo-respuesta')).toBe('B4_1000001');
    expect(headerOf(r, 'mensaje-respuesta')).toMatch(/esquema XSD/);
    const op = lroeXml({ model: '240', op: 'alta', files: [chain.next().xml], operacion: 'AN0' });
    expect(headerOf(await h.lroe('240', op), 'mensaje-respuesta')).toMatch(/Operacion AN0/);
  });

  it('405 for GET, 404 for other paths', async () => {
    expect((await fetch(h.base + '/tbai/bizkaia/N3B4000M/aurkezpena')).status).toBe(405);
    expect((await fetch(h.base + '/tbai/bizkaia/N3B4001M/kontsulta', { method: 'POST', body: gz('<x/>') })).status).toBe(404);
  });
});
