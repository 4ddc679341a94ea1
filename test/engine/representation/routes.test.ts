// Trust in the representation routes: …/firmar refuses a certificate that does not chain to a
// trusted CA (400 naming `certificado` and why), …/verificar does not take such a signature, LIVE
// trusts only the configured CAs, and TEST signs with the install's own test CA (the demo flow).
import { afterEach, describe, expect, it } from 'vitest';
import { signPdf } from '../../../engine/src/representation/signature';
import { GENERADO_EN } from '../../fixtures/verifactu';
import { makeCa, makeSigner, toP12, trustedTestCa, type SignerOptions } from '../../fixtures/representation-pki';
import { anAutonomo, anEmpresa, crear, expectError, json, makeClientsEngine, type ClientsEngine } from '../clients/helpers';

const base = '/v1/clientes/B48123459/representacion';
const REPRESENTANTE = { cn: 'ETXEBERRIA GOIKOETXEA MIKEL - 23456789D', nif: '23456789D' };
const p12Of = (options: SignerOptions, chain = options.issuer ? [options.issuer] : []) => toP12(makeSigner(options), chain);

let t: ClientsEngine;
afterEach(async () => t.close());

async function engine(options: { representacionCas?: string[] } = {}) {
  t = await makeClientsEngine({ now: GENERADO_EN.toISOString(), ...options });
  expect((await crear(t, anEmpresa())).statusCode).toBe(201);
  expect((await crear(t, anEmpresa(), t.keys.live)).statusCode).toBe(201);
}

async function generar(key?: string): Promise<Buffer> {
  const res = await t.manage('GET', `${base}/generar`, key ? { key } : {});
  expect(res.statusCode, res.body).toBe(200);
  return res.rawPayload;
}

const firmar = async (certificado: string, key?: string, password = 'secreta') =>
  t.manage('POST', `${base}/firmar`, { body: { pdf: (await generar(key)).toString('base64'), certificado, password }, ...(key ? { key } : {}) });

const estado = async (key?: string) => json<{ estadoRepresentacion: string; firmaEnCurso: boolean }>(await t.manage('GET', `${base}/estado`, key ? { key } : {}));

describe('POST …/firmar: the certificate must chain to a trusted CA', () => {
  it('a stranger’s self-signed certificate carrying the representative’s NIF → 400 certificado, saying why', async () => {
    await engine();
    const body = expectError(await firmar(p12Of(REPRESENTANTE)), 400, 'VALIDATION_ERROR', 'certificado');
    expect(body.message).toBe(`El certificado no es de confianza: «${REPRESENTANTE.cn}» es autofirmado y no es una autoridad de certificación admitida`);
    expect(body.errors).toEqual([`certificado: ${String(body.message)}`]);
    expect(await estado()).toMatchObject({ estadoRepresentacion: 'en_firma', firmaEnCurso: true });
  });

  it('a certificate of an untrusted CA → 400 naming that CA; an expired one of the trusted CA → 400 naming the dates', async () => {
    await engine();
    const other = makeCa({ cn: 'AC DESCONOCIDA' });
    expect(expectError(await firmar(p12Of({ ...REPRESENTANTE, issuer: other })), 400, 'VALIDATION_ERROR', 'certificado').message).toMatch(/«AC DESCONOCIDA» es autofirmado y no es una autoridad/);
    const expired = p12Of({ ...REPRESENTANTE, issuer: trustedTestCa(), notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
    expect(expectError(await firmar(expired), 400, 'VALIDATION_ERROR', 'certificado').message).toMatch(/había caducado en la fecha de verificación .*fue válido hasta 2021-01-01/);
    const cannotSign = p12Of({ ...REPRESENTANTE, issuer: trustedTestCa(), keyUsage: { keyEncipherment: true } });
    expect(expectError(await firmar(cannotSign), 400, 'VALIDATION_ERROR', 'certificado').message).toMatch(/no sirve para firmar/);
  });

  it('a certificate of the trusted CA is accepted: firmado', async () => {
    await engine();
    const res = await firmar(p12Of({ ...REPRESENTANTE, issuer: trustedTestCa() }));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ estadoRepresentacion: 'firmado', firmante: { nif: '23456789D', emisor: 'AC PRUEBAS TPV' } });
  });

  it('with no CA configured, LIVE trusts nobody: even a well-formed CA certificate is refused', async () => {
    await engine({ representacionCas: [] });
    const res = await firmar(p12Of({ ...REPRESENTANTE, issuer: trustedTestCa() }), t.keys.live);
    expect(expectError(res, 400, 'VALIDATION_ERROR', 'certificado').message).toMatch(/«AC PRUEBAS TPV» es autofirmado y no es una autoridad/);
    expect(await estado(t.keys.live)).toMatchObject({ estadoRepresentacion: 'en_firma' });
  });
});

describe('POST …/verificar: an untrusted or expired signer does not complete the signature', () => {
  const signElsewhere = (pdf: Uint8Array, certificado: string, signingTime = GENERADO_EN) =>
    signPdf(pdf, { p12: Buffer.from(certificado, 'base64'), password: 'secreta', name: 'X', reason: 'R', location: 'L', contactInfo: '', signingTime });
  const verificar = (pdf: Buffer) => t.manage('POST', `${base}/verificar`, { body: { pdfFirmado: pdf.toString('base64') } });

  it('self-signed with the representative’s NIF: 400 SIGNATURE_UNTRUSTED_CA, the reason in motivos', async () => {
    await engine();
    const signed = await signElsewhere(await generar(), p12Of(REPRESENTANTE));
    const body = expectError(await verificar(signed), 400, 'SIGNATURE_UNTRUSTED_CA', 'pdfFirmado');
    expect(body.details).toMatchObject({ firmanteAutorizado: false, documentoDelEmisor: true, estadoRepresentacion: 'en_firma', firmaEnCurso: true });
    expect((body.details as { motivos: string[] }).motivos).toEqual([`El certificado no es de confianza: «${REPRESENTANTE.cn}» es autofirmado y no es una autoridad de certificación admitida`]);
    // Of an unknown CA: the same code.
    const other = makeCa({ cn: 'AC DESCONOCIDA' });
    expectError(await verificar(await signElsewhere(await generar(), p12Of({ ...REPRESENTANTE, issuer: other }))), 400, 'SIGNATURE_UNTRUSTED_CA');
  });

  it('signed while the certificate was valid, verified after it expired: refused (no long-term validation here)', async () => {
    await engine();
    const signer = p12Of({ ...REPRESENTANTE, issuer: trustedTestCa(), notAfter: new Date('2026-04-01T00:00:00Z') });
    const signed = await signElsewhere(await generar(), signer);
    t.clock.set('2026-05-01T00:00:00Z');
    const body = expectError(await verificar(signed), 400, 'SIGNATURE_INVALID', 'pdfFirmado');
    expect(body.details).toMatchObject({ estadoRepresentacion: 'en_firma' });
    expect((body.details as { motivos: string[] }).motivos).toEqual(['El certificado del firmante había caducado en la fecha de verificación (2026-05-01T00:00:00.000Z): fue válido hasta 2026-04-01T00:00:00.000Z']);
  });

  it('a signature dated after now is refused', async () => {
    await engine();
    const signed = await signElsewhere(await generar(), p12Of({ ...REPRESENTANTE, issuer: trustedTestCa() }), new Date(GENERADO_EN.getTime() + 24 * 3600_000));
    const body = expectError(await verificar(signed), 400, 'SIGNATURE_INVALID', 'pdfFirmado');
    expect((body.details as { motivos: string[] }).motivos).toEqual(['La fecha de firma (2026-03-03T10:15:00.000Z) es posterior a la fecha actual (2026-03-02T10:15:00.000Z)']);
  });
});

describe('TEST: the install’s test CA and POST …/certificado-prueba (the demo flow)', () => {
  const certificadoPrueba = (key?: string, body: unknown = { password: 'demo' }, path = base) =>
    t.manage('POST', `${path}/certificado-prueba`, { body, ...(key ? { key } : {}) });

  it('issues a PKCS#12 for the company’s legal representative that …/firmar accepts without any CA configured', async () => {
    await engine({ representacionCas: [] });
    const res = await certificadoPrueba();
    expect(res.statusCode, res.body).toBe(200);
    const issued = json<{ nif: string; certificado: string; titular: { nif: string; nombre: string; emisor: string }; entorno: string }>(res);
    expect(issued).toMatchObject({ nif: 'B48123459', entorno: 'test', titular: { nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL' } });
    expect(issued.titular.emisor).toMatch(/AC de PRUEBAS de esta instalacion/);
    const signed = await firmar(issued.certificado, undefined, 'demo');
    expect(signed.statusCode, signed.body).toBe(200);
    expect(json(signed)).toMatchObject({ estadoRepresentacion: 'firmado', firmante: { nif: '23456789D', emisor: issued.titular.emisor } });
  });

  it('an autónomo’s certificate names the issuer; the install keeps one CA for every certificate', async () => {
    await engine({ representacionCas: [] });
    await crear(t, anAutonomo());
    const path = '/v1/clientes/34567890V/representacion';
    const a = json<{ titular: { nif: string; emisor: string } }>(await certificadoPrueba(undefined, { password: 'demo' }, path));
    const b = json<{ titular: { nif: string; emisor: string; numeroSerie: string } }>(await certificadoPrueba());
    expect(a.titular.nif).toBe('34567890V');
    expect(b.titular.emisor).toBe(a.titular.emisor);
    const cas = t.engine.context.db.statement("SELECT count(*) AS n FROM settings WHERE key = 'representacionTestCa'").get();
    expect(cas).toEqual({ n: 1 });
  });

  it('LIVE: no such route (404), and a certificate of the test CA does not open LIVE issuing', async () => {
    await engine();
    expectError(await certificadoPrueba(t.keys.live), 404, 'NOT_FOUND');
    const issued = json<{ certificado: string }>(await certificadoPrueba());
    const res = await firmar(issued.certificado, t.keys.live, 'demo');
    expect(expectError(res, 400, 'VALIDATION_ERROR', 'certificado').message).toMatch(/no es de confianza/);
    expect(await estado(t.keys.live)).toMatchObject({ estadoRepresentacion: 'en_firma' });
  });

  it('a body without password → 400 password; an unknown issuer → 404', async () => {
    await engine();
    expectError(await certificadoPrueba(undefined, {}), 400, 'VALIDATION_ERROR', 'password');
    expectError(await certificadoPrueba(undefined, { password: 'x' }, '/v1/clientes/44444444A/representacion'), 404, 'NOT_FOUND');
  });
});
