// The official XML of every record the API generates, and the QR of every invoice.
import QRCode from 'qrcode';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FacturaVerifactu } from '../../../src-shared/api/verifactu';
import {
  aDestinatarioIdOtro,
  aDestinatarioNif,
  aDetalle,
  aFacturaF1,
  aFacturaF2,
  aFacturaF3,
  aFacturaR,
  anAnularBody,
  aSubsanacion,
} from '../../fixtures/verifactu';
import type { TestEngine } from '../../support/engine';
import { validateAgainstVerifactuXsd } from '../../support/xsd';
import {
  CHAIN_TEST,
  crearOk,
  decodeQrPng,
  huellaFromXml,
  json,
  NIF,
  recordElement,
  useEngineOnFixtureDay,
  xmlText,
  type EmisionAnswer,
} from './helpers';

let t: TestEngine;
useEngineOnFixtureDay((engine) => (t = engine));

async function getXml(idFactura: string): Promise<string> {
  const res = await t.billing('GET', `/v1/facturas/${idFactura}/xml?nifEmisor=${NIF}`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  return res.body;
}

async function expectXsdValid(xml: string): Promise<void> {
  const result = await validateAgainstVerifactuXsd(xml, 'SuministroInformacion.xsd');
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
}

let numero = 0;
/** A fresh identity for each case: the same fixture issued twice would be a replay. */
function fresh(f: FacturaVerifactu): FacturaVerifactu {
  numero += 1;
  return { ...f, cabecera: { ...f.cabecera, numero: `${f.cabecera.numero}-${numero}` } };
}

const tercero = { nif: 'B22222228', nombre: 'Gestoría Tercero SL' };

const ALTAS: [string, FacturaVerifactu][] = [
  ['F1 with a recipient by NIF', aFacturaF1()],
  ['F1 with a recipient by IDOtro', aFacturaF1({ destinatario: aDestinatarioIdOtro() })],
  ['F1 with an IDOtro recipient without country (idType 02, NIF-IVA)', aFacturaF1({ destinatario: aDestinatarioIdOtro({ codigoPais: undefined }) })],
  ['F2 (simplified, no recipient)', aFacturaF2()],
  ['F2 under art. 61d', aFacturaF2({ especial: { facturaSinIdentifDestinatarioArt61d: true } })],
  ['F3 substituting simplified invoices', aFacturaF3()],
  ...(['R1', 'R2', 'R3', 'R4', 'R5'] as const).flatMap((tipo) =>
    (['S', 'I'] as const).map((r): [string, FacturaVerifactu] => [`${tipo} by ${r === 'S' ? 'substitution (S)' : 'difference (I)'}`, aFacturaR(tipo, r)]),
  ),
  ['R1 with cupon', aFacturaR('R1', 'I', { especial: { cupon: true } })],
  [
    'F1 with especial flags (art. 7273, issued by a third party, agreements)',
    aFacturaF1({
      especial: {
        facturaSimplificadaArt7273: true,
        emitidaPor: 'T',
        tercero,
        numRegistroAcuerdoFacturacion: 'ACU-2026-1',
        idAcuerdoSistemaInformatico: 'SIS-1',
      },
    }),
  ],
  ['F1 issued by the recipient (emitidaPor D)', aFacturaF1({ especial: { emitidaPor: 'D' }, destinatario: aDestinatarioNif() })],
  [
    'F1 with exempt and non-subject lines, equivalence surcharge and fechaOperacion',
    aFacturaF1({
      cabecera: { fechaOperacion: '01-03-2026' },
      detalleDesglose: [
        aDetalle({ baseImponible: '100', tipoImpositivo: '21', cuotaRepercutida: '21', tipoRecargoEquivalencia: '5.2', cuotaRecargoEquivalencia: '5.20' }),
        { impuesto: '01', claveRegimen: '01', operacionExenta: 'E1', baseImponible: '50.00' },
        { impuesto: '01', claveRegimen: '01', calificacionOperacion: 'N1', baseImponible: '30.00' },
      ],
      totales: { cuotaTotal: '26.20', importeTotal: '206.20' },
    }),
  ],
  [
    'F1 above 100 million (Macrodato)',
    aFacturaF1({
      detalleDesglose: [aDetalle({ baseImponible: '100000000.00', cuotaRepercutida: '21000000.00' })],
      totales: { cuotaTotal: '21000000.00', importeTotal: '121000000.00' },
    }),
  ],
  ['F1 with idMaquina and aux.refExterna', aFacturaF1({ idMaquina: 'caja-01', aux: { refExterna: 'POS/ref 1' } })],
];

describe('Records exactly per SuministroInformacion.xsd: every generated XML validates, served by GET /v1/facturas/{id}/xml', () => {
  for (const [name, factura] of ALTAS) {
    it(`RegistroAlta: ${name}`, async () => {
      const answer = await crearOk(t, fresh(factura));
      const xml = await getXml(answer.idFactura);
      await expectXsdValid(xml);
      const rec = recordElement(xml);
      expect(rec.localName).toBe('RegistroAlta');
      expect(xmlText(rec, 'TipoFactura')).toBe(factura.cabecera.tipoFactura);
      expect(xmlText(rec, 'Huella')).toBe(answer.huella);
      expect(huellaFromXml(rec)).toBe(answer.huella);
      expect(xmlText(rec, 'FechaHoraHusoGenRegistro')).toBe(answer.fechaHoraHusoGenRegistro);
    });
  }

  it('R1 and F3 with maximal references (1000 each, serie + numero joined at exactly 60): the XML validates', async () => {
    // 60 joined characters is what NumSerieFactura (TextoIDFacturaType) allows; the API refuses 61.
    const refs = (prefix: string) =>
      Array.from({ length: 1000 }, (_, i) => ({ serie: `${prefix}${'S'.repeat(29)}`, numero: String(i).padStart(30, '0'), fechaExpedicion: '01-03-2026' }));
    for (const factura of [aFacturaR('R1', 'I', { facturasRectificadas: refs('R') }), aFacturaF3({ facturasSustituidas: refs('T') })]) {
      const answer = await crearOk(t, fresh(factura));
      const xml = await getXml(answer.idFactura);
      await expectXsdValid(xml);
      const ids = recordElement(xml).getElementsByTagNameNS('*', factura.cabecera.tipoFactura === 'F3' ? 'IDFacturaSustituida' : 'IDFacturaRectificada');
      expect(ids.length).toBe(1000);
      const last = ids.item(999);
      expect(last ? xmlText(last, 'NumSerieFactura') : undefined).toHaveLength(60);
    }
  });

  it('RegistroAlta of a subsanación (Subsanacion S, RechazoPrevio N, X and S)', async () => {
    const alta = await crearOk(t, aFacturaF1({ cabecera: { numero: 'SUB-1' } }));
    const db = t.engine.context.db;
    const setEstado = (id: string | undefined, estado: 'aceptada' | 'rechazada') =>
      db.run(db.kysely.updateTable('registros').set({ estado }).where('id', '=', id ?? ''));
    const registros = () => t.engine.context.invoices.registrosOf(alta.idFactura);
    const steps: [string, () => void][] = [
      ['N', () => undefined],
      ['X', () => registros().forEach((r) => setEstado(r.id, 'rechazada'))],
      ['S', () => { setEstado(registros().at(-1)?.id, 'aceptada'); setEstado(registros()[0]?.id, 'rechazada'); }],
    ];
    for (const [i, [expected, prepare]] of steps.entries()) {
      prepare();
      const res = await t.billing('PUT', '/v1/verifactu/subsanar', {
        body: aSubsanacion({ cabecera: { numero: 'SUB-1', descripcion: `Corrección ${i}` } }, expected as 'N' | 'S' | 'X'),
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = json<EmisionAnswer>(res);
      const xml = await getXml(answer.idFactura);
      await expectXsdValid(xml);
      const rec = recordElement(xml);
      expect(xmlText(rec, 'Subsanacion')).toBe('S');
      expect(xmlText(rec, 'RechazoPrevio')).toBe(expected);
      expect(xmlText(rec, 'DescripcionOperacion')).toBe(`Corrección ${i}`);
      expect(xmlText(rec, 'Huella')).toBe(answer.huella);
      expect(huellaFromXml(rec)).toBe(answer.huella);
    }
  });

  it('RegistroAnulacion of a registered invoice (read from its record: GET …/xml keeps serving the alta)', async () => {
    const alta = await crearOk(t, aFacturaF1({ cabecera: { numero: 'ANU-1' } }));
    const res = await t.billing('POST', '/v1/verifactu/anular', {
      body: anAnularBody({ facturaAnulada: { nifEmisor: NIF, serie: 'A-2026/', numero: 'ANU-1', fechaExpedicion: '02-03-2026' } }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = json<{ data: { idRegistro: string; huella: string } }>(res).data;
    const stored = t.engine.context.invoices.getRegistro(data.idRegistro);
    expect(stored?.tipo).toBe('anulacion');
    const xml = t.engine.context.invoices.registroXml(data.idRegistro) ?? '';
    await expectXsdValid(xml);
    const rec = recordElement(xml);
    expect(rec.localName).toBe('RegistroAnulacion');
    expect(xmlText(rec, 'IDFactura', 'NumSerieFacturaAnulada')).toBe('A-2026/ANU-1');
    expect(xmlText(rec, 'SinRegistroPrevio')).toBeUndefined();
    expect(xmlText(rec, 'Huella')).toBe(data.huella);
    expect(huellaFromXml(rec)).toBe(data.huella);
    // GET …/xml still answers (the alta), and that document is valid as well.
    const served = await getXml(alta.idFactura);
    await expectXsdValid(served);
  });

  it('RegistroAnulacion without a previous record (SinRegistroPrevio S), served by GET …/xml', async () => {
    const res = await t.billing('POST', '/v1/verifactu/anular', {
      body: anAnularBody({ sinRegistroPrevio: true, facturaAnulada: { nifEmisor: NIF, serie: 'OLD', numero: '77', fechaExpedicion: '15-02-2026' } }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = json<{ data: { idFactura: string; huella: string } }>(res).data;
    const xml = await getXml(data.idFactura);
    await expectXsdValid(xml);
    const rec = recordElement(xml);
    expect(rec.localName).toBe('RegistroAnulacion');
    expect(xmlText(rec, 'SinRegistroPrevio')).toBe('S');
    expect(xmlText(rec, 'IDFactura', 'FechaExpedicionFacturaAnulada')).toBe('15-02-2026');
    expect(huellaFromXml(rec)).toBe(data.huella);
  });

});

describe('SistemaInformatico from configuration; text escaped once', () => {
  it('NumeroInstalacion of this install, names and NIF of the configured producer', async () => {
    const answer = await crearOk(t, fresh(aFacturaF1()));
    const rec = recordElement(await getXml(answer.idFactura));
    const s = t.engine.context.sistema;
    expect(xmlText(rec, 'SistemaInformatico', 'NombreRazon')).toBe(s.nombreRazon);
    expect(xmlText(rec, 'SistemaInformatico', 'NIF')).toBe(s.nif);
    expect(xmlText(rec, 'SistemaInformatico', 'NombreSistemaInformatico')).toBe(s.nombreSistemaInformatico);
    expect(xmlText(rec, 'SistemaInformatico', 'IdSistemaInformatico')).toBe(s.idSistemaInformatico);
    expect(xmlText(rec, 'SistemaInformatico', 'Version')).toBe(s.version);
    expect(xmlText(rec, 'SistemaInformatico', 'NumeroInstalacion')).toBe(s.numeroInstalacion);
  });

  it('a bare & and < > travel as plain text (parsed back unchanged)', async () => {
    const answer = await crearOk(t, fresh(aFacturaF1({ cabecera: { descripcion: 'Tornillos & tuercas <M8> "inox"' } })));
    const xml = await getXml(answer.idFactura);
    expect(xml).toContain('Tornillos &amp; tuercas &lt;M8&gt;');
    const rec = recordElement(xml);
    expect(xmlText(rec, 'DescripcionOperacion')).toBe('Tornillos & tuercas <M8> "inox"');
    expect(xmlText(rec, 'NombreRazonEmisor')).toBe('Ferretería López & Hijos, S.L.');
  });

  it('amounts sent as "121" and "21.0" are written once, canonically, in the XML, the hash and the URL', async () => {
    const answer = await crearOk(
      t,
      fresh(aFacturaF1({ detalleDesglose: [aDetalle({ baseImponible: '100', cuotaRepercutida: '21.0', tipoImpositivo: '21' })], importeTotal: '121', cuotaTotal: '21.0' })),
    );
    const rec = recordElement(await getXml(answer.idFactura));
    expect(xmlText(rec, 'ImporteTotal')).toBe('121.00');
    expect(xmlText(rec, 'CuotaTotal')).toBe('21.00');
    expect(huellaFromXml(rec)).toBe(answer.huella);
    expect(answer.urlValidacion.endsWith('&importe=121.00')).toBe(true);
  });
});

// ---------------------------------------------------------------- QR

/**
 * Error-correction level read from the format information of a QR image: the two most
 * significant format bits (after the 101010000010010 mask) are L=01, M=00, Q=11, H=10. Both
 * copies of the format information are read and must agree.
 */
function qrErrorLevel(png: Buffer): 'L' | 'M' | 'Q' | 'H' {
  const img = PNG.sync.read(png);
  const dark = (x: number, y: number) => (img.data[(y * img.width + x) * 4] ?? 255) < 128;
  let o = 0;
  while (o < img.width && !dark(o, o)) o++;
  let run = 0;
  while (dark(o + run, o)) run++;
  const scale = run / 7;
  const n = Math.round((img.width - 2 * o) / scale);
  const m = (r: number, c: number) => (dark(o + c * scale + Math.floor(scale / 2), o + r * scale + Math.floor(scale / 2)) ? 1 : 0);
  const levelOf = (b14: number, b13: number) => (['M', 'L', 'H', 'Q'] as const)[(((b14 << 1) | b13) ^ 0b10) & 0b11] ?? 'M';
  const first = levelOf(m(8, 0), m(8, 1));
  const second = levelOf(m(n - 1, 8), m(n - 2, 8));
  expect(second).toBe(first);
  return first;
}

async function qr(idFactura: string, accept?: string) {
  return t.billing('GET', `/v1/facturas/${idFactura}/qr?nifEmisor=${NIF}`, accept === undefined ? {} : { headers: { accept } });
}

describe('QR per FACTS.md: the PNG decodes to exactly urlValidacion', () => {
  it('qrBase64 of the issuing answer (no data: prefix) decodes to urlValidacion, the official TEST URL', async () => {
    const answer = await crearOk(t, aFacturaF1({ cabecera: { serie: 'Q', numero: '1' } }));
    expect(answer.qrBase64.startsWith('data:')).toBe(false);
    expect(answer.urlValidacion).toBe('https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=Q1&fecha=02-03-2026&importe=121.00');
    expect(decodeQrPng(Buffer.from(answer.qrBase64, 'base64'))).toBe(answer.urlValidacion);
  });

  it('LIVE answers carry the production host', async () => {
    const answer = await crearOk(t, aFacturaF1({ cabecera: { serie: 'Q', numero: 'LIVE1' } }), t.keys.live);
    expect(answer.entorno).toBe('live');
    expect(answer.urlValidacion).toBe(
      'https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=QLIVE1&fecha=02-03-2026&importe=121.00',
    );
    expect(decodeQrPng(Buffer.from(answer.qrBase64, 'base64'))).toBe(answer.urlValidacion);
  });

  it('numserie is URL-encoded as Java’s URLEncoder: & → %26 (official example 12345678&G33), space → +, / ( ) ! → %XX', async () => {
    const cases: [string, string, string][] = [
      ['A&B', '1', 'A%26B1'],
      ['12345678&', 'G33', '12345678%26G33'],
      ['A B', '(2)!', 'A+B%282%29%21'],
      ['2026/', 'A-7_x.y*', '2026%2FA-7_x.y*'],
    ];
    for (const [serie, num, encoded] of cases) {
      const answer = await crearOk(t, aFacturaF2({ cabecera: { serie, numero: num } }));
      expect(answer.numeroFactura).toBe(serie + num);
      expect(answer.urlValidacion).toBe(`https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=${encoded}&fecha=02-03-2026&importe=12.10`);
      expect(decodeQrPng(Buffer.from(answer.qrBase64, 'base64'))).toBe(answer.urlValidacion);
      const png = await qr(answer.idFactura, 'image/png');
      expect(decodeQrPng(png.rawPayload)).toBe(answer.urlValidacion);
    }
  });

  it('PNG at error-correction level M (format information read from the image; control images at L/M/Q/H)', async () => {
    for (const level of ['L', 'M', 'Q', 'H'] as const) {
      const control = await QRCode.toBuffer('https://example.test/control', { errorCorrectionLevel: level, margin: 4, scale: 4 });
      expect(qrErrorLevel(control)).toBe(level);
    }
    const answer = await crearOk(t, fresh(aFacturaF2()));
    expect(qrErrorLevel(Buffer.from(answer.qrBase64, 'base64'))).toBe('M');
    expect(qrErrorLevel((await qr(answer.idFactura, 'image/png')).rawPayload)).toBe('M');
  });
});

describe('GET /v1/facturas/{idFactura}/qr: identical to qrBase64 of the issuing response; Accept rules', () => {
  let answer: EmisionAnswer;
  beforeAll(async () => {
    answer = await crearOk(t, aFacturaF1({ cabecera: { serie: 'QR&', numero: 'ACC' } }));
  });

  it('Accept: image/png → the PNG bytes, byte-identical to qrBase64', async () => {
    const res = await qr(answer.idFactura, 'image/png');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.equals(Buffer.from(answer.qrBase64, 'base64'))).toBe(true);
    expect(res.rawPayload.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(decodeQrPng(res.rawPayload)).toBe(answer.urlValidacion);
  });

  it('Accept: application/json → {qrBase64, urlValidacion} of the issuing answer', async () => {
    const res = await qr(answer.idFactura, 'application/json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ qrBase64: answer.qrBase64, urlValidacion: answer.urlValidacion });
  });

  it('Accept: */* or no Accept → base64 text announced as image/png', async () => {
    for (const accept of ['*/*', undefined]) {
      const res = await qr(answer.idFactura, accept);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.body).toBe(answer.qrBase64);
    }
  });

  it('does not expire, and a replay answers the same qrBase64', async () => {
    t.clock.advance(400 * 24 * 3600 * 1000);
    try {
      const res = await qr(answer.idFactura, 'image/png');
      expect(res.rawPayload.equals(Buffer.from(answer.qrBase64, 'base64'))).toBe(true);
    } finally {
      t.clock.advance(-400 * 24 * 3600 * 1000);
    }
    const replay = await crearOk(t, aFacturaF1({ cabecera: { serie: 'QR&', numero: 'ACC' } }));
    expect(replay.yaExistente).toBe(true);
    expect(replay.qrBase64).toBe(answer.qrBase64);
  });
});

describe('Huella per FACTS.md over exactly the text written in the XML', () => {
  it('every record this file generated (altas, subsanaciones, anulaciones, series with & / + …) recomputes from its own XML', () => {
    for (const key of [CHAIN_TEST, `live|verifactu|${NIF}`]) {
      const chain = t.engine.context.invoices.chain(key);
      expect(chain.length).toBeGreaterThan(0);
      chain.forEach((rec, i) => {
        expect(huellaFromXml(recordElement(rec.xml))).toBe(rec.huella);
        expect(rec.huellaAnterior).toBe(i === 0 ? null : chain[i - 1]?.huella);
      });
    }
  });
});
