// The AEAT codes added after "Validaciones y errores" v1.1.2 (issue 31): 1287 in the invoice's
// identity (reglas-caracteres.ts), 1289, 1293 and the aviso 2009 (reglas-recientes.ts), through
// validarAlta and, for 1287, through the API: 400 naming the field and the character, nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifactuCrearBody } from '../../../src-shared/api/verifactu';
import { validarAlta } from '../../../engine/src/regimes/verifactu/reglas';
import { CARACTERES_NO_VALIDOS } from '../../../engine/src/regimes/verifactu/reglas-caracteres';
import { HOY, aDestinatarioIdOtro, aDetalle, aFacturaF1, aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';

const ctx = { hoy: HOY };

describe('1287: < > " \' = in the invoice series or number', () => {
  for (const campo of ['serie', 'numero'] as const) {
    for (const c of CARACTERES_NO_VALIDOS) {
      it(`refuses ${c} in cabecera.${campo}, naming the field and the character`, () => {
        const f = aFacturaF2({ cabecera: { ...aFacturaF2().cabecera, [campo]: `T${c}1` } });
        // The API schema lets it through (printable ASCII): the rule must catch it.
        expect(verifactuCrearBody.safeParse(f).success).toBe(true);
        const { errors } = validarAlta(f, ctx);
        expect(errors[0]).toEqual({
          campo: `cabecera.${campo}`,
          codigo: '1287',
          message: `${campo} contains the character ${c}, which the AEAT refuses in an invoice number (< > " ' =) (AEAT 1287)`,
        });
      });
    }
  }

  it('keeps them in free text, which the AEAT no longer checks (mdiago/VeriFactu #208)', () => {
    const f = aFacturaF1({ cabecera: { ...aFacturaF1().cabecera, descripcion: 'Tornillos 3/8" <acero> = \'A\'' } });
    expect(f.destinatario?.nombre).toContain('<');
    expect(validarAlta(f, ctx)).toEqual({ errors: [], avisos: [] });
  });

  it('reports it once beside the table\'s own errors of other fields', () => {
    const f = aFacturaF2({ cabecera: { ...aFacturaF2().cabecera, numero: "E8=A'" }, destinatario: { nif: '12345678Z', nombre: 'X' } });
    const codes = validarAlta(f, ctx).errors.map((e) => [e.campo, e.codigo]);
    expect(codes).toContainEqual(['cabecera.numero', '1287']);
    expect(codes).toContainEqual(['destinatario', '1190']);
  });
});

describe('1289, 1293 and 2009', () => {
  const exenta = (e: 'E1' | 'E5', extra = {}) => aDetalle({ operacionExenta: e, calificacionOperacion: undefined, tipoImpositivo: undefined, cuotaRepercutida: undefined, ...extra });
  const totales = { cuotaTotal: '0.00', importeTotal: '100.00' };

  it('1289: E5 to a recipient identified by a Spanish NIF; by idOtro it passes', () => {
    const porNif = aFacturaF1({ detalleDesglose: [exenta('E5')], totales });
    expect(verifactuCrearBody.safeParse(porNif).success).toBe(true);
    expect(validarAlta(porNif, ctx).errors).toEqual([expect.objectContaining({ campo: 'detalleDesglose[0].operacionExenta', codigo: '1289' })]);
    expect(validarAlta(aFacturaF1({ destinatario: aDestinatarioIdOtro(), detalleDesglose: [exenta('E5')], totales }), ctx).errors).toEqual([]);
    expect(validarAlta(aFacturaF1({ detalleDesglose: [exenta('E1')], totales }), ctx).errors).toEqual([]);
  });

  it('1293: ClaveRegimen 20 needs N2', () => {
    const n1 = aFacturaF1({ detalleDesglose: [aDetalle({ claveRegimen: '20', calificacionOperacion: 'N1', tipoImpositivo: undefined, cuotaRepercutida: undefined })], totales });
    expect(verifactuCrearBody.safeParse(n1).success).toBe(true);
    expect(validarAlta(n1, ctx).errors).toContainEqual(expect.objectContaining({ campo: 'detalleDesglose[0].calificacionOperacion', codigo: '1293' }));
    const n2 = aFacturaF1({ detalleDesglose: [aDetalle({ claveRegimen: '20', calificacionOperacion: 'N2', tipoImpositivo: undefined, cuotaRepercutida: undefined })], totales });
    expect(validarAlta(n2, ctx).errors.filter((e) => e.codigo === '1293')).toEqual([]);
  });

  it('2009: IPSI without ClaveRegimen is an aviso (the AEAT accepts it with errors); with one, nothing', () => {
    const sin = aFacturaF1({ detalleDesglose: [aDetalle({ impuesto: '02', claveRegimen: undefined, tipoImpositivo: '10', cuotaRepercutida: '10.00' })], cuotaTotal: '10.00', importeTotal: '110.00' });
    const r = validarAlta(sin, ctx);
    expect(r.errors).toEqual([]);
    expect(r.avisos).toEqual([expect.stringMatching(/^detalleDesglose\[0\]\.claveRegimen: AEAT 2009: /)]);
    const con = aFacturaF1({ detalleDesglose: [aDetalle({ impuesto: '02', claveRegimen: '01', tipoImpositivo: '10', cuotaRepercutida: '10.00' })], cuotaTotal: '10.00', importeTotal: '110.00' });
    expect(validarAlta(con, ctx)).toEqual({ errors: [], avisos: [] });
  });
});

describe('through the API', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await makeTestEngine();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("POST /v1/verifactu/crear with invoice number E8=A' → 400 naming cabecera.numero and =, nothing stored", async () => {
    const body = aFacturaF2({ cabecera: { serie: 'T', numero: "E8=A'", fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } });
    const res = await t.billing('POST', '/v1/verifactu/crear', { body });
    expect(res.statusCode).toBe(400);
    const json = res.json() as { code: string; campo: string; message: string };
    expect(json).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'cabecera.numero' });
    expect(json.message).toContain('contains the character =,');
    expect(json.message).toContain('(AEAT 1287)');
    const lista = await t.billing('GET', `/v1/facturas?nifEmisor=${t.nifEmisor}`);
    expect(lista.statusCode).toBe(200);
    expect(JSON.stringify(lista.json())).not.toContain('E8=A');
    // The same ticket with a clean number is issued.
    const ok = await t.billing('POST', '/v1/verifactu/crear', { body: { ...body, cabecera: { ...body.cabecera, numero: 'E8-A' } } });
    expect(ok.statusCode).toBe(200);
    expect(JSON.stringify((await t.billing('GET', `/v1/facturas?nifEmisor=${t.nifEmisor}`)).json())).toContain('E8-A');
  });
});
