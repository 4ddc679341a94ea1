// Independent checks with the openssl CLI: a PKI and a CMS signature produced by openssl (not by
// the engine's libraries) are verified by the engine, and the engine's own signatures verify with
// `openssl cms -verify` against the CA — so neither side only agrees with itself.
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import signpdf from '@signpdf/signpdf';
import { Signer, SUBFILTER_ADOBE_PKCS7_DETACHED } from '@signpdf/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPdf, verifyPdfSignature } from '../../../engine/src/representation/signature';
import { checkSignerTrust } from '../../../engine/src/representation/trust';
import { GENERADO_EN } from '../../fixtures/verifactu';
import { makeCa, makeSigner, toP12, trustedTestCa } from '../../fixtures/representation-pki';
import { anEmpresa, crear, json, makeClientsEngine } from '../clients/helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'rep-openssl-'));
const file = (name: string) => path.join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(() => {
  // A CA and a representative's certificate made by openssl alone.
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '3650', '-keyout', 'ca.key', '-out', 'ca.pem',
    '-subj', '/C=ES/O=OPENSSL PRUEBAS/CN=AC OPENSSL PRUEBAS', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-keyout', 'rep.key', '-out', 'rep.csr',
    '-subj', '/C=ES/serialNumber=IDCES-23456789D/CN=ETXEBERRIA GOIKOETXEA MIKEL - 23456789D');
  writeFileSync(file('rep.ext'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n');
  openssl('x509', '-req', '-in', 'rep.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '365', '-sha256', '-extfile', 'rep.ext', '-out', 'rep.pem');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** @signpdf lays out the PDF; `openssl cms -sign` makes the detached CMS over the ByteRange. */
class OpensslSigner extends Signer {
  override async sign(signedBytes: Buffer): Promise<Buffer> {
    writeFileSync(file('signed-bytes.bin'), signedBytes);
    openssl('cms', '-sign', '-binary', '-md', 'sha256', '-nosmimecap', '-in', 'signed-bytes.bin', '-signer', 'rep.pem', '-inkey', 'rep.key', '-outform', 'DER', '-out', 'cms.der');
    return Promise.resolve(readFileSync(file('cms.der')));
  }
}

async function signWithOpenssl(pdf: Uint8Array): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  pdflibAddPlaceholder({ pdfDoc: doc, reason: 'R', contactInfo: '', name: 'X', location: 'L', subFilter: SUBFILTER_ADOBE_PKCS7_DETACHED });
  return signpdf.sign(Buffer.from(await doc.save({ useObjectStreams: false })), new OpensslSigner());
}

async function somePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('Documento de prueba', { x: 50, y: 700, size: 12, font });
  return doc.save({ useObjectStreams: false });
}

/** The signed bytes and the CMS of a PDF's signature, read here (not with the engine's reader). */
function cmsOf(pdf: Buffer): { content: Buffer; cms: Buffer } {
  const m = /\/ByteRange \[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(pdf.toString('latin1'));
  if (!m) throw new Error('no ByteRange');
  const [a, b, c, d] = m.slice(1, 5).map(Number) as [number, number, number, number];
  const padded = Buffer.from(pdf.subarray(a + b + 1, c - 1).toString('latin1'), 'hex');
  // DER SEQUENCE with a long-form length: the CMS is exactly header + length bytes.
  const lengthBytes = (padded[1] ?? 0) & 0x7f;
  const length = padded.subarray(2, 2 + lengthBytes).reduce((n, byte) => n * 256 + byte, 0);
  return { content: Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]), cms: padded.subarray(0, 2 + lengthBytes + length) };
}

function opensslVerify(pdf: Buffer, caPem: string, at: Date): { ok: boolean; stderr: string } {
  const { content, cms } = cmsOf(pdf);
  writeFileSync(file('content.bin'), content);
  writeFileSync(file('sig.der'), cms);
  writeFileSync(file('trusted-ca.pem'), caPem);
  const res = spawnSync(
    'openssl',
    ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'sig.der', '-content', 'content.bin', '-CAfile', 'trusted-ca.pem', '-purpose', 'any',
      '-attime', String(Math.floor(at.getTime() / 1000)), '-out', path.join(dir, 'out.bin')],
    { cwd: dir, encoding: 'utf8' },
  );
  return { ok: res.status === 0, stderr: res.stderr };
}

describe('a PDF signed by openssl (openssl PKI, openssl cms -sign)', () => {
  it('verifies in the engine: intact, whole file, the openssl CA trusted; refused when that CA is not trusted', async () => {
    const signed = await signWithOpenssl(await somePdf());
    // openssl stamps the real time as signingTime, so this check runs at the real time too.
    const now = new Date();
    const check = verifyPdfSignature(signed, now);
    expect(check).toMatchObject({ intact: true, coversWholeFile: true, certValidAtSigning: true, problems: [] });
    expect(check.signer).toMatchObject({ nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', emisor: 'AC OPENSSL PRUEBAS' });
    const signer = check.signerDer ?? Buffer.alloc(0);
    const input = { signer, others: check.certificates, now, signingTime: check.signingTime ?? now };
    const opensslCa = new X509Certificate(readFileSync(file('ca.pem')));
    expect(checkSignerTrust([opensslCa], input)).toMatchObject({ trusted: true, chain: ['ETXEBERRIA GOIKOETXEA MIKEL - 23456789D', 'AC OPENSSL PRUEBAS'] });
    expect(checkSignerTrust([new X509Certificate(trustedTestCa().pem)], input).problems).toEqual([
      'El certificado no es de confianza: su emisor «AC OPENSSL PRUEBAS» no es una autoridad de certificación admitida',
    ]);
    // Sanity of the independent path: openssl agrees with itself on this file.
    expect(opensslVerify(signed, readFileSync(file('ca.pem'), 'utf8'), now).ok).toBe(true);
  });

  it('completes a representation through POST …/verificar when the engine is configured with the openssl CA (a path)', async () => {
    const t = await makeClientsEngine({ now: new Date().toISOString(), representacionCas: [file('ca.pem')] });
    try {
      expect((await crear(t, anEmpresa())).statusCode).toBe(201);
      const base = '/v1/clientes/B48123459/representacion';
      const pdf = (await t.manage('GET', `${base}/generar`)).rawPayload;
      const signed = await signWithOpenssl(pdf);
      t.clock.set(new Date());
      const res = await t.manage('POST', `${base}/verificar`, { body: { pdfFirmado: signed.toString('base64') } });
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res)).toMatchObject({ valido: true, motivos: [], documentoDelEmisor: true, firmanteAutorizado: true, estadoRepresentacion: 'firmado', firmante: { nif: '23456789D' } });
    } finally {
      await t.close();
    }
  });
});

describe('the engine’s signature checked by openssl cms -verify', () => {
  const ca = trustedTestCa();
  const signer = makeSigner({ cn: 'ETXEBERRIA GOIKOETXEA MIKEL - 23456789D', nif: '23456789D', issuer: ca });
  const sign = async (pdf: Uint8Array) =>
    signPdf(pdf, { p12: Buffer.from(toP12(signer, [ca]), 'base64'), password: 'secreta', name: 'X', reason: 'R', location: 'L', contactInfo: '', signingTime: GENERADO_EN });

  it('verifies against the CA that issued the signer, and only against it', async () => {
    const signed = await sign(await somePdf());
    expect(opensslVerify(signed, ca.pem, GENERADO_EN)).toMatchObject({ ok: true });
    const other = opensslVerify(signed, makeCa({ cn: 'AC AJENA' }).pem, GENERADO_EN);
    expect(other.ok).toBe(false);
    expect(other.stderr).toMatch(/certificate verify error|unable to get local issuer certificate/);
  });

  it('a document signed in TEST with a certificate of the install’s test CA verifies against that CA', async () => {
    const t = await makeClientsEngine({ now: GENERADO_EN.toISOString(), representacionCas: [] });
    try {
      expect((await crear(t, anEmpresa())).statusCode).toBe(201);
      const base = '/v1/clientes/B48123459/representacion';
      const pdf = (await t.manage('GET', `${base}/generar`)).rawPayload;
      const { certificado } = json<{ certificado: string }>(await t.manage('POST', `${base}/certificado-prueba`, { body: { password: 'demo' } }));
      const res = await t.manage('POST', `${base}/firmar`, { body: { pdf: pdf.toString('base64'), certificado, password: 'demo' } });
      expect(res.statusCode, res.body).toBe(200);
      const row = t.engine.context.db.statement("SELECT value FROM settings WHERE key = 'representacionTestCa'").get() as { value: string };
      const installCa = (JSON.parse(row.value) as { certificatePem: string }).certificatePem;
      const signed = Buffer.from(json<{ pdfFirmado: string }>(res).pdfFirmado, 'base64');
      expect(opensslVerify(signed, installCa, GENERADO_EN)).toMatchObject({ ok: true });
      expect(opensslVerify(signed, ca.pem, GENERADO_EN).ok).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('openssl sees the tampering the engine sees', async () => {
    const signed = await sign(await somePdf());
    const tampered = Buffer.from(signed);
    const at = tampered.indexOf('/Producer');
    tampered[at + 1] = 0x51;
    expect(opensslVerify(tampered, ca.pem, GENERADO_EN).ok).toBe(false);
    expect(verifyPdfSignature(tampered, GENERADO_EN).intact).toBe(false);
  });
});
