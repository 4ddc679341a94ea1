import { describe, expect, it } from 'vitest';
import { ChainBuilder, buildEnvelope } from './builders';
import type { Harness } from './helpers';
import { DEMO, T0, parseFault, parseRespuesta, validateRespuesta, useHarness } from './helpers';

// Bodies in plain ASCII take a copying path (latin1 = UTF-8 there); any other byte takes UTF-8
// decoding and encoding. Both must reach the parser and libxml2 as the same text.

let h: Harness;

useHarness((harness) => (h = harness), { reset: { census: true } });

describe('AEAT emulator: request bytes', () => {
  it('accepts a UTF-8 body with accented names and echoes them intact', async () => {
    const obligado = { nif: 'B00000034', nombre: 'CAFÉ ÑANDÚ SL' };
    expect((await h.control('POST', '/__control/census', obligado)).status).toBe(201);
    const chain = new ChainBuilder(obligado.nif, new Date(T0 - 3600_000));
    const r = await h.post(buildEnvelope({ obligado, records: [chain.alta({ nombreRazonEmisor: 'CAFÉ ÑANDÚ SL' })] }));
    expect(r.status).toBe(200);
    expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
    expect(r.text).toContain('<tik:NombreRazon>CAFÉ ÑANDÚ SL</tik:NombreRazon>');
    expect((await validateRespuesta(r.text)).valid).toBe(true);
  });

  it('reads character references in an ASCII body as the characters they stand for', async () => {
    const obligado = { nif: 'B00000034', nombre: 'CAFÉ SL' };
    expect((await h.control('POST', '/__control/census', obligado)).status).toBe(201);
    const chain = new ChainBuilder(obligado.nif, new Date(T0 - 3600_000));
    const body = buildEnvelope({ obligado: { nif: obligado.nif, nombre: 'CAF&#201; SL' }, records: [chain.alta()] }).replace(/&amp;#201;/g, '&#201;');
    const r = await h.post(body);
    expect(r.status).toBe(200);
    expect(r.text).toContain('<tik:NombreRazon>CAFÉ SL</tik:NombreRazon>');
  });

  it('still refuses a non-ASCII body that breaks the schema, naming the element', async () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const body = buildEnvelope({ obligado: { nif: DEMO.nif, nombre: 'COMERCIAL DEMO SL' }, records: [chain.alta({ nombreRazonEmisor: 'Ñ' })] }).replace(
      /<sum1:TipoFactura>F2<\/sum1:TipoFactura>/,
      '',
    );
    const r = await h.post(body);
    expect(r.status).toBe(500);
    expect(parseFault(r.text).faultstring).toMatch(/^Codigo\[4102\]\.El XML no cumple el esquema\. .*TipoFactura/);
  });
});
