import { createHash, X509Certificate } from 'node:crypto';
import type { EstadoRepresentacion } from '../../../src-shared/api/clientes';
import type { Entorno } from '../../../src-shared/api/common';
import type { ClientService, Who } from '../clients/service';
import type { ClientRecord, IssuerStore } from '../clients/store';
import { direccionOf, estadoRepresentacion, representanteOf } from '../clients/views';
import type { Database } from '../db/database';
import { EngineError, notFound, validation } from '../core/errors';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import { certIdentity, openPkcs12, Pkcs12Error, type CertIdentity } from './certificates';
import { documentIdOf, renderRepresentationPdf, type RepresentationData } from './document';
import { CERT_NOT_VALID_AT_SIGNING, contentFingerprint, signPdf, verifyPdfSignature } from './signature';
import type { RepresentationDocument, RepresentationStore } from './store';
import { InstallTestCa } from './test-ca';
import { loadTrustAnchors, TrustStore } from './trust';

export const signatureNotInProgress = () =>
  new EngineError(409, 'SIGNATURE_NOT_IN_PROGRESS', 'No hay ninguna firma en curso: genere el documento (GET …/representacion/generar) antes de firmarlo');

/**
 * Why a signed document is not taken, as the hosted service's codes (its clients branch on them).
 * SIGNATURE_REVOKED is part of the catalogue but never answered here: the engine has no
 * revocation data offline (docs/api-contract.md).
 */
export type SignatureRefusalCode =
  | 'SIGNATURE_CRYPTO_INVALID'
  | 'SIGNATURE_UNTRUSTED_CA'
  | 'SIGNATURE_REVOKED'
  | 'SIGNATURE_CONTENT_MISMATCH'
  | 'SIGNATURE_COMPANY_NIF_MISMATCH'
  | 'SIGNATURE_REP_NIF_MISMATCH'
  | 'SIGNATURE_INVALID';

export const signatureRefused = (code: SignatureRefusalCode, motivos: string[], details: Record<string, unknown>) =>
  new EngineError(400, code, motivos[0] ?? 'La firma del documento no es válida', {
    campo: 'pdfFirmado',
    errors: motivos.map((m) => `pdfFirmado: ${m}`),
    details: { motivos, ...details },
  });

export const missingDocumentFields = (camposFaltantes: string[]) =>
  new EngineError(400, 'VALIDATION_ERROR', `Faltan datos para el documento de representación: ${camposFaltantes.join(', ')}`, {
    campo: camposFaltantes[0] ?? 'cliente',
    errors: camposFaltantes.map((c) => `${c}: required`),
    camposFaltantes,
  });

export interface RepresentationStatus {
  nif: string;
  estadoRepresentacion: EstadoRepresentacion;
  firmaEnCurso: boolean;
  documentoGeneradoEn?: string;
  firmadoEn?: string;
  firmante?: Firmante;
  entorno: Entorno;
}

type Firmante = Omit<CertIdentity, 'nifs'>;

function firmanteView(identity: CertIdentity): Firmante {
  const { nifs: _nifs, ...rest } = identity;
  return rest;
}

function decodeBase64(value: string, campo: string): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    throw validation(campo, `${campo} debe ir en base64`);
  }
  return Buffer.from(compact, 'base64');
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The representation document of an issuer (API-CONTRACT: representation endpoints).
 * `estadoRepresentacion`: pendiente → (generar) en_firma → (firmar | verificar) firmado;
 * cancelling a signature in progress goes back to pendiente, or keeps firmado when an earlier
 * document is signed. While a signature is in progress the document fields of the issuer are
 * locked (SIGNING_IN_PROGRESS on PATCH), so the document signed is the data on file.
 */
export class RepresentationService {
  private readonly testCa: InstallTestCa;
  private readonly trust: TrustStore;

  constructor(
    private readonly deps: {
      db: Database;
      issuers: IssuerStore;
      clients: ClientService;
      store: RepresentationStore;
      clock: Clock;
      ids: IdGenerator;
      softwareName: string;
      /** Trusted CA certificates (PEM text or paths, config `representacionCas`); none by default. */
      cas?: readonly string[] | undefined;
    },
  ) {
    this.testCa = new InstallTestCa(deps.db, deps.clock, deps.ids);
    // Read at start-up: a wrong entry stops the engine rather than silently trusting less.
    this.trust = new TrustStore(loadTrustAnchors(deps.cas ?? []), () => this.testCa.existing());
  }

  status(who: Who, nif: string): RepresentationStatus {
    return this.statusOf(this.deps.clients.find(who, nif), who.entorno);
  }

  private statusOf(record: ClientRecord, entorno: Entorno): RepresentationStatus {
    const inProgress = this.deps.store.inProgress(record.issuer.id);
    const signed = this.deps.store.signed(record.issuer.id);
    const firmante = signed?.firmante ? (JSON.parse(signed.firmante) as Firmante) : undefined;
    return {
      nif: record.issuer.nif,
      estadoRepresentacion: estadoRepresentacion(record.issuer.estadoRepresentacion),
      firmaEnCurso: inProgress !== undefined,
      ...(inProgress ? { documentoGeneradoEn: inProgress.generadoEn } : {}),
      ...(signed?.firmadoEn ? { firmadoEn: signed.firmadoEn } : {}),
      ...(firmante ? { firmante } : {}),
      entorno,
    };
  }

  /** What the document needs and the issuer lacks (paths as in the client's fields). */
  camposFaltantes(record: ClientRecord): string[] {
    const missing: string[] = [];
    if (record.details.tipoUsuario === null) missing.push('tipoUsuario');
    if (!direccionOf(record)) missing.push('direccion');
    if (record.details.tipoUsuario === 'empresa') {
      const r = representanteOf(record);
      if (!r) missing.push('representante');
      else if (!r.direccion) missing.push('representante.direccion');
    }
    return missing;
  }

  /**
   * GET …/generar: the document to sign. Starts a signature (the document fields lock) or, when
   * one is already in progress, returns that same document.
   */
  async generate(who: Who, nif: string): Promise<{ pdf: Uint8Array; documento: RepresentationDocument }> {
    const record = this.deps.clients.find(who, nif);
    const current = this.deps.store.inProgress(record.issuer.id);
    if (current) return { pdf: current.pdf, documento: current };
    const faltan = this.camposFaltantes(record);
    if (faltan.length > 0) throw missingDocumentFields(faltan);
    const now = this.deps.clock.now();
    const documentoId = this.deps.ids.next('rep');
    const pdf = await renderRepresentationPdf(this.documentData(record, who, documentoId, now));
    return this.deps.db.transaction(() => {
      // Another request may have started one meanwhile: there is never more than one.
      const raced = this.deps.store.inProgress(record.issuer.id);
      if (raced) return { pdf: raced.pdf, documento: raced };
      const fresh = this.deps.clients.find(who, nif);
      const documento: RepresentationDocument = {
        id: documentoId,
        issuerId: fresh.issuer.id,
        estado: 'en_curso',
        pdf,
        sha256: sha256(pdf),
        generadoEn: now.toISOString(),
        pdfFirmado: null,
        firmadoEn: null,
        metodoFirma: null,
        firmante: null,
        finalizadoEn: null,
      };
      this.deps.store.insert(documento);
      if (estadoRepresentacion(fresh.issuer.estadoRepresentacion) === 'pendiente') {
        this.deps.issuers.updateIssuer(fresh.issuer.id, { estadoRepresentacion: 'en_firma', ultimaModificacion: now.toISOString() });
      }
      return { pdf, documento };
    });
  }

  private documentData(record: ClientRecord, who: Who, documentoId: string, fecha: Date): RepresentationData {
    const direccion = direccionOf(record);
    const representante = representanteOf(record);
    if (!direccion || record.details.tipoUsuario === null) throw missingDocumentFields(this.camposFaltantes(record));
    return {
      documentoId,
      hacienda: record.issuer.hacienda,
      otorgante: {
        nif: record.issuer.nif,
        nombre: record.issuer.nombre,
        tipoUsuario: record.details.tipoUsuario,
        direccion,
        ...(record.details.epigrafeIAE ? { epigrafeIAE: record.details.epigrafeIAE } : {}),
      },
      ...(record.details.tipoUsuario === 'empresa' && representante?.direccion
        ? { representanteLegal: { nif: representante.nif, nombre: representante.nombre, direccion: representante.direccion } }
        : {}),
      apoderado: { nif: who.account.nif, nombre: who.account.nombre },
      software: this.deps.softwareName,
      fecha,
    };
  }

  /** NIFs whose certificate may sign: the issuer's own, and for a company its legal representative's. */
  private authorizedSigners(record: ClientRecord): string[] {
    const r = representanteOf(record);
    return [record.issuer.nif, ...(r ? [r.nif] : [])];
  }

  /** POST …/firmar: signs the document in progress with the PKCS#12 given; LIVE issuing opens. */
  async sign(who: Who, nif: string, body: { pdf: string; certificado: string; password: string }) {
    const record = this.deps.clients.find(who, nif);
    const documento = this.deps.store.inProgress(record.issuer.id);
    if (!documento) throw signatureNotInProgress();
    const pdf = decodeBase64(body.pdf, 'pdf');
    if (sha256(pdf) !== documento.sha256) {
      throw validation('pdf', 'pdf no es el documento de representación en firma: envíe el que devolvió …/generar sin modificar');
    }
    const p12 = decodeBase64(body.certificado, 'certificado');
    let opened: ReturnType<typeof openPkcs12>;
    try {
      opened = openPkcs12(p12, body.password);
    } catch (error) {
      if (error instanceof Pkcs12Error) throw validation(error.campo, error.message);
      throw error;
    }
    const { identity } = opened;
    const now = this.deps.clock.now();
    const verdict = this.trust.check(who.entorno, { signer: opened.der, others: opened.others, now, signingTime: now });
    if (!verdict.trusted) {
      throw validation('certificado', verdict.problems.join('. '), verdict.problems.map((p) => `certificado: ${p}`));
    }
    const allowed = this.authorizedSigners(record);
    if (!identity.nifs.some((n) => allowed.includes(n))) {
      throw validation('certificado', `El certificado no es del emisor ni de su representante (NIF admitidos: ${allowed.join(', ')})`);
    }
    const pdfFirmado = await signPdf(pdf, {
      p12,
      password: body.password,
      name: identity.nombre,
      reason: 'Otorgamiento de representación',
      location: direccionOf(record)?.ciudad ?? '',
      contactInfo: record.details.email ?? '',
      signingTime: now,
    });
    const firmadoEn = now.toISOString();
    this.complete(record, documento, { pdfFirmado, firmadoEn, metodo: 'firmar', firmante: identity });
    return {
      ...this.statusOf(this.deps.clients.find(who, nif), who.entorno),
      firmadoEn,
      firmante: firmanteView(identity),
      pdfFirmado: pdfFirmado.toString('base64'),
    };
  }

  private complete(
    record: ClientRecord,
    documento: RepresentationDocument,
    signed: { pdfFirmado: Buffer; firmadoEn: string; metodo: 'firmar' | 'verificar'; firmante: CertIdentity },
  ): void {
    this.deps.db.transaction(() => {
      const still = this.deps.store.inProgress(record.issuer.id);
      if (!still || still.id !== documento.id) throw signatureNotInProgress();
      this.deps.store.supersedeSigned(record.issuer.id, signed.firmadoEn);
      this.deps.store.update(documento.id, {
        estado: 'firmado',
        pdfFirmado: signed.pdfFirmado,
        firmadoEn: signed.firmadoEn,
        metodoFirma: signed.metodo,
        firmante: JSON.stringify(firmanteView(signed.firmante)),
        finalizadoEn: signed.firmadoEn,
      });
      this.deps.issuers.updateIssuer(record.issuer.id, { estadoRepresentacion: 'firmado', ultimaModificacion: signed.firmadoEn });
    });
  }

  /**
   * POST …/verificar: checks a signed copy (signed here or elsewhere, e.g. with AutoFirma). When
   * it is valid, is this issuer's document in progress with its content unchanged, and the
   * signer is the issuer or its representative, the signature is completed (firmado).
   */
  async verify(who: Who, nif: string, body: { pdfFirmado: string }) {
    const record = this.deps.clients.find(who, nif);
    const bytes = decodeBase64(body.pdfFirmado, 'pdfFirmado');
    const now = this.deps.clock.now();
    const check = verifyPdfSignature(bytes, now);
    const verdict = check.signerDer
      ? this.trust.check(who.entorno, { signer: check.signerDer, others: check.certificates, now, signingTime: check.signingTime ?? now })
      : undefined;
    // The trust check judges validity at signing time too, naming the certificate: no repeat.
    const motivos = [...check.problems.filter((p) => !(verdict && p === CERT_NOT_VALID_AT_SIGNING)), ...(verdict?.problems ?? [])];
    const documentoId = await documentIdOf(bytes);
    const documento = documentoId ? this.deps.store.get(documentoId) : undefined;
    let documentoDelEmisor = documento !== undefined && documento.issuerId === record.issuer.id;
    if (documento && documentoDelEmisor) {
      const [signedContent, originalContent] = await Promise.all([contentFingerprint(bytes), contentFingerprint(documento.pdf)]);
      if (signedContent === undefined || signedContent !== originalContent) {
        documentoDelEmisor = false;
        motivos.push('El contenido firmado no es el del documento generado');
      }
    } else {
      motivos.push('No es un documento de representación generado para este emisor');
    }
    const allowed = this.authorizedSigners(record);
    // An untrusted certificate proves no NIF: its holder is not taken as authorised.
    const trusted = verdict?.trusted === true;
    const nifAdmitido = check.signer !== undefined && check.signer.nifs.some((n) => allowed.includes(n));
    const firmanteAutorizado = trusted && nifAdmitido;
    if (check.signer && !nifAdmitido) motivos.push('El firmante no es el emisor ni su representante');
    const valido = check.intact && check.coversWholeFile && check.certValidAtSigning && trusted;
    const refusal = refusalOf({ check, verdict, documentoDelEmisor, nifAdmitido, issuerNif: record.issuer.nif });
    if (refusal) {
      const status = this.statusOf(record, who.entorno);
      throw signatureRefused(refusal, motivos, {
        ...(check.signer ? { firmante: firmanteView(check.signer) } : {}),
        documentoDelEmisor,
        firmanteAutorizado,
        estadoRepresentacion: status.estadoRepresentacion,
        firmaEnCurso: status.firmaEnCurso,
      });
    }

    if (valido && documentoDelEmisor && firmanteAutorizado && documento && check.signer) {
      if (documento.estado === 'en_curso') {
        this.complete(record, documento, {
          pdfFirmado: bytes,
          firmadoEn: (check.signingTime ?? now).toISOString(),
          metodo: 'verificar',
          firmante: check.signer,
        });
      } else if (documento.estado !== 'firmado') {
        motivos.push(`El documento está ${documento.estado}: genere uno nuevo`);
      }
    }
    const status = this.statusOf(this.deps.clients.find(who, nif), who.entorno);
    return {
      valido,
      motivos,
      ...(check.signer ? { firmante: firmanteView(check.signer) } : {}),
      ...(check.signingTime ? { firmadoEn: check.signingTime.toISOString() } : {}),
      documentoDelEmisor,
      firmanteAutorizado,
      estadoRepresentacion: status.estadoRepresentacion,
      firmaEnCurso: status.firmaEnCurso,
      entorno: who.entorno,
    };
  }

  /**
   * POST …/certificado-prueba (TEST only): a PKCS#12 issued by the install's test CA for whoever
   * signs this issuer's document — the legal representative of a company, else the issuer — so
   * the demo flow can sign. LIVE never trusts that CA, and has no such route.
   */
  issueTestCertificate(who: Who, nif: string, body: { password: string }) {
    if (who.entorno !== 'test') throw notFound('Los certificados de pruebas solo existen en TEST');
    const record = this.deps.clients.find(who, nif);
    const representante = representanteOf(record);
    const titular =
      record.details.tipoUsuario === 'empresa' && representante
        ? { nif: representante.nif, nombre: representante.nombre }
        : { nif: record.issuer.nif, nombre: record.issuer.nombre };
    const issued = this.testCa.issue({ ...titular, password: body.password });
    return {
      nif: record.issuer.nif,
      certificado: issued.pkcs12.toString('base64'),
      titular: firmanteView(certIdentity(Buffer.from(new X509Certificate(issued.certificatePem).raw))),
      entorno: who.entorno,
    };
  }

  /** DELETE …/firma-en-curso: cancels it (idempotent); the document fields unlock. */
  cancel(who: Who, nif: string): RepresentationStatus {
    return this.deps.db.transaction(() => {
      const record = this.deps.clients.find(who, nif);
      const now = this.deps.clock.now().toISOString();
      if (this.deps.store.cancelInProgress(record.issuer.id, now) && estadoRepresentacion(record.issuer.estadoRepresentacion) === 'en_firma') {
        this.deps.issuers.updateIssuer(record.issuer.id, { estadoRepresentacion: 'pendiente', ultimaModificacion: now });
      }
      return this.statusOf(this.deps.clients.find(who, nif), who.entorno);
    });
  }
}

/**
 * The code of a document that is not taken (null: it is): the signature itself first (none, broken,
 * or the file changed after signing), then trust (no path to a trusted CA; otherwise not valid:
 * dates, key usage), then what was signed (the issuer's generated document) and by whom (the
 * entity of a representative's certificate, then the person).
 */
function refusalOf(input: {
  check: ReturnType<typeof verifyPdfSignature>;
  verdict: { trusted: boolean; anchored: boolean } | undefined;
  documentoDelEmisor: boolean;
  nifAdmitido: boolean;
  issuerNif: string;
}): SignatureRefusalCode | null {
  const { check, verdict } = input;
  if (!check.intact || !check.coversWholeFile || !verdict) return 'SIGNATURE_CRYPTO_INVALID';
  if (!verdict.anchored) return 'SIGNATURE_UNTRUSTED_CA';
  if (!verdict.trusted || !check.certValidAtSigning) return 'SIGNATURE_INVALID';
  if (!input.documentoDelEmisor) return 'SIGNATURE_CONTENT_MISMATCH';
  const signer = check.signer;
  if (!signer) return 'SIGNATURE_INVALID';
  // A representative-of-entity certificate names the company too: it must be this issuer.
  const entidades = signer.nifs.filter((n) => n !== signer.nif);
  if (entidades.length > 0 && !entidades.includes(input.issuerNif)) return 'SIGNATURE_COMPANY_NIF_MISMATCH';
  if (!input.nifAdmitido) return 'SIGNATURE_REP_NIF_MISMATCH';
  return null;
}
