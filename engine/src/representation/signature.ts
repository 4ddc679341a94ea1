import { createHash, verify as cryptoVerify, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { PDFArray, PDFDocument, PDFName, PDFRawStream, PDFRef, type PDFObject } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { P12Signer } from '@signpdf/signer-p12';
// A named import: the package is CommonJS with `__esModule`, so its default import differs between
// Node (the module object) and bundlers (`exports.default`); the named class is the same in both.
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ADOBE_PKCS7_DETACHED } from '@signpdf/utils';
import { certIdentity, type CertIdentity } from './certificates';

// Signing a PDF with a PKCS#12 (@signpdf: pdf-lib placeholder + P12 signer, adbe.pkcs7.detached,
// SHA-256) and verifying a signed PDF: the CMS signature over the ByteRange, the messageDigest,
// the signer's certificate and its validity at signing time. Whether the signer is trusted (chain
// to a trusted CA, validity now, key usage) is trust.ts's job, from `signerDer` and `certificates`.

export interface SignOptions {
  p12: Buffer;
  password: string;
  name: string;
  reason: string;
  location: string;
  contactInfo: string;
  signingTime: Date;
}

export async function signPdf(pdf: Uint8Array, options: SignOptions): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: options.reason,
    contactInfo: options.contactInfo,
    name: options.name,
    location: options.location,
    signingTime: options.signingTime,
    subFilter: SUBFILTER_ADOBE_PKCS7_DETACHED,
  });
  const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
  const signer = new P12Signer(options.p12, { passphrase: options.password });
  return new SignPdf().sign(prepared, signer, options.signingTime);
}

export const CERT_NOT_VALID_AT_SIGNING = 'El certificado no estaba vigente en el momento de la firma';

export interface SignatureCheck {
  /** Found a signature, its CMS parsed, its digest and RSA/EC signature verify. */
  intact: boolean;
  /** The ByteRange covers the whole file except the signature itself (nothing appended after). */
  coversWholeFile: boolean;
  signingTime?: Date;
  signer?: CertIdentity;
  /** The signer's certificate (DER) and every certificate the CMS carries (the chain, usually). */
  signerDer?: Buffer;
  certificates: Buffer[];
  /** The certificate was inside its validity period when the document was signed. */
  certValidAtSigning: boolean;
  problems: string[];
}

const OID = {
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
};
const HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

type Asn1 = forge.asn1.Asn1;
const children = (node: Asn1 | undefined): Asn1[] => (node && Array.isArray(node.value) ? (node.value as Asn1[]) : []);
const bytesOf = (node: Asn1 | undefined): string => (node && typeof node.value === 'string' ? node.value : '');
const isContext = (node: Asn1, tag: number) => node.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && node.type === tag;

/** The last signature of the PDF: its ByteRange, the signed bytes and the CMS blob. */
function lastSignature(pdf: Buffer): { byteRange: number[]; signedData: Buffer; cms: Buffer } | undefined {
  const at = pdf.lastIndexOf('/ByteRange [');
  if (at < 0) return undefined;
  const end = pdf.indexOf(']', at);
  const m = /\/ByteRange \[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(pdf.subarray(at, end + 1).toString('latin1'));
  if (!m) return undefined;
  const [a, b, c, d] = m.slice(1, 5).map(Number) as [number, number, number, number];
  if (a + b > pdf.length || c + d > pdf.length || c < a + b) return undefined;
  const signedData = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);
  const hex = pdf
    .subarray(a + b, c)
    .toString('latin1')
    .replace(/^</, '')
    .replace(/>$/, '');
  // The zero padding stays: the DER parser reads the CMS's own length (a CMS may end in 00 itself).
  return { byteRange: [a, b, c, d], signedData, cms: Buffer.from(hex, 'hex') };
}

/**
 * `now` stands for the signing time when the CMS does not carry one (PAdES puts it in the
 * signature dictionary instead); without it such a signature is not judged valid at signing.
 */
export function verifyPdfSignature(pdf: Buffer, now?: Date): SignatureCheck {
  const result: SignatureCheck = { intact: false, coversWholeFile: false, certValidAtSigning: false, certificates: [], problems: [] };
  const found = lastSignature(pdf);
  if (!found) {
    result.problems.push('El PDF no contiene ninguna firma');
    return result;
  }
  const [a, , c, d] = found.byteRange as [number, number, number, number];
  result.coversWholeFile = a === 0 && c + d === pdf.length;
  if (!result.coversWholeFile) result.problems.push('La firma no cubre todo el documento (se añadió contenido después de firmar)');
  try {
    // The signature's hex is zero-padded to the placeholder's size: bytes after the CMS are ignored.
    const fromDer = forge.asn1.fromDer as unknown as (bytes: forge.util.ByteStringBuffer, options: { parseAllBytes: boolean }) => forge.asn1.Asn1;
    const root = fromDer(forge.util.createBuffer(found.cms.toString('binary')), { parseAllBytes: false });
    const signedData = children(children(root)[1])[0];
    const parts = children(signedData);
    const certNodes = children(parts.find((p) => isContext(p, 0)));
    const signerInfos = parts[parts.length - 1];
    const signerInfo = children(signerInfos)[0];
    const si = children(signerInfo);
    const serialHex = Buffer.from(bytesOf(children(si[1])[1]), 'binary').toString('hex').replace(/^0+/, '').toUpperCase();
    const digestOid = forge.asn1.derToOid(bytesOf(children(si[2])[0]));
    const hash = HASHES[digestOid];
    const attrsNode = si.find((n) => isContext(n, 0));
    const signatureBytes = Buffer.from(bytesOf(si.find((n) => n.type === forge.asn1.Type.OCTETSTRING && n.tagClass === forge.asn1.Class.UNIVERSAL)), 'binary');
    if (!hash) throw new Error(`algoritmo de resumen no admitido (${digestOid})`);
    if (!attrsNode) throw new Error('la firma no tiene atributos firmados');

    let messageDigest: Buffer | undefined;
    for (const attr of children(attrsNode)) {
      const [oidNode, values] = children(attr);
      const oid = forge.asn1.derToOid(bytesOf(oidNode));
      const value = children(values)[0];
      if (oid === OID.messageDigest) messageDigest = Buffer.from(bytesOf(value), 'binary');
      if (oid === OID.signingTime && value) {
        const text = bytesOf(value);
        result.signingTime = value.type === forge.asn1.Type.UTCTIME ? forge.asn1.utcTimeToDate(text) : forge.asn1.generalizedTimeToDate(text);
      }
    }
    const certDers = certNodes.map((n) => Buffer.from(forge.asn1.toDer(n).getBytes(), 'binary'));
    result.certificates = certDers;
    const certDer =
      certDers.find((der) => new X509Certificate(der).serialNumber.replace(/^0+/, '').toUpperCase() === serialHex) ?? certDers[0];
    if (!certDer) throw new Error('la firma no incluye el certificado del firmante');
    const cert = new X509Certificate(certDer);
    result.signer = certIdentity(certDer);
    result.signerDer = certDer;

    const digest = createHash(hash).update(found.signedData).digest();
    const digestOk = messageDigest !== undefined && messageDigest.equals(digest);
    if (!digestOk) result.problems.push('El documento se modificó después de firmarlo (el resumen no coincide)');
    // The signature is over the DER of the signed attributes as a SET (RFC 5652 §5.4).
    const attrsSet = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SET, true, children(attrsNode));
    const attrsDer = Buffer.from(forge.asn1.toDer(attrsSet).getBytes(), 'binary');
    const signatureOk = cryptoVerify(hash, attrsDer, cert.publicKey, signatureBytes);
    if (!signatureOk) result.problems.push('La firma criptográfica no es válida');
    result.intact = digestOk && signatureOk;

    const at = result.signingTime ?? now;
    result.certValidAtSigning = at !== undefined && at >= new Date(result.signer.validoDesde) && at <= new Date(result.signer.validoHasta);
    if (!at) result.problems.push('La firma no indica cuándo se firmó');
    else if (!result.certValidAtSigning) result.problems.push(CERT_NOT_VALID_AT_SIGNING);
  } catch (error) {
    result.intact = false;
    result.problems.push(`Firma ilegible: ${(error as Error).message}`);
  }
  return result;
}

/** SHA-256 of the pages' content streams, in order: the same text and drawing, whatever the container. */
export async function contentFingerprint(pdf: Uint8Array): Promise<string | undefined> {
  try {
    const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
    const hash = createHash('sha256');
    const feed = (obj: PDFObject | undefined): void => {
      const target = obj instanceof PDFRef ? doc.context.lookup(obj) : obj;
      if (target instanceof PDFRawStream) hash.update(target.contents);
      else if (target instanceof PDFArray) for (const item of target.asArray()) feed(item);
    };
    for (const page of doc.getPages()) {
      hash.update(`page\n`);
      feed(page.node.get(PDFName.of('Contents')));
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  }
}
