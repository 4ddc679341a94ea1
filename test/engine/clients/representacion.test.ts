import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDocument, PDFName, PDFRawStream, StandardFonts } from 'pdf-lib';
import { beforeEach, describe, expect, it } from 'vitest';
import { signPdf, verifyPdfSignature } from '../../../engine/src/representation/signature';
import { aFacturaF1, GENERADO_EN } from '../../fixtures/verifactu';
import { anAutonomo, anEmpresa, crear, DIRECCION, expectError, json, makeClientsEngine, type ClientsEngine } from './helpers';
import { testP12 } from './pkcs12';

let t: ClientsEngine;
beforeEach(async (ctx) => {
  t = await makeClientsEngine({ now: GENERADO_EN.toISOString() });
  ctx.onTestFinished(() => t.close());
  expect((await crear(t, anEmpresa())).statusCode).toBe(201);
});

const base = '/v1/clientes/B48123459/representacion';
const REPRESENTANTE_P12 = () => testP12({ cn: 'ETXEBERRIA GOIKOETXEA MIKEL - 23456789D', nif: '23456789D' });

async function generar(path = base, key?: string): Promise<Buffer> {
  const res = await t.manage('GET', `${path}/generar`, key ? { key } : {});
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  return res.rawPayload;
}

async function estado(path = base, key?: string) {
  return json<{ estadoRepresentacion: string; firmaEnCurso: boolean; firmadoEn?: string; firmante?: { nif?: string } }>(
    await t.manage('GET', `${path}/estado`, key ? { key } : {}),
  );
}

const CP1252: Record<number, string> = { 0x80: '€', 0x95: '•', 0x96: '–', 0x97: '—', 0xb7: '·' };
async function textOf(pdf: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  return doc
    .getPages()
    .flatMap((page) => {
      const contents = page.node.get(PDFName.of('Contents'));
      const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
      return refs.map((r) => {
        const s = doc.context.lookup(r);
        if (!(s instanceof PDFRawStream)) return '';
        const ops = Buffer.from(inflateSync(s.contents)).toString('latin1');
        return [...ops.matchAll(/<([0-9A-Fa-f]*)> Tj/g)]
          .map((m) => [...Buffer.from(m[1] ?? '', 'hex')].map((b) => CP1252[b] ?? String.fromCharCode(b)).join(''))
          .join('\n');
      });
    })
    .join('\n');
}

describe('GET …/representacion/generar: the representation document as a PDF with the issuer’s data', () => {
  it('carries the issuer, its legal representative, the representative (the account) and the authority', async () => {
    const pdf = await generar();
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await textOf(pdf);
    for (const s of ['TALLERES BILBAO ZAHARRA SL', 'B48123459', 'Gran Vía 1, 48001 Bilbao (Bizkaia)', 'ETXEBERRIA GOIKOETXEA MIKEL', '23456789D', 'COMERCIAL DEMO SL', 'B12345674', 'Agencia Estatal de Administración', 'VERI*FACTU']) {
      expect(text).toContain(s);
    }
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    expect(doc.getKeywords()).toMatch(/representacion-doc:rep_\d+/);
    expect(doc.getCreationDate()?.toISOString()).toBe(GENERADO_EN.toISOString());
  });

  it('the wording follows the hacienda, and shows the epígrafe of a Bizkaia autónomo', async () => {
    await crear(t, anAutonomo({ nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', hacienda: 'tbai-bizkaia', epigrafeIAE: '165940' }));
    const text = await textOf(await generar('/v1/clientes/23456789D/representacion'));
    expect(text).toContain('Diputación Foral de Bizkaia');
    expect(text).toContain('165940');
    expect(text).not.toContain('Representante legal');
  });

  it('starts a signature: en_firma with firmaEnCurso; a repeat returns the same document', async () => {
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'pendiente', firmaEnCurso: false });
    const first = await generar();
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'en_firma', firmaEnCurso: true });
    t.clock.advance(60_000);
    expect((await generar()).equals(first)).toBe(true);
    const asJson = json<{ pdf: string; documentoId: string }>(await t.manage('GET', `${base}/generar`, { headers: { accept: 'application/json' } }));
    expect(Buffer.from(asJson.pdf, 'base64').equals(first)).toBe(true);
  });

  it('400 with camposFaltantes when the issuer lacks data for the document', async () => {
    await crear(t, anAutonomo({ direccion: undefined }));
    let body = expectError(await t.manage('GET', '/v1/clientes/34567890V/representacion/generar'), 400, 'VALIDATION_ERROR', 'direccion');
    expect(body.camposFaltantes).toEqual(['direccion']);
    await crear(t, anEmpresa({ nif: 'B20123451', nombre: 'SAGARDOTEGI ERREKA SL', representante: { nombre: 'LOPEZ AGIRRE ANE', nif: '78901234X' } }));
    body = expectError(await t.manage('GET', '/v1/clientes/B20123451/representacion/generar'), 400, 'VALIDATION_ERROR');
    expect(body.camposFaltantes).toEqual(['representante.direccion']);
    // The demo's own company was registered without the client fields.
    body = expectError(await t.manage('GET', '/v1/clientes/B12345674/representacion/generar'), 400, 'VALIDATION_ERROR');
    expect(body.camposFaltantes).toEqual(['tipoUsuario', 'direccion']);
    expect(await estado('/v1/clientes/34567890V/representacion')).toMatchObject({ estadoRepresentacion: 'pendiente', firmaEnCurso: false });
  });

  it('an unknown issuer → 404; another account’s → 403 FORBIDDEN', async () => {
    expectError(await t.manage('GET', '/v1/clientes/44444444A/representacion/generar'), 404, 'NOT_FOUND');
    const other = t.otherAccount();
    expectError(await t.manage('GET', `${base}/generar`, { key: other.test }), 403, 'FORBIDDEN');
    expectError(await t.manage('GET', `${base}/estado`, { key: other.test }), 403, 'FORBIDDEN');
  });
});

describe('POST …/firmar {pdf, certificado (PKCS#12 base64), password}', () => {
  const firmar = (body: unknown, path = base) => t.manage('POST', `${path}/firmar`, { body });

  it('signs with the legal representative’s certificate: firmado, and the signed PDF verifies', async () => {
    const pdf = await generar();
    const res = await firmar({ pdf: pdf.toString('base64'), certificado: REPRESENTANTE_P12(), password: 'secreta' });
    expect(res.statusCode, res.body).toBe(200);
    const body = json<{ estadoRepresentacion: string; firmaEnCurso: boolean; firmadoEn: string; firmante: { nif: string; nombre: string }; pdfFirmado: string }>(res);
    expect(body).toMatchObject({ estadoRepresentacion: 'firmado', firmaEnCurso: false, firmadoEn: GENERADO_EN.toISOString(), firmante: { nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL' } });
    const check = verifyPdfSignature(Buffer.from(body.pdfFirmado, 'base64'));
    expect(check).toMatchObject({ intact: true, coversWholeFile: true, certValidAtSigning: true, problems: [] });
    expect(check.signingTime?.toISOString()).toBe(GENERADO_EN.toISOString());
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'firmado', firmaEnCurso: false, firmadoEn: GENERADO_EN.toISOString(), firmante: { nif: '23456789D' } });
  });

  it('an entity certificate of the issuer itself (organizationIdentifier) is accepted too', async () => {
    const pdf = await generar();
    const certificado = testP12({ cn: 'SELLO TALLERES', entidad: 'B48123459' });
    expect((await firmar({ pdf: pdf.toString('base64'), certificado, password: 'secreta' })).statusCode).toBe(200);
  });

  it('an autónomo signs with their own certificate', async () => {
    await crear(t, anAutonomo());
    const path = '/v1/clientes/34567890V/representacion';
    const pdf = await generar(path);
    const certificado = testP12({ cn: 'FERNANDEZ GOMEZ LAURA - 34567890V', nif: '34567890V' });
    expect((await firmar({ pdf: pdf.toString('base64'), certificado, password: 'secreta' }, path)).statusCode).toBe(200);
    expect((await estado(path)).estadoRepresentacion).toBe('firmado');
  });

  it('refusals: no signature in progress, another pdf, bad base64, wrong password, not a PKCS#12, a stranger’s or an expired certificate', async () => {
    const ok = { certificado: REPRESENTANTE_P12(), password: 'secreta' };
    expectError(await firmar({ pdf: 'JVBERi0=', ...ok }), 409, 'SIGNATURE_NOT_IN_PROGRESS');
    const pdf = (await generar()).toString('base64');
    expectError(await firmar({ pdf: Buffer.from('%PDF-1.7 otro').toString('base64'), ...ok }), 400, 'VALIDATION_ERROR', 'pdf');
    expectError(await firmar({ pdf: 'no es base64!', ...ok }), 400, 'VALIDATION_ERROR', 'pdf');
    expectError(await firmar({ pdf, ...ok, password: 'otra' }), 400, 'VALIDATION_ERROR', 'password');
    expectError(await firmar({ pdf, certificado: Buffer.from('no soy un p12').toString('base64'), password: 'x' }), 400, 'VALIDATION_ERROR', 'certificado');
    const stranger = testP12({ cn: 'GARCIA LOPEZ MARIA - 12345678Z', nif: '12345678Z' });
    expectError(await firmar({ pdf, certificado: stranger, password: 'secreta' }), 400, 'VALIDATION_ERROR', 'certificado');
    const expired = testP12({ cn: 'X', nif: '23456789D', notBefore: new Date('2020-01-01'), notAfter: new Date('2021-01-01') });
    expectError(await firmar({ pdf, certificado: expired, password: 'secreta' }), 400, 'VALIDATION_ERROR', 'certificado');
    expectError(await firmar({ pdf, certificado: REPRESENTANTE_P12() }), 400, 'VALIDATION_ERROR', 'password');
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'en_firma', firmaEnCurso: true });
  });

  it('a new signature while firmado keeps firmado until it completes; the old document is replaced', async () => {
    let pdf = await generar();
    // The first signature must complete (one CI run under load saw the state still en_firma here).
    const primera = await firmar({ pdf: pdf.toString('base64'), certificado: REPRESENTANTE_P12(), password: 'secreta' });
    expect(primera.statusCode, primera.body).toBe(200);
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'firmado', firmaEnCurso: false });
    t.clock.advance(24 * 3600 * 1000);
    pdf = await generar();
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'firmado', firmaEnCurso: true });
    await firmar({ pdf: pdf.toString('base64'), certificado: REPRESENTANTE_P12(), password: 'secreta' });
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'firmado', firmaEnCurso: false, firmadoEn: '2026-03-03T10:15:00.000Z' });
    const rows = t.engine.context.db.statement('SELECT estado FROM representation_documents ORDER BY generadoEn').all();
    expect(rows).toEqual([{ estado: 'sustituido' }, { estado: 'firmado' }]);
  });
});

describe('POST …/verificar {pdfFirmado}', () => {
  const verificar = (pdfFirmado: Buffer, path = base) => t.manage('POST', `${path}/verificar`, { body: { pdfFirmado: pdfFirmado.toString('base64') } });
  const signElsewhere = async (pdf: Uint8Array, certificado = REPRESENTANTE_P12()) =>
    signPdf(pdf, { p12: Buffer.from(certificado, 'base64'), password: 'secreta', name: 'X', reason: 'R', location: 'L', contactInfo: '', signingTime: GENERADO_EN });

  it('a copy signed elsewhere by the representative completes the signature in progress', async () => {
    const signed = await signElsewhere(await generar());
    const res = await verificar(signed);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ valido: true, motivos: [], documentoDelEmisor: true, firmanteAutorizado: true, estadoRepresentacion: 'firmado', firmaEnCurso: false, firmante: { nif: '23456789D' } });
    // Verifying it again changes nothing.
    expect(json(await verificar(signed))).toMatchObject({ valido: true, estadoRepresentacion: 'firmado' });
  });

  it('a signed copy altered afterwards is not valid', async () => {
    const signed = await signElsewhere(await generar());
    const tampered = Buffer.from(signed);
    // One byte of the Info dictionary, inside the signed range: "/Producer" becomes "/Qroducer".
    const at = tampered.indexOf('/Producer');
    expect(at).toBeGreaterThan(0);
    tampered[at + 1] = 0x51;
    const body = expectError(await verificar(tampered), 400, 'SIGNATURE_CRYPTO_INVALID', 'pdfFirmado');
    const details = body.details as { motivos: string[]; estadoRepresentacion: string };
    expect(details.motivos.join(' ')).toMatch(/modificó/);
    expect(body.message).toBe(details.motivos[0]);
    expect(details.estadoRepresentacion).toBe('en_firma');
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'en_firma', firmaEnCurso: true });
  });

  it('content appended after signing is reported', async () => {
    const signed = await signElsewhere(await generar());
    const body = expectError(await verificar(Buffer.concat([signed, Buffer.from('\n% extra\n')])), 400, 'SIGNATURE_CRYPTO_INVALID', 'pdfFirmado');
    expect((body.details as { motivos: string[] }).motivos.join(' ')).toMatch(/no cubre todo/);
  });

  it('a document whose content was changed before signing is not the issuer’s document', async () => {
    const doc = await PDFDocument.load(await generar(), { updateMetadata: false });
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.getPage(0).drawText('Cláusula añadida', { x: 50, y: 100, size: 10, font });
    const signed = await signElsewhere(await doc.save({ useObjectStreams: false }));
    const body = expectError(await verificar(signed), 400, 'SIGNATURE_CONTENT_MISMATCH', 'pdfFirmado');
    expect(body.details).toMatchObject({ documentoDelEmisor: false, estadoRepresentacion: 'en_firma' });
  });

  it('signed by someone else: 400 SIGNATURE_REP_NIF_MISMATCH, nothing changes', async () => {
    const signed = await signElsewhere(await generar(), testP12({ cn: 'OTRO', nif: '12345678Z' }));
    const body = expectError(await verificar(signed), 400, 'SIGNATURE_REP_NIF_MISMATCH', 'pdfFirmado');
    expect(body.details).toMatchObject({ firmanteAutorizado: false, estadoRepresentacion: 'en_firma', firmante: { nif: '12345678Z' } });
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'en_firma' });
  });

  it('the representative’s certificate for another company: 400 SIGNATURE_COMPANY_NIF_MISMATCH', async () => {
    const signed = await signElsewhere(await generar(), testP12({ cn: 'ETXEBERRIA GOIKOETXEA MIKEL - 23456789D', nif: '23456789D', entidad: 'A58818501' }));
    expectError(await verificar(signed), 400, 'SIGNATURE_COMPANY_NIF_MISMATCH', 'pdfFirmado');
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'en_firma' });
  });

  it('another issuer’s document: 400 SIGNATURE_CONTENT_MISMATCH; an unsigned PDF: 400 SIGNATURE_CRYPTO_INVALID', async () => {
    await crear(t, anAutonomo());
    const otherDoc = await generar('/v1/clientes/34567890V/representacion');
    const signed = await signElsewhere(otherDoc, testP12({ cn: 'FERNANDEZ GOMEZ LAURA', nif: '34567890V' }));
    expect(expectError(await verificar(signed), 400, 'SIGNATURE_CONTENT_MISMATCH').details).toMatchObject({ documentoDelEmisor: false, firmanteAutorizado: false });
    const unsigned = expectError(await verificar(await generar()), 400, 'SIGNATURE_CRYPTO_INVALID', 'pdfFirmado');
    expect(unsigned.message).toMatch(/ninguna firma/);
  });
});

describe('DELETE …/firma-en-curso cancels a signature in progress', () => {
  it('en_firma → pendiente; repeated, still 200', async () => {
    await generar();
    const res = await t.manage('DELETE', `${base}/firma-en-curso`);
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ estadoRepresentacion: 'pendiente', firmaEnCurso: false });
    expect((await t.manage('DELETE', `${base}/firma-en-curso`)).statusCode).toBe(200);
    expectError(await t.manage('POST', `${base}/firmar`, { body: { pdf: 'JVBERi0=', certificado: REPRESENTANTE_P12(), password: 'secreta' } }), 409, 'SIGNATURE_NOT_IN_PROGRESS');
  });
  it('a cancelled new signature keeps an earlier firmado', async () => {
    const pdf = await generar();
    await t.manage('POST', `${base}/firmar`, { body: { pdf: pdf.toString('base64'), certificado: REPRESENTANTE_P12(), password: 'secreta' } });
    await generar();
    expect(json(await t.manage('DELETE', `${base}/firma-en-curso`))).toMatchObject({ estadoRepresentacion: 'firmado', firmaEnCurso: false });
  });
  it('the issuer’s data can change after cancelling, and the next document carries it', async () => {
    await generar();
    await t.manage('DELETE', `${base}/firma-en-curso`);
    expect((await t.manage('PATCH', '/v1/clientes/B48123459', { body: { direccion: { ...DIRECCION, calle: 'Calle Ercilla' } } })).statusCode).toBe(200);
    expect(await textOf(await generar())).toContain('Calle Ercilla 1');
  });
});

describe('LIVE issuing opens when estadoRepresentacion is firmado', () => {
  it('403 REPRESENTATION_PENDING before, 200 after signing', async () => {
    expect((await crear(t, anEmpresa(), t.keys.live)).statusCode).toBe(201);
    const emitir = () =>
      t.engine.apps.billing.inject({
        method: 'POST',
        url: '/v1/verifactu/crear',
        headers: { 'x-api-key': t.keys.live },
        payload: aFacturaF1({ emisor: { nif: 'B48123459', nombre: 'TALLERES BILBAO ZAHARRA SL' } }) as object,
      });
    expectError(await emitir(), 403, 'REPRESENTATION_PENDING');
    const live = '/v1/clientes/B48123459/representacion';
    const pdf = await generar(live, t.keys.live);
    expectError(await emitir(), 403, 'REPRESENTATION_PENDING');
    const res = await t.manage('POST', `${live}/firmar`, { key: t.keys.live, body: { pdf: pdf.toString('base64'), certificado: REPRESENTANTE_P12(), password: 'secreta' } });
    expect(res.statusCode, res.body).toBe(200);
    const issued = await emitir();
    expect(issued.statusCode, issued.body).toBe(200);
  });
});
