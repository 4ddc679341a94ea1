import { describe, expect, it } from 'vitest';
import {
  verifactuAnularBody,
  verifactuAnularResponse,
  verifactuCrearBody,
  verifactuEmisionResponse,
  verifactuSubsanarBody,
} from '../../../src-shared/api/verifactu';
import {
  aDestinatarioIdOtro,
  aDetalle,
  aFacturaF1,
  aFacturaF2,
  aFacturaF3,
  aFacturaR,
  anAnularBody,
  aSubsanacion,
} from '../../fixtures/verifactu';

type Issue = { path: PropertyKey[]; message: string; code: string };
function issues(r: { success: boolean; error?: { issues: Issue[] } }): Array<[string, string]> {
  return (r.error?.issues ?? []).map((i) => [i.path.map(String).join('.'), i.message]);
}

describe('POST /v1/verifactu/crear body', () => {
  it.each([
    ['F1', aFacturaF1()],
    ['F2', aFacturaF2()],
    ['F3', aFacturaF3()],
    ['R1 S', aFacturaR('R1', 'S')],
    ['R5 I', aFacturaR('R5', 'I')],
    ['F1 to IDOtro', aFacturaF1({ destinatario: aDestinatarioIdOtro() })],
  ])('accepts a valid %s invoice', (_, body) => {
    expect(issues(verifactuCrearBody.safeParse(body))).toEqual([]);
  });

  it('accepts amounts as "21", "21.0" and "21.00"', () => {
    const body = aFacturaF1({
      detalleDesglose: [aDetalle({ baseImponible: '100', tipoImpositivo: '21', cuotaRepercutida: '21.0' })],
      totales: { cuotaTotal: '21.0', importeTotal: '121' },
    });
    expect(verifactuCrearBody.safeParse(body).success).toBe(true);
  });

  it('destinatario.nif and especial.tercero.nif: the full tax-ID check, not only the shape', () => {
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ destinatario: { nif: '12345678Z', nombre: 'Ana' } })))).toEqual([]);
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ destinatario: { nif: '12345678A', nombre: 'Ana' } })))).toEqual([
      ['destinatario.nif', 'invalid NIF: DNI check letter should be Z, not A (AEAT 1123)'],
    ]);
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ destinatario: { nif: 'X1234567A', nombre: 'Ana' } }))).map(([p]) => p)).toEqual(['destinatario.nif']);
    const tercero = (nif: string) => aFacturaF1({ especial: { emitidaPor: 'T', tercero: { nif, nombre: 'Gestoría' } } });
    expect(issues(verifactuCrearBody.safeParse(tercero('B22222228')))).toEqual([]);
    expect(issues(verifactuCrearBody.safeParse(tercero('B22222229')))).toEqual([
      ['especial.tercero.nif', 'invalid NIF: CIF control must be the digit 8 (entity letter B), not 9 (AEAT 1123)'],
    ]);
  });

  it('emisor.nif stays a shape check: an issuer must be registered (checked NIF) anyway, so a bad one is 403 there', () => {
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ emisor: { nif: 'B12345675', nombre: 'X' } })))).toEqual([]);
  });

  it('facturasRectificadas / facturasSustituidas: serie + numero joined at most 60 (NumSerieFactura), naming numero', () => {
    const ref = (serie: string, numero: string) => ({ serie, numero, fechaExpedicion: '01-03-2026' });
    const ok60 = ref('S'.repeat(30), 'N'.repeat(30));
    const over = ref('S'.repeat(30), 'N'.repeat(31));
    expect(issues(verifactuCrearBody.safeParse(aFacturaR('R1', 'I', { facturasRectificadas: [ok60] })))).toEqual([]);
    expect(issues(verifactuCrearBody.safeParse(aFacturaR('R1', 'I', { facturasRectificadas: [ok60, over] }))).map(([p]) => p)).toEqual([
      'facturasRectificadas.1.numero',
    ]);
    expect(issues(verifactuCrearBody.safeParse(aFacturaF3({ facturasSustituidas: [over] }))).map(([p]) => p)).toEqual(['facturasSustituidas.0.numero']);
    // Without serie, numero alone may take the 60.
    expect(issues(verifactuCrearBody.safeParse(aFacturaF3({ facturasSustituidas: [{ numero: 'N'.repeat(60), fechaExpedicion: '01-03-2026' }] })))).toEqual([]);
  });

  it('rejects an unknown key, naming it', () => {
    const r = verifactuCrearBody.safeParse({ ...aFacturaF1(), descuento: '1.00' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['descuento'] });
  });

  it('rejects an unknown key inside a nested object, with its path', () => {
    const body = aFacturaF1();
    const r = verifactuCrearBody.safeParse({ ...body, cabecera: { ...body.cabecera, hora: '10:00' } });
    expect(r.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['hora'], path: ['cabecera'] });
  });

  it('names the failing amount field', () => {
    const r = verifactuCrearBody.safeParse(aFacturaF1({ totales: { importeTotal: 121 as unknown as string } }));
    expect(issues(r)[0]?.[0]).toBe('totales.importeTotal');
  });

  it('requires version "1.0"', () => {
    expect(issues(verifactuCrearBody.safeParse({ ...aFacturaF1(), version: '2.0' }))[0]?.[0]).toBe('version');
  });

  it('limits detalleDesglose to 1–12 lines (XSD)', () => {
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ detalleDesglose: [] })))[0]?.[0]).toBe('detalleDesglose');
    const trece = Array.from({ length: 13 }, () => aDetalle());
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ detalleDesglose: trece })))[0]?.[0]).toBe('detalleDesglose');
  });

  it('limits serie + numero to 60 characters (NumSerieFactura)', () => {
    const r = verifactuCrearBody.safeParse(aFacturaF1({ cabecera: { serie: 'S'.repeat(30), numero: 'N'.repeat(31) } }));
    expect(issues(r)).toEqual([['cabecera.numero', expect.stringMatching(/60 characters/)]]);
  });

  it('accepts an invoice without serie', () => {
    expect(verifactuCrearBody.safeParse(aFacturaF1({ cabecera: { serie: undefined } })).success).toBe(true);
  });

  it('refuses a country code outside the AEAT list', () => {
    const r = verifactuCrearBody.safeParse(aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: 'ZZ' as 'FR' }) }));
    expect(issues(r)[0]?.[0]).toBe('destinatario.idOtro.codigoPais');
  });
});

describe('destinatario: either {nif, nombre} or {nombre, idOtro}', () => {
  it('rejects nif and idOtro together', () => {
    const r = verifactuCrearBody.safeParse(aFacturaF1({ destinatario: { ...aDestinatarioIdOtro(), nif: '12345678Z' } }));
    expect(issues(r)).toEqual([['destinatario.idOtro', 'send either nif or idOtro, not both']]);
  });

  it('rejects neither nif nor idOtro', () => {
    const r = verifactuCrearBody.safeParse(aFacturaF1({ destinatario: { nombre: 'Sin identificar' } }));
    expect(issues(r)).toEqual([['destinatario.nif', 'nif or idOtro is required']]);
  });
});

describe('detalleDesglose: calificacionOperacion (S1 S2 N1 N2) XOR operacionExenta (E1–E8)', () => {
  it('rejects both (AEAT 1196)', () => {
    const r = verifactuCrearBody.safeParse(aFacturaF1({ detalleDesglose: [aDetalle({ operacionExenta: 'E1' })] }));
    expect(issues(r)).toEqual([['detalleDesglose.0.operacionExenta', expect.stringMatching(/1196/)]]);
  });

  it('rejects neither (AEAT 1195)', () => {
    const r = verifactuCrearBody.safeParse(aFacturaF1({ detalleDesglose: [aDetalle({ calificacionOperacion: undefined })] }));
    expect(issues(r)).toEqual([['detalleDesglose.0.calificacionOperacion', expect.stringMatching(/1195/)]]);
  });
});

describe('rectificativa: importes required with S, absent with I', () => {
  it('rejects S without importes (AEAT 1118)', () => {
    const r = verifactuCrearBody.safeParse(aFacturaR('R1', 'S', { rectificativa: { tipo: 'S' } }));
    expect(issues(r)).toEqual([['rectificativa.importes', expect.stringMatching(/1118/)]]);
  });

  it('rejects I with importes (AEAT 1119)', () => {
    const r = verifactuCrearBody.safeParse(
      aFacturaR('R1', 'I', { rectificativa: { tipo: 'I', importes: { baseRectificada: '1', cuotaRectificada: '0.21' } } }),
    );
    expect(issues(r)).toEqual([['rectificativa.importes', expect.stringMatching(/1119/)]]);
  });
});

describe('facturasRectificadas only for R1–R5, facturasSustituidas only for F3, at most 1000', () => {
  const ref = { serie: 'A', numero: '1', fechaExpedicion: '01-03-2026' };

  it('rejects facturasRectificadas on an F1 (AEAT 1117)', () => {
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ facturasRectificadas: [ref] })))).toEqual([
      ['facturasRectificadas', expect.stringMatching(/1117/)],
    ]);
  });

  it('rejects facturasSustituidas on an F1 (AEAT 1116)', () => {
    expect(issues(verifactuCrearBody.safeParse(aFacturaF1({ facturasSustituidas: [ref] })))).toEqual([
      ['facturasSustituidas', expect.stringMatching(/1116/)],
    ]);
  });

  it('accepts 1000 and rejects 1001 facturasRectificadas', () => {
    const mil = Array.from({ length: 1000 }, (_, i) => ({ ...ref, numero: String(i) }));
    expect(verifactuCrearBody.safeParse(aFacturaR('R1', 'S', { facturasRectificadas: mil })).success).toBe(true);
    const r = verifactuCrearBody.safeParse(aFacturaR('R1', 'S', { facturasRectificadas: [...mil, ref] }));
    expect(issues(r)[0]?.[0]).toBe('facturasRectificadas');
  });
});

describe('PUT /v1/verifactu/subsanar body: the crear body plus subsanacion and rechazoPrevio', () => {
  it('accepts subsanacion true or "S", rechazoPrevio N, S or X', () => {
    expect(verifactuSubsanarBody.safeParse(aSubsanacion()).success).toBe(true);
    expect(verifactuSubsanarBody.safeParse({ ...aSubsanacion({}, 'X'), subsanacion: 'S' }).success).toBe(true);
  });

  it('requires subsanacion', () => {
    const { subsanacion: _, ...sin } = aSubsanacion();
    expect(issues(verifactuSubsanarBody.safeParse(sin))[0]?.[0]).toBe('subsanacion');
    expect(issues(verifactuSubsanarBody.safeParse({ ...aSubsanacion(), subsanacion: false }))[0]?.[0]).toBe('subsanacion');
  });

  it('refuses another rechazoPrevio', () => {
    expect(issues(verifactuSubsanarBody.safeParse({ ...aSubsanacion(), rechazoPrevio: 'Y' }))[0]?.[0]).toBe('rechazoPrevio');
  });
});

describe('POST /v1/verifactu/anular body', () => {
  it('accepts the minimal body and sinRegistroPrevio', () => {
    expect(verifactuAnularBody.safeParse(anAnularBody()).success).toBe(true);
    expect(verifactuAnularBody.safeParse(anAnularBody({ sinRegistroPrevio: true, idMaquina: 'till-1' })).success).toBe(true);
  });

  it('names a bad field of facturaAnulada', () => {
    const body = anAnularBody();
    const r = verifactuAnularBody.safeParse({ ...body, facturaAnulada: { ...body.facturaAnulada, fechaExpedicion: '2026-03-02' } });
    expect(issues(r)[0]?.[0]).toBe('facturaAnulada.fechaExpedicion');
  });

  it('rejects unknown keys', () => {
    expect(verifactuAnularBody.safeParse({ ...anAnularBody(), motivo: 'x' }).success).toBe(false);
  });
});

describe('Issuing answers', () => {
  const emision = {
    idFactura: 'f_1',
    estado: 'pendiente_proceso',
    numeroFactura: 'A-2026/0001',
    sistemaFiscal: 'verifactu',
    entorno: 'test',
    huella: '3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60',
    fechaHoraHusoGenRegistro: '2026-03-02T11:15:00+01:00',
    urlValidacion: 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=A-2026%2F0001&fecha=02-03-2026&importe=121.00',
    qrBase64: 'iVBORw0KGgo=',
  };

  it('crear/subsanar answer: required fields, avisos and yaExistente optional', () => {
    expect(verifactuEmisionResponse.safeParse(emision).success).toBe(true);
    expect(verifactuEmisionResponse.safeParse({ ...emision, avisos: ['x'], yaExistente: true }).success).toBe(true);
    expect(verifactuEmisionResponse.safeParse({ ...emision, qrBase64: 'data:image/png;base64,AAAA' }).success).toBe(false);
    expect(verifactuEmisionResponse.safeParse({ ...emision, huella: 'abc' }).success).toBe(false);
  });

  it('anular answer: {code: SUCCESS, data}', () => {
    const ok = {
      code: 'SUCCESS',
      data: {
        idFactura: 'f_1',
        idRegistro: 'r_2',
        numeroFactura: 'A-2026/0001',
        serie: 'A-2026/',
        numero: '0001',
        estado: 'pendiente',
        creadoEn: '2026-03-02T10:15:00.000Z',
        huella: emision.huella,
      },
    };
    expect(verifactuAnularResponse.safeParse(ok).success).toBe(true);
    expect(verifactuAnularResponse.safeParse({ ...ok, data: { ...ok.data, yaAnulada: true } }).success).toBe(true);
    expect(verifactuAnularResponse.safeParse({ ...ok, data: { ...ok.data, creadoEn: '02-03-2026' } }).success).toBe(false);
  });
});

describe('values the AEAT lists (XSD enumerations): another value is refused naming its field (issue 31, docs/aeat-codes.md)', () => {
  const dest = (o: Record<string, string>) => aFacturaF1({ destinatario: aDestinatarioIdOtro(o as never) });
  it.each([
    ['AEAT 1106', 'cabecera.tipoFactura', aFacturaF1({ cabecera: { ...aFacturaF1().cabecera, tipoFactura: 'F9' as 'F1' } })],
    ['AEAT 1107', 'rectificativa.tipo', { ...aFacturaF1(), rectificativa: { tipo: 'X' } }],
    ['AEAT 1102', 'destinatario.idOtro.idType', dest({ idType: '99' })],
    ['AEAT 1101', 'destinatario.idOtro.codigoPais', dest({ codigoPais: 'ZZ' })],
    ['AEAT 1151', 'especial.emitidaPor', aFacturaF1({ especial: { emitidaPor: 'X' as 'T' } })],
    ['AEAT 1181', 'detalleDesglose.0.calificacionOperacion', aFacturaF1({ detalleDesglose: [aDetalle({ calificacionOperacion: 'S9' as 'S1' })] })],
    ['AEAT 1218', 'detalleDesglose.0.impuesto', aFacturaF1({ detalleDesglose: [aDetalle({ impuesto: '09' as '01' })] })],
  ])('%s: %s', (_code, campo, body) => {
    expect(issues(verifactuCrearBody.safeParse(body)).map(([p]) => p)).toContain(campo);
  });

  it('AEAT 1171 / 1275: Subsanacion and RechazoPrevio only take their listed values', () => {
    expect(issues(verifactuSubsanarBody.safeParse({ ...aSubsanacion(), rechazoPrevio: 'Y' }))[0]?.[0]).toBe('rechazoPrevio');
    expect(issues(verifactuSubsanarBody.safeParse({ ...aSubsanacion(), subsanacion: 'X' }))[0]?.[0]).toBe('subsanacion');
  });
});
