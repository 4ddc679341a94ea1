// The one-pass scanner of AEAT's answers against the full XML parser: the same reading, hence the
// same verdicts, on real answers (the corpus when present, and answers in their shape), on the
// emulator's answers with errors, duplicates and partial acceptance, and on answers mutated at
// random (where the scanner may give up, but never read anything differently).
import { existsSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { faultXml, respuestaXml, type Respuesta, type RespuestaLinea as LineaEmulada } from '../../../engine/emulators/aeat/soap';
import { verdictOf } from '../../../engine/src/regimes/verifactu/authority/aeat-adapter';
import { parseAeatReply, parseAeatReplyFully, type AeatReply } from '../../../engine/src/regimes/verifactu/authority/aeat-reply';
import { scanAeatReply } from '../../../engine/src/regimes/verifactu/authority/aeat-reply-scan';
import { CONFORMANCE_DIR, corpusFile } from '../../conformance/corpus';

/** Every verdict an answer gives, for a first send and for a resend. */
function verdictsOf(reply: AeatReply) {
  if (reply.kind !== 'respuesta') return reply;
  return reply.lineas.map((l) => [verdictOf(l, reply.csv, false), verdictOf(l, reply.csv, true)]);
}

/** The scanner read it, exactly as the full parser does, verdicts included. */
function expectScannedAlike(xml: string): AeatReply {
  const full = parseAeatReplyFully(xml);
  const scanned = scanAeatReply(xml);
  expect(scanned).toBeDefined();
  expect(scanned).toEqual(full);
  expect(verdictsOf(scanned!)).toEqual(verdictsOf(full));
  return scanned!;
}

/** Whatever the input: the scanner gives up, or reads what the full parser reads. */
function scannedAlikeOrGivenUp(xml: string): void {
  const scanned = scanAeatReply(xml);
  if (scanned === undefined) return;
  expect(scanned).toEqual(parseAeatReplyFully(xml));
}

const NS_SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
const NS_SI = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd';
const NS_RESP = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/RespuestaSuministro.xsd';

/** AEAT's pre-production answer with errors, as Odoo recorded it (the corpus's file, kept here for runs without the corpus). */
const REAL_WITH_ERRORS =
  `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="${NS_SOAP}"> <env:Header/> <env:Body Id="Body">` +
  `<tikR:RespuestaRegFactuSistemaFacturacion xmlns:tik="${NS_SI}" xmlns:tikR="${NS_RESP}"><tikR:CSV>A-X2CPJ3HE3AFADY</tikR:CSV>` +
  '<tikR:DatosPresentacion><tik:NIFPresentador>A39200019</tik:NIFPresentador><tik:TimestampPresentacion>2024-12-17T13:50:07+01:00</tik:TimestampPresentacion></tikR:DatosPresentacion>' +
  '<tikR:Cabecera><tik:ObligadoEmision><tik:NombreRazon>ES Company</tik:NombreRazon><tik:NIF>A39200019</tik:NIF></tik:ObligadoEmision></tikR:Cabecera>' +
  '<tikR:TiempoEsperaEnvio>60</tikR:TiempoEsperaEnvio><tikR:EstadoEnvio>ParcialmenteCorrecto</tikR:EstadoEnvio><tikR:RespuestaLinea><tikR:IDFactura>' +
  '<tik:IDEmisorFactura>A39200019</tik:IDEmisorFactura><tik:NumSerieFactura>INV/2024/00007</tik:NumSerieFactura><tik:FechaExpedicionFactura>17-12-2024</tik:FechaExpedicionFactura>' +
  '</tikR:IDFactura><tikR:Operacion><tik:TipoOperacion>Alta</tik:TipoOperacion></tikR:Operacion><tikR:EstadoRegistro>AceptadoConErrores</tikR:EstadoRegistro>' +
  '<tikR:CodigoErrorRegistro>2005</tikR:CodigoErrorRegistro><tikR:DescripcionErrorRegistro>El campo ImporteTotal tiene un valor incorrecto para el valor de los campos ' +
  'BaseImponibleOimporteNoSujeto, CuotaRepercutida y CuotaRecargoEquivalencia suministrados.</tikR:DescripcionErrorRegistro></tikR:RespuestaLinea>' +
  '</tikR:RespuestaRegFactuSistemaFacturacion> </env:Body></env:Envelope>';

const linea = (n: number, over: Partial<LineaEmulada> = {}): LineaEmulada => ({
  emisor: 'B12345674',
  numSerie: `T-${n}`,
  fecha: '20-11-2026',
  tipoOperacion: 'Alta',
  estado: 'Correcto',
  ...over,
});

const respuesta = (lineas: LineaEmulada[], over: Partial<Respuesta> = {}): string =>
  respuestaXml({
    csv: 'A-ABCDEFGH12345678',
    presentacion: { nifPresentador: 'B12345674', timestamp: '2026-11-20T10:00:00+01:00' },
    cabecera: { obligado: { nombre: 'COMERCIAL DEMO SL', nif: 'B12345674' }, remisionVoluntaria: { incidencia: 'N' } },
    tiempoEsperaEnvio: 0,
    estadoEnvio: 'ParcialmenteCorrecto',
    lineas,
    ...over,
  });

/** Partial acceptance: accepted, accepted with errors, rejected, a duplicate of each kind AEAT holds, a cancellation. */
const MIXED = respuesta([
  linea(1),
  linea(2, { estado: 'AceptadoConErrores', codigo: 2005, descripcion: 'El campo ImporteTotal tiene un valor incorrecto & "otro" <aviso>' }),
  linea(3, { estado: 'Incorrecto', codigo: 1244, descripcion: 'El campo FechaHoraHusoGenRegistro tiene un formato incorrecto.' }),
  linea(4, { estado: 'Incorrecto', codigo: 3000, descripcion: 'Registro de facturación duplicado.', duplicado: { idPeticion: '202611200000001', estado: 'Correcta' } }),
  linea(5, {
    estado: 'Incorrecto',
    codigo: 3000,
    descripcion: 'Registro de facturación duplicado.',
    duplicado: { idPeticion: '202611200000002', estado: 'AceptadaConErrores', codigo: 2005, descripcion: 'Importe mal calculado' },
  }),
  linea(6, { estado: 'Incorrecto', codigo: 3000, descripcion: 'Registro de facturación duplicado.', duplicado: { idPeticion: '202611200000003', estado: 'Anulada' } }),
  linea(7, { tipoOperacion: 'Anulacion', estado: 'Incorrecto', codigo: 3001, descripcion: 'El registro de facturación ya ha sido anulado.' }),
  linea(8, { tipoOperacion: 'Anulacion', subsanacion: 'S', refExterna: 'ref-8' }),
]);

describe('scanAeatReply', () => {
  it('reads a real answer with errors as the full parser does', () => {
    const reply = expectScannedAlike(REAL_WITH_ERRORS);
    expect(reply).toMatchObject({ csv: 'A-X2CPJ3HE3AFADY', estadoEnvio: 'ParcialmenteCorrecto', tiempoEsperaEnvio: 60 });
  });

  it.skipIf(CONFORMANCE_DIR === null)('reads every real AEAT answer of the corpus as the full parser does (the fault goes to the full parser)', () => {
    const dir = 'verifactu/examples/odoo';
    for (const name of ['batch_single_accepted_registration.xml', 'batch_single_registered_with_errors_registration.xml', 'batch_single_rejected_registration.xml']) {
      expect(existsSync(corpusFile(dir, name)), name).toBe(true);
      expectScannedAlike(readFileSync(corpusFile(dir, name), 'utf8'));
    }
    const fault = readFileSync(corpusFile(dir, 'soapfault.xml'), 'utf8');
    expect(scanAeatReply(fault)).toBeUndefined();
    expect(parseAeatReply(fault)).toMatchObject({ kind: 'fault', codigo: '4102' });
  });

  it('reads partial acceptance, errors, duplicates and cancellations as the full parser does, with the same verdicts', () => {
    const reply = expectScannedAlike(MIXED);
    if (reply.kind !== 'respuesta') throw new Error('not an answer');
    expect(reply.lineas).toHaveLength(8);
    expect(reply.lineas[1]).toMatchObject({ estado: 'AceptadoConErrores', codigo: '2005', descripcion: 'El campo ImporteTotal tiene un valor incorrecto & "otro" <aviso>' });
    expect(reply.lineas[4]!.duplicado).toEqual({ estado: 'AceptadaConErrores', codigo: '2005', descripcion: 'Importe mal calculado', idPeticion: '202611200000002' });
    expect(reply.lineas[7]).toMatchObject({ operacion: 'Anulacion', estado: 'Correcto' });
    // A duplicate of our own earlier send is reconciled to the original verdict; on a first send it is a rejection.
    expect(verdictOf(reply.lineas[3]!, reply.csv, true)).toMatchObject({ kind: 'aceptado', conErrores: false });
    expect(verdictOf(reply.lineas[3]!, reply.csv, false)).toMatchObject({ kind: 'rechazado', codigo: '3000' });
  });

  it('reads a 1,000-line answer, an answer without CSV and one without lines', () => {
    const big = expectScannedAlike(respuesta(Array.from({ length: 1000 }, (_, n) => linea(n)), { estadoEnvio: 'Correcto' }));
    expect(big.kind === 'respuesta' && big.lineas.length).toBe(1000);
    expectScannedAlike(respuesta([linea(1, { estado: 'Incorrecto', codigo: 1100, descripcion: 'x' })], { csv: undefined, estadoEnvio: 'Incorrecto' }));
    expectScannedAlike(respuesta([], { estadoEnvio: 'Incorrecto' }));
  });

  it('gives up where it is not sure, and the full parser decides: faults, comments, CDATA, character references, repeated or unknown values', () => {
    const giveUps = [
      faultXml({ faultcode: 'env:Client', faultstring: 'Codigo[4102].El XML no cumple el esquema.' }),
      MIXED.replace('<tikR:EstadoEnvio>', '<!-- nota --><tikR:EstadoEnvio>'),
      MIXED.replace('<tik:NumSerieFactura>T-1<', '<tik:NumSerieFactura><![CDATA[T-1]]><'),
      MIXED.replace('<tik:NumSerieFactura>T-1<', '<tik:NumSerieFactura>T&#45;1<'),
      MIXED.replace('<tikR:EstadoRegistro>Correcto<', '<tikR:EstadoRegistro>Correcto</tikR:EstadoRegistro><tikR:EstadoRegistro>Correcto<'),
      MIXED.replace('<tikR:EstadoRegistro>Correcto<', '<tikR:EstadoRegistro>Aceptado<'),
      MIXED.replace('<tikR:EstadoEnvio>ParcialmenteCorrecto<', '<tikR:EstadoEnvio> <'),
      MIXED.replace('</env:Envelope>', '</env:Envelope><otro/>'),
      MIXED.replace('<tik:NumSerieFactura>T-1</tik:NumSerieFactura>', '<tik:NumSerieFactura>T-1</tik:NumSerie>'),
      `\uFEFF${MIXED}`,
    ];
    for (const xml of giveUps) {
      expect(scanAeatReply(xml), xml.slice(0, 120)).toBeUndefined();
      let full: unknown;
      try {
        full = parseAeatReplyFully(xml);
      } catch (error) {
        full = error;
      }
      let reply: unknown;
      try {
        reply = parseAeatReply(xml);
      } catch (error) {
        reply = error;
      }
      expect(reply).toEqual(full);
    }
  });

  it('reads any answer the emulator builds as the full parser does', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', '9', ' ', '&', '<', '>', '"', "'", 'ñ', '€', '/', '-', '\n', '\t', '\u00A0'), minLength: 1, maxLength: 12 });
    const filled = text.filter((s) => s.trim() !== '');
    const line = fc.record({
      emisor: fc.constantFrom('B12345674', 'A58818501'),
      numSerie: filled,
      fecha: fc.constantFrom('20-11-2026', '01-01-2025'),
      tipoOperacion: fc.constantFrom('Alta' as const, 'Anulacion' as const),
      estado: fc.constantFrom('Correcto' as const, 'AceptadoConErrores' as const, 'Incorrecto' as const),
      codigo: fc.option(fc.integer({ min: 1000, max: 4999 }), { nil: undefined }),
      descripcion: fc.option(filled, { nil: undefined }),
      refExterna: fc.option(filled, { nil: undefined }),
      duplicado: fc.option(
        fc.record({
          idPeticion: fc.stringMatching(/^[0-9]{1,15}$/),
          estado: fc.constantFrom('Correcta' as const, 'AceptadaConErrores' as const, 'AceptadoConErrores' as const, 'Anulada' as const),
          codigo: fc.option(fc.integer({ min: 1000, max: 4999 }), { nil: undefined }),
          descripcion: fc.option(filled, { nil: undefined }),
        }),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), fc.option(filled, { nil: undefined }), fc.nat({ max: 3600 }), (lineas, csv, espera) => {
        expectScannedAlike(respuesta(lineas, { csv, tiempoEsperaEnvio: espera, estadoEnvio: 'ParcialmenteCorrecto' }));
      }),
      { numRuns: 300 },
    );
  });

  it('never reads an answer mutated at random differently from the full parser', () => {
    const pieces = ['<', '>', '/', '&', '&amp;', '&#x41;', ';', '"', "'", ' ', '\r', '\n', '=', ':', 'x', '<a>', '</a>', '<a/>', '<!-- c -->', 'tikR:', 'Correcto', '<tikR:RespuestaLinea>', '</tikR:RespuestaLinea>', '<tikR:CSV>Z</tikR:CSV>', '<?xml?>'];
    const base = [MIXED, REAL_WITH_ERRORS];
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), piece: fc.constantFrom(...pieces) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 200 }) }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...base), fc.array(edit, { minLength: 1, maxLength: 3 }), (original, edits) => {
        let xml = original;
        for (const e of edits) {
          const at = e.at % (xml.length + 1);
          if (e.kind === 'insert') xml = xml.slice(0, at) + e.piece + xml.slice(at);
          else if (e.kind === 'delete') xml = xml.slice(0, at) + xml.slice(at + e.length);
          else xml = xml.slice(0, at + e.length) + xml.slice(at, at + e.length) + xml.slice(at + e.length);
        }
        scannedAlikeOrGivenUp(xml);
      }),
      { numRuns: 2000 },
    );
  });
});
