import { describe, expect, it } from 'vitest';
import {
  ticketbaiAnularBody,
  ticketbaiAnularResponse,
  ticketbaiCrearBody,
  ticketbaiCrearResponse,
  ticketbaiSubsanarBody,
} from '../../../src-shared/api/ticketbai';
import { aDestinatarioTbai, aDetalleTbai, aFacturaF1Tbai, aFacturaTbai, aLineaTbai, anAnularTbai } from './fixtures';

/** The issues of a failed parse as "path: message". */
function problemas(schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }, body: unknown): string[] {
  const r = schema.safeParse(body);
  return r.success ? [] : (r.error?.issues ?? []).map((i) => `${i.path.map(String).join('.')}: ${i.message}`);
}

describe('POST /v1/ticketbai/crear body', () => {
  it('accepts the fixtures (ticket, complete invoice with recipient)', () => {
    expect(problemas(ticketbaiCrearBody, aFacturaTbai())).toEqual([]);
    expect(problemas(ticketbaiCrearBody, aFacturaF1Tbai())).toEqual([]);
  });

  it('an unknown key is an error naming it (strict objects, also nested)', () => {
    expect(problemas(ticketbaiCrearBody, { ...aFacturaTbai(), version: '1.0' }).join()).toContain('version');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ lineas: [{ ...aLineaTbai(), iva: '21' } as never] })).join()).toContain('iva');
  });

  it('lineas is required in Araba, with path lineas', () => {
    const { lineas: _lineas, ...sinLineas } = aFacturaTbai({ provincia: 'araba' });
    expect(problemas(ticketbaiCrearBody, sinLineas)).toEqual(['lineas: lineas is required in Araba']);
    const { lineas: _l2, ...gipuzkoa } = aFacturaTbai();
    expect(problemas(ticketbaiCrearBody, gipuzkoa)).toEqual([]);
  });

  it('line cantidad, importeUnitario, descuento and importeTotal take up to 8 decimals; cantidad defaults to 1', () => {
    const ok = ticketbaiCrearBody.parse(
      aFacturaTbai({ lineas: [{ descripcion: 'x', importeUnitario: '0.12345678', descuento: '0.00000001', importeTotal: '0.14938270' } as never] }),
    );
    expect(ok.lineas?.[0]?.cantidad).toBe('1');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ lineas: [aLineaTbai({ cantidad: '1.123456789' })] })).join()).toContain('lineas.0.cantidad');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ lineas: [aLineaTbai({ descuento: '-1' })] })).join()).toContain('lineas.0.descuento: descuento must not be negative');
    // Invoice-level amounts keep 2 decimals.
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ importeTotal: '12.100' })).join()).toContain('importeTotal');
  });

  it('serie and numero: at most 20 characters, no surrounding spaces', () => {
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ numero: '1'.repeat(21) })).join()).toContain('numero: at most 20 characters');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ serie: ' T' })).join()).toContain('serie: must not start or end with spaces');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ serie: 'A&amp;B' })).join()).toContain('already-encoded entity');
  });

  it('horaExpedicion is HH:MM:SS', () => {
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ horaExpedicion: '23:59:59' }))).toEqual([]);
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ horaExpedicion: '24:00:00' })).join()).toContain('horaExpedicion');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ horaExpedicion: '9:30' })).join()).toContain('horaExpedicion');
  });

  it('desglose: taxed lines need tipoImpositivo and cuota; exempt and non-subject lines take them only as zero', () => {
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ desglose: [{ baseImponible: '10.00' }] }))).toEqual([
      'desglose.0.tipoImpositivo: Required',
      'desglose.0.cuota: Required',
    ]);
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ desglose: [{ baseImponible: '10.00', operacionExenta: 'E1' }] }))).toEqual([]);
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ desglose: [{ baseImponible: '10.00', causaNoSujecion: 'RL', tipoImpositivo: '0', cuota: '0.00' }] }))).toEqual([]);
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ desglose: [aDetalleTbai({ operacionExenta: 'E1' })] })).join()).toContain('tipoImpositivo must be absent or zero');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ desglose: [aDetalleTbai({ operacionExenta: 'E1', causaNoSujecion: 'OT' })] })).join()).toContain('exclude each other');
  });

  it('desglose: tipoOperacion on every line or on none; group sizes of the XSD', () => {
    const mixed = aFacturaTbai({ desglose: [aDetalleTbai({ tipoOperacion: 'entrega' }), aDetalleTbai()] });
    expect(problemas(ticketbaiCrearBody, mixed).join()).toContain('desglose.1.tipoOperacion');
    const noSujetas = Array.from({ length: 5 }, () => ({ baseImponible: '1.00', causaNoSujecion: 'OT' as const }));
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ desglose: noSujetas })).join()).toContain('at most 4 desglose lines of kind noSujeta');
  });

  it('rectificativa goes with R1–R5, importes with tipo S; facturasSustituidas only with F3', () => {
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ tipoFactura: 'R1' })).join()).toContain('rectificativa: rectificativa is required');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ rectificativa: { tipo: 'I' } })).join()).toContain('rectificativa: rectificativa is only allowed');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ tipoFactura: 'R1', rectificativa: { tipo: 'S' } })).join()).toContain('rectificativa.importes');
    const sustituidas = [{ serie: 'T', numero: '1', fechaExpedicion: '01-03-2026' }];
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ facturasSustituidas: sustituidas })).join()).toContain('facturasSustituidas');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ tipoFactura: 'F3', facturasSustituidas: sustituidas }))).toEqual([]);
    const muchas = Array.from({ length: 101 }, (_, k) => ({ numero: String(k), fechaExpedicion: '01-03-2026' }));
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ tipoFactura: 'F3', facturasSustituidas: muchas })).join()).toContain('at most 100');
  });

  it('destinatario: nif or idOtro, never both', () => {
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ destinatario: aDestinatarioTbai({ idOtro: { idType: '02', id: 'FR1' } }) })).join()).toContain('destinatario.idOtro');
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ destinatario: { nombre: 'X' } })).join()).toContain('destinatario.nif');
  });

  it('destinatario.nif: the full tax-ID check (check letter / digit), not only the shape', () => {
    // 12345678Z is a valid DNI; 12345678A has the wrong letter; B12345674 / B12345675: CIF check digit.
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ destinatario: aDestinatarioTbai({ nif: '12345678Z' }) }))).toEqual([]);
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ destinatario: aDestinatarioTbai({ nif: 'B12345674' }) }))).toEqual([]);
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ destinatario: aDestinatarioTbai({ nif: '12345678A' }) }))).toEqual([
      'destinatario.nif: invalid NIF: DNI check letter should be Z, not A',
    ]);
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ destinatario: aDestinatarioTbai({ nif: 'B12345675' }) })).map((p) => p.split(':')[0])).toEqual(['destinatario.nif']);
    // A bad shape keeps its single message.
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ destinatario: aDestinatarioTbai({ nif: '1234' }) }))).toEqual(['destinatario.nif: NIF must be 9 upper-case letters or digits']);
  });

  it('provincia is araba, bizkaia or gipuzkoa', () => {
    expect(problemas(ticketbaiCrearBody, aFacturaTbai({ provincia: 'alava' as never })).join()).toContain('provincia');
  });
});

describe('PUT /v1/ticketbai/subsanar body: crear plus subsanacion: true', () => {
  it('requires subsanacion: true and applies the crear rules', () => {
    expect(problemas(ticketbaiSubsanarBody, { ...aFacturaTbai(), subsanacion: true })).toEqual([]);
    expect(problemas(ticketbaiSubsanarBody, aFacturaTbai()).join()).toContain('subsanacion');
    const { lineas: _l, ...sinLineas } = aFacturaTbai({ provincia: 'araba' });
    expect(problemas(ticketbaiSubsanarBody, { ...sinLineas, subsanacion: true })).toEqual(['lineas: lineas is required in Araba']);
  });
});

describe('POST /v1/ticketbai/anular body', () => {
  it('is flat and strict', () => {
    expect(problemas(ticketbaiAnularBody, anAnularTbai({ idMaquina: 'TPV-01' }))).toEqual([]);
    expect(problemas(ticketbaiAnularBody, { ...anAnularTbai(), motivo: 'x' }).join()).toContain('motivo');
  });
});

describe('responses', () => {
  it('crear: estado en_cola, a 39-character idTbai, sistemaFiscal ticketbai', () => {
    const ok = {
      idFactura: 'f_1',
      estado: 'en_cola',
      idTbai: 'TBAI-00000006Y-251019-btFpwP8dcLGAF-237',
      urlValidacion: 'https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70&cr=007',
      qrBase64: 'iVBORw0KGgo=',
      numeroFactura: 'T27174',
      sistemaFiscal: 'ticketbai',
      entorno: 'test',
      viaZuzendu: true,
    };
    expect(ticketbaiCrearResponse.safeParse(ok).success).toBe(true);
    expect(ticketbaiCrearResponse.safeParse({ ...ok, idTbai: 'TBAI-00000006Y-251019-btFpwP8dcLGAF-23' }).success).toBe(false);
    expect(ticketbaiCrearResponse.safeParse({ ...ok, huella: 'x' }).success).toBe(false);
  });
  it('anular: VeriFactu shape with idTbai instead of huella', () => {
    const data = { idFactura: 'f', idRegistro: 'r', numeroFactura: 'T1', serie: 'T', numero: '1', estado: 'pendiente', creadoEn: '2026-03-02T10:15:00Z', idTbai: 'TBAI-00000006Y-251019-btFpwP8dcLGAF-237' };
    expect(ticketbaiAnularResponse.safeParse({ code: 'SUCCESS', data: { ...data, yaAnulada: true } }).success).toBe(true);
    expect(ticketbaiAnularResponse.safeParse({ code: 'SUCCESS', data: { ...data, huella: 'A'.repeat(64) } }).success).toBe(false);
  });
});
