// XAdES-EPES enveloped signature of TicketBAI documents (TicketBAI_Politica_firma_1_0: enveloped
// only; SigningTime, SigningCertificate and SignaturePolicyIdentifier mandatory; RSA > 1024 bits,
// SHA-256). The structure copies the official signed Gipuzkoa examples: a ds:Signature appended
// as the root's last child, three references (the document, the SignedProperties, the KeyInfo),
// KeyInfo with the certificate and its RSAKeyValue, and one ds:Object with QualifyingProperties.
// Two deliberate differences: SHA-256 digests (the examples use SHA-512), and the document
// reference lists enveloped-signature BEFORE c14n (xmlsec1 1.2.37 cannot verify the other order).
//
// Performance. xml-crypto's computeSignature costs ≈ 8 ms per invoice: it parses the document,
// finds every target with XPath, canonicalizes by cloning DOM subtrees, parses its own output
// again and reserializes the whole document. The RSA-2048 signature itself costs ≈ 0.3 ms.
// signTicketBai therefore builds the signature as text:
//   - the document digest: one xmldom parse + xml-crypto's C14N of the root, or nothing at all
//     when the caller passes `canonicalInput` (xml.ts emits its documents in C14N form already,
//     so their digest is the SHA-256 of the string);
//   - SignedProperties, KeyInfo and SignedInfo are written directly in canonical form: their
//     inherited namespace declarations are known (the root's, ds, xades), and everything that
//     depends only on the certificate (KeyInfo content, SigningCertificate) is built once per
//     certificate;
//   - the canonical SignedInfo is signed with node:crypto and a KeyObject parsed once per key;
//   - the Signature is spliced in before the root's end tag: no reserialization.
// signTicketBaiXmlCrypto is the same signature produced by xml-crypto's own computeSignature; the
// tests check that both give the same SignatureValue (RSA PKCS#1 v1.5 is deterministic) and that
// both verify with xmlsec1 and with xml-crypto.
import { createHash, createPrivateKey, sign as rsaSign, X509Certificate, type KeyObject } from 'node:crypto';
import { DOMParser, type Document as XDocument, type Element as XElement, type Node as XNode } from '@xmldom/xmldom';
import {
  C14nCanonicalization,
  C14nCanonicalizationWithComments,
  ExclusiveCanonicalization,
  ExclusiveCanonicalizationWithComments,
  SignedXml,
} from 'xml-crypto';
import { fechaHoraHusoGenRegistro } from '../../../issuing/fecha-hora';
import type { PoliticaFirma } from '../politicas';
import { escapeTexto } from './xml';

export const NS_DS = 'http://www.w3.org/2000/09/xmldsig#';
export const NS_XADES = 'http://uri.etsi.org/01903/v1.3.2#';
export const ALG_C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const ALG_ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const ALG_RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const ALG_SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const ALG_XPATH = 'http://www.w3.org/TR/1999/REC-xpath-19991116';
export const TYPE_SIGNED_PROPERTIES = 'http://uri.etsi.org/01903#SignedProperties';
/** DataObjectFormat/ObjectIdentifier of the official examples. */
const OID_OBJETO = 'urn:oid:1.2.840.10003.5.109.10';

// ---------------------------------------------------------------- xml-crypto fixes

// xml-crypto 6.3.2 sorts namespace declarations with localeCompare, which puts "ds" before "T";
// C14N orders them by code point ("T" < "ds"), as xmlsec1/libxml2 do. With the library's order
// the digest of every TicketBAI document (prefix T) is wrong, the official examples included.
function compareCodePoint(a: { prefix: string }, b: { prefix: string }): number {
  return a.prefix === b.prefix ? 0 : a.prefix < b.prefix ? -1 : 1;
}
export class C14nTbai extends C14nCanonicalization {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return compareCodePoint(a, b);
  }
}
class C14nTbaiWithComments extends C14nCanonicalizationWithComments {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return compareCodePoint(a, b);
  }
}
class ExcC14nTbai extends ExclusiveCanonicalization {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return compareCodePoint(a, b);
  }
}
class ExcC14nTbaiWithComments extends ExclusiveCanonicalizationWithComments {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return compareCodePoint(a, b);
  }
}

/**
 * The XPath transform of the official examples, `not(ancestor-or-self::ds:Signature)`: drops every
 * ds:Signature. xml-crypto has no XPath transform; verifyTicketBai checks the expression first.
 */
class XPathSinFirma {
  process(node: XNode): XNode {
    const fuera: XElement[] = [];
    const walk = (n: XNode): void => {
      for (let c = n.firstChild; c !== null; c = c.nextSibling) {
        if (c.nodeType !== 1) continue;
        const e = c as XElement;
        if (e.localName === 'Signature' && e.namespaceURI === NS_DS) fuera.push(e);
        else walk(e);
      }
    };
    walk(node);
    for (const e of fuera) e.parentNode?.removeChild(e);
    return node;
  }
  getAlgorithmName(): string {
    return ALG_XPATH;
  }
}

function usarAlgoritmosTbai(sx: SignedXml): SignedXml {
  const algs = sx.CanonicalizationAlgorithms as Record<string, unknown>;
  algs[ALG_C14N] = C14nTbai;
  algs['http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments'] = C14nTbaiWithComments;
  algs['http://www.w3.org/2001/10/xml-exc-c14n#'] = ExcC14nTbai;
  algs['http://www.w3.org/2001/10/xml-exc-c14n#WithComments'] = ExcC14nTbaiWithComments;
  algs[ALG_XPATH] = XPathSinFirma;
  return sx;
}

// ---------------------------------------------------------------- options and caches

export interface SignTicketBaiOptions {
  privateKeyPem: string;
  certificatePem: string;
  /** Intermediate certificates, added to X509Data after the signing certificate. */
  chainPem?: readonly string[] | undefined;
  policy: PoliticaFirma;
  signingTime: Date;
  /** Zone of SigningTime (Europe/Madrid by default). */
  zona?: string | undefined;
  /**
   * Token of the Id attributes (Signature-{token}-Signature, Reference-{token}…): letters, digits
   * and "-". Default: derived from the document digest, so signing is deterministic.
   */
  ids?: { token: string } | undefined;
  /**
   * The caller guarantees `xml` is already its own inclusive C14N (as the builders of xml.ts emit
   * it): the document is digested as text, without a DOM. Wrong input makes a signature that no
   * one can verify, so only the builders' output should be passed with this flag.
   */
  canonicalInput?: boolean | undefined;
}

export interface SignedTicketBai {
  signedXml: string;
  /** Base64 SignatureValue: its first 13 characters go into the identifier, 100 into the chain. */
  signatureValue: string;
}

interface IdsFirma {
  signature: string;
  reference: string;
  signedProperties: string;
  keyInfo: string;
  signatureValue: string;
  qualifyingProperties: string;
}

/** What depends only on the certificate (and chain): computed once. */
interface Certificado {
  /** KeyInfo content: X509Data + KeyValue. */
  keyInfoContent: string;
  /** xades:SigningCertificate element. */
  signingCertificate: string;
}

// Small bounded caches: an install signs with one or a few certificates.
const MAX_CACHE = 32;
const certificados = new Map<string, Certificado>();
const clavesPrivadas = new Map<string, KeyObject>();
const politicas = new WeakMap<PoliticaFirma, string>();

function cachePut<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= MAX_CACHE) map.clear();
  map.set(key, value);
  return value;
}

function base64DePem(pem: string): string {
  const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem);
  if (m === null) throw new Error('not a PEM certificate');
  return (m[1] ?? '').replace(/\s+/g, '');
}

function base64DeBase64Url(s: string): string {
  const b = s.replace(/-/g, '+').replace(/_/g, '/');
  return b + '='.repeat((4 - (b.length % 4)) % 4);
}

/**
 * X509IssuerName as RFC 4514 (most specific RDN first, comma-separated). Node prints the issuer
 * one attribute per line, least specific first, already escaped per RFC 2253.
 */
export function nombreEmisorRfc4514(x509: X509Certificate): string {
  return x509.issuer.split('\n').reverse().join(',');
}

function certificado(certificatePem: string, chainPem: readonly string[] | undefined): Certificado {
  const key = chainPem === undefined || chainPem.length === 0 ? certificatePem : certificatePem + '\n' + chainPem.join('\n');
  const cached = certificados.get(key);
  if (cached !== undefined) return cached;
  const x509 = new X509Certificate(certificatePem);
  const jwk = x509.publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'RSA' || jwk.n === undefined || jwk.e === undefined) throw new Error('TicketBAI signatures need an RSA certificate');
  let x509Data = '<ds:X509Data><ds:X509Certificate>' + base64DePem(certificatePem) + '</ds:X509Certificate>';
  for (const c of chainPem ?? []) x509Data += '<ds:X509Certificate>' + base64DePem(c) + '</ds:X509Certificate>';
  x509Data += '</ds:X509Data>';
  const keyInfoContent =
    x509Data +
    '<ds:KeyValue><ds:RSAKeyValue><ds:Modulus>' + base64DeBase64Url(jwk.n) + '</ds:Modulus><ds:Exponent>' + base64DeBase64Url(jwk.e) +
    '</ds:Exponent></ds:RSAKeyValue></ds:KeyValue>';
  const signingCertificate =
    '<xades:SigningCertificate><xades:Cert><xades:CertDigest><ds:DigestMethod Algorithm="' + ALG_SHA256 + '"></ds:DigestMethod><ds:DigestValue>' +
    createHash('sha256').update(x509.raw).digest('base64') +
    '</ds:DigestValue></xades:CertDigest><xades:IssuerSerial><ds:X509IssuerName>' + escapeTexto(nombreEmisorRfc4514(x509)) +
    '</ds:X509IssuerName><ds:X509SerialNumber>' + BigInt('0x' + x509.serialNumber).toString(10) +
    '</ds:X509SerialNumber></xades:IssuerSerial></xades:Cert></xades:SigningCertificate>';
  return cachePut(certificados, key, { keyInfoContent, signingCertificate });
}

function clavePrivada(pem: string): KeyObject {
  return clavesPrivadas.get(pem) ?? cachePut(clavesPrivadas, pem, createPrivateKey(pem));
}

function politicaXml(p: PoliticaFirma): string {
  let x = politicas.get(p);
  if (x === undefined) {
    const id = escapeTexto(p.identificador);
    x =
      '<xades:SignaturePolicyIdentifier><xades:SignaturePolicyId><xades:SigPolicyId><xades:Identifier>' + id +
      '</xades:Identifier><xades:Description></xades:Description></xades:SigPolicyId><xades:SigPolicyHash><ds:DigestMethod Algorithm="' + (p.algoritmoDigest ?? ALG_SHA256) +
      '"></ds:DigestMethod><ds:DigestValue>' + p.digestSha256 + '</ds:DigestValue></xades:SigPolicyHash><xades:SigPolicyQualifiers><xades:SigPolicyQualifier><xades:SPURI>' + (p.spuri !== undefined ? escapeTexto(p.spuri) : id) +
      '</xades:SPURI></xades:SigPolicyQualifier></xades:SigPolicyQualifiers></xades:SignaturePolicyId></xades:SignaturePolicyIdentifier>';
    politicas.set(p, x);
  }
  return x;
}

function idsDe(token: string): IdsFirma {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(token)) throw new RangeError(`Id token must be 1–64 letters, digits or "-": "${token}"`);
  const s = 'Signature-' + token;
  return {
    signature: s + '-Signature',
    reference: 'Reference-' + token,
    signedProperties: s + '-SignedProperties',
    keyInfo: s + '-KeyInfo',
    signatureValue: s + '-SignatureValue',
    qualifyingProperties: s + '-QualifyingProperties',
  };
}

/** A UUID-shaped token from the document digest: unique per document, deterministic. */
function tokenDeDigest(digestB64: string): string {
  const h = Buffer.from(digestB64, 'base64').toString('hex');
  return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20, 32);
}

// ---------------------------------------------------------------- the document

/** xmldom parse that reports instead of throwing (xmldom 0.9 throws on fatal errors). */
export function parsearXml(xml: string): { doc?: XDocument; error?: string } {
  const errores: string[] = [];
  try {
    const doc = new DOMParser({ onError: (level, msg) => void (level !== 'warning' && errores.push(msg)) }).parseFromString(xml, 'text/xml');
    return errores.length > 0 ? { error: errores[0] } : { doc };
  } catch (e) {
    return { error: errores[0] ?? (e instanceof Error ? e.message : String(e)) };
  }
}

interface Documento {
  /** Index of the root's end tag, where the Signature goes. */
  finRaiz: number;
  /** Base64 SHA-256 of the canonical document (without the signature). */
  digest: string;
  /** Namespaces declared on the root: prefix ('' for the default) → URI. */
  nsRaiz: Map<string, string>;
}

const ATTR = /\s([^\s=]+)\s*=\s*"([^"]*)"/g;

/** The canonical-input path: no DOM, the digest is the SHA-256 of the root element's text. */
function documentoCanonico(xml: string): Documento {
  let inicio = 0;
  if (xml.startsWith('<?xml')) {
    inicio = xml.indexOf('?>') + 2;
    while (inicio < xml.length && /\s/.test(xml.charAt(inicio))) inicio++;
  }
  let fin = xml.length;
  while (fin > inicio && /\s/.test(xml.charAt(fin - 1))) fin--;
  const finTagInicio = xml.indexOf('>', inicio);
  const tag = /^<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)/.exec(xml.slice(inicio, finTagInicio));
  if (xml.charAt(inicio) !== '<' || tag === null || finTagInicio < 0) throw new Error('canonicalInput: the document must start with its root element');
  const cierre = '</' + tag[1] + '>';
  if (!xml.endsWith(cierre, fin)) throw new Error('canonicalInput: the document must end with the root end tag');
  // Cheap guard against input that is plainly not canonical (self-closing tags, comments, CDATA, CR,
  // an existing signature): such input would sign but never verify.
  const cuerpo = xml.slice(inicio, fin);
  if (/\/>|<!|<\?|\r|<ds:Signature[\s>]/.test(cuerpo)) throw new Error('canonicalInput: the document is not in C14N form');
  const nsRaiz = new Map<string, string>();
  const startTag = xml.slice(inicio, finTagInicio);
  for (const m of startTag.matchAll(ATTR)) {
    const name = m[1] ?? '';
    if (name === 'xmlns') nsRaiz.set('', m[2] ?? '');
    else if (name.startsWith('xmlns:')) nsRaiz.set(name.slice(6), m[2] ?? '');
    else if (name.startsWith('xml:')) throw new Error('canonicalInput: xml:* attributes on the root are not supported');
  }
  return { finRaiz: fin - cierre.length, digest: createHash('sha256').update(cuerpo).digest('base64'), nsRaiz };
}

/** The general path: one xmldom parse and xml-crypto's inclusive C14N of the root. */
function documentoDom(xml: string): Documento {
  const { doc, error } = parsearXml(xml);
  const raiz = doc?.documentElement ?? null;
  if (doc === undefined || raiz === null) throw new Error(`the document is not well-formed XML: ${error ?? 'no root element'}`);
  for (let n = doc.firstChild; n !== null; n = n.nextSibling) {
    // URI="" keeps processing instructions outside the root; the XML declaration is none.
    if (n.nodeType === 7 && n.nodeName !== 'xml') throw new Error('processing instructions outside the root are not supported');
  }
  if (raiz.getElementsByTagNameNS(NS_DS, 'Signature').length > 0) throw new Error('the document is already signed');
  const nsRaiz = new Map<string, string>();
  for (let i = 0; i < raiz.attributes.length; i++) {
    const a = raiz.attributes.item(i);
    if (a === null) continue;
    if (a.name === 'xmlns') nsRaiz.set('', a.value);
    else if (a.prefix === 'xmlns') nsRaiz.set(a.localName ?? '', a.value);
    else if (a.prefix === 'xml') throw new Error('xml:* attributes on the root are not supported');
  }
  const canon = new C14nTbai().process(raiz as unknown as Parameters<C14nTbai['process']>[0], {});
  const cierre = '</' + raiz.tagName + '>';
  const finRaiz = xml.lastIndexOf(cierre);
  if (finRaiz < 0) throw new Error('root end tag not found');
  return { finRaiz, digest: createHash('sha256').update(canon).digest('base64'), nsRaiz };
}

/** Namespace declarations of an element of the Signature in canonical form (code-point order). */
function nsCanonico(nsRaiz: Map<string, string>, propios: Record<string, string>): string {
  const todos = new Map(nsRaiz);
  for (const [p, uri] of Object.entries(propios)) todos.set(p, uri);
  const prefijos = [...todos.keys()].sort((a, b) => (a === b ? 0 : a < b ? -1 : 1));
  let x = '';
  for (const p of prefijos) {
    const uri = todos.get(p) ?? '';
    // An empty default namespace is no namespace node: C14N does not render it at the apex.
    if (p === '' && uri === '') continue;
    x += p === '' ? ' xmlns="' + uri + '"' : ' xmlns:' + p + '="' + uri + '"';
  }
  return x;
}

// ---------------------------------------------------------------- signing

interface Partes {
  ids: IdsFirma;
  cert: Certificado;
  /** SignedProperties after its start tag, end tag included. */
  signedPropertiesResto: string;
}

function partes(digestDocumento: string, opts: SignTicketBaiOptions): Partes {
  const ids = idsDe(opts.ids?.token ?? tokenDeDigest(digestDocumento));
  const cert = certificado(opts.certificatePem, opts.chainPem);
  const signedPropertiesResto =
    '<xades:SignedSignatureProperties><xades:SigningTime>' + fechaHoraHusoGenRegistro(opts.signingTime, opts.zona) + '</xades:SigningTime>' +
    cert.signingCertificate +
    politicaXml(opts.policy) +
    '</xades:SignedSignatureProperties><xades:SignedDataObjectProperties><xades:DataObjectFormat ObjectReference="#' + ids.reference +
    '"><xades:Description></xades:Description><xades:ObjectIdentifier><xades:Identifier Qualifier="OIDAsURN">' + OID_OBJETO +
    '</xades:Identifier><xades:Description></xades:Description></xades:ObjectIdentifier><xades:MimeType>text/xml</xades:MimeType><xades:Encoding></xades:Encoding></xades:DataObjectFormat></xades:SignedDataObjectProperties></xades:SignedProperties>';
  return { ids, cert, signedPropertiesResto };
}

function referencia(attrs: string, transforms: string, digest: string): string {
  return (
    '<ds:Reference' + attrs + '><ds:Transforms>' + transforms + '</ds:Transforms><ds:DigestMethod Algorithm="' + ALG_SHA256 +
    '"></ds:DigestMethod><ds:DigestValue>' + digest + '</ds:DigestValue></ds:Reference>'
  );
}

const T_C14N = '<ds:Transform Algorithm="' + ALG_C14N + '"></ds:Transform>';
const T_ENVELOPED = '<ds:Transform Algorithm="' + ALG_ENVELOPED + '"></ds:Transform>';

/** Signs a TicketBAI alta or anulación (see the header for how). */
export function signTicketBai(xml: string, opts: SignTicketBaiOptions): SignedTicketBai {
  const doc = opts.canonicalInput === true ? documentoCanonico(xml) : documentoDom(xml);
  const { ids, cert, signedPropertiesResto } = partes(doc.digest, opts);

  // Each signed element, canonical: its in-scope namespaces rendered on it, attributes sorted.
  const nsDs = nsCanonico(doc.nsRaiz, { ds: NS_DS });
  const digestSignedProperties = createHash('sha256')
    .update('<xades:SignedProperties' + nsCanonico(doc.nsRaiz, { ds: NS_DS, xades: NS_XADES }) + ' Id="' + ids.signedProperties + '">')
    .update(signedPropertiesResto)
    .digest('base64');
  const digestKeyInfo = createHash('sha256')
    .update('<ds:KeyInfo' + nsDs + ' Id="' + ids.keyInfo + '">')
    .update(cert.keyInfoContent)
    .update('</ds:KeyInfo>')
    .digest('base64');

  const signedInfoResto =
    '<ds:CanonicalizationMethod Algorithm="' + ALG_C14N + '"></ds:CanonicalizationMethod><ds:SignatureMethod Algorithm="' + ALG_RSA_SHA256 +
    '"></ds:SignatureMethod>' +
    referencia(' Id="' + ids.reference + '" URI=""', T_ENVELOPED + T_C14N, doc.digest) +
    referencia(' Type="' + TYPE_SIGNED_PROPERTIES + '" URI="#' + ids.signedProperties + '"', T_C14N, digestSignedProperties) +
    referencia(' URI="#' + ids.keyInfo + '"', T_C14N, digestKeyInfo) +
    '</ds:SignedInfo>';
  const signatureValue = rsaSign('sha256', Buffer.from('<ds:SignedInfo' + nsDs + '>' + signedInfoResto, 'utf8'), clavePrivada(opts.privateKeyPem)).toString('base64');

  const signature =
    '<ds:Signature xmlns:ds="' + NS_DS + '" Id="' + ids.signature + '"><ds:SignedInfo>' + signedInfoResto +
    '<ds:SignatureValue Id="' + ids.signatureValue + '">' + signatureValue + '</ds:SignatureValue>' +
    '<ds:KeyInfo Id="' + ids.keyInfo + '">' + cert.keyInfoContent + '</ds:KeyInfo>' +
    '<ds:Object><xades:QualifyingProperties xmlns:xades="' + NS_XADES + '" Id="' + ids.qualifyingProperties + '" Target="#' + ids.signature +
    '"><xades:SignedProperties Id="' + ids.signedProperties + '">' + signedPropertiesResto + '</xades:QualifyingProperties></ds:Object></ds:Signature>';
  return { signedXml: xml.slice(0, doc.finRaiz) + signature + xml.slice(doc.finRaiz), signatureValue };
}

/**
 * The same signature made by xml-crypto's computeSignature (DOM, XPath, reserialization): the
 * reference implementation, ≈ 10× slower. Same options; `canonicalInput` is ignored.
 */
export function signTicketBaiXmlCrypto(xml: string, opts: SignTicketBaiOptions): SignedTicketBai {
  const { digest } = documentoDom(xml);
  const { ids, cert, signedPropertiesResto } = partes(digest, opts);
  const sx = usarAlgoritmosTbai(
    new SignedXml({
      privateKey: opts.privateKeyPem,
      publicCert: opts.certificatePem,
      signatureAlgorithm: ALG_RSA_SHA256,
      canonicalizationAlgorithm: ALG_C14N,
      getKeyInfoContent: () => cert.keyInfoContent,
      keyInfoAttributes: { Id: ids.keyInfo },
      objects: [
        {
          content:
            '<xades:QualifyingProperties xmlns:xades="' + NS_XADES + '" Id="' + ids.qualifyingProperties + '" Target="#' + ids.signature +
            '"><xades:SignedProperties Id="' + ids.signedProperties + '">' + signedPropertiesResto + '</xades:QualifyingProperties>',
        },
      ],
    }),
  );
  sx.addReference({ xpath: '/*', isEmptyUri: true, transforms: [ALG_ENVELOPED, ALG_C14N], digestAlgorithm: ALG_SHA256, id: ids.reference });
  sx.addReference({ xpath: `//*[@Id='${ids.signedProperties}']`, transforms: [ALG_C14N], digestAlgorithm: ALG_SHA256, type: TYPE_SIGNED_PROPERTIES });
  sx.addReference({ xpath: `//*[@Id='${ids.keyInfo}']`, transforms: [ALG_C14N], digestAlgorithm: ALG_SHA256 });
  sx.computeSignature(xml, { prefix: 'ds', attrs: { Id: ids.signature }, location: { reference: '/*', action: 'append' } });
  const signedXml = sx.getSignedXml();
  return { signedXml, signatureValue: signatureValueDe(signedXml) };
}

/** The SignatureValue of a signed TicketBAI document (whitespace removed), for chaining. */
export function signatureValueDe(signedXml: string): string {
  const m = /<(?:[\w.-]+:)?SignatureValue(?:\s[^>]*)?>([^<]*)<\/(?:[\w.-]+:)?SignatureValue>/.exec(signedXml);
  if (m === null) throw new Error('no SignatureValue in the document');
  return (m[1] ?? '').replace(/\s+/g, '');
}

// ---------------------------------------------------------------- verification

export interface VerificacionFirma {
  valid: boolean;
  /** Why it is not valid. */
  reason?: string;
  signatureValue?: string;
}

const DIGESTS: Record<string, string> = {
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#sha384': 'sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
};
const FIRMAS = new Set([ALG_RSA_SHA256, 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512']);
const XPATH_PERMITIDO = 'not(ancestor-or-self::ds:Signature)';

function hijos(e: XElement, ns: string, local: string): XElement[] {
  const out: XElement[] = [];
  for (let n = e.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as XElement).localName === local && (n as XElement).namespaceURI === ns) out.push(n as XElement);
  }
  return out;
}

function descendiente(e: XElement, ns: string, local: string): XElement | undefined {
  return e.getElementsByTagNameNS(ns, local).item(0) ?? undefined;
}

function invalida(reason: string): VerificacionFirma {
  return { valid: false, reason };
}

/**
 * Verifies the XAdES signature of a TicketBAI document with xml-crypto: every reference digest
 * and the SignatureValue, plus what the TicketBAI policy needs of the structure (one enveloped
 * signature, a reference to the whole document and one to the SignedProperties, SigningTime,
 * SigningCertificate matching the certificate, SignaturePolicyIdentifier, SHA-256 or stronger).
 * The key is `certificatePem` when given, else the certificate in KeyInfo (trusting it is the
 * caller's decision). Handles the official examples (c14n before enveloped, XPath filter).
 */
export function verifyTicketBai(signedXml: string, certificatePem?: string): VerificacionFirma {
  const { doc, error } = parsearXml(signedXml);
  const raiz = doc?.documentElement ?? null;
  if (doc === undefined || raiz === null) return invalida(`not well-formed XML: ${error ?? 'no root'}`);
  const firmas = raiz.getElementsByTagNameNS(NS_DS, 'Signature');
  if (firmas.length !== 1) return invalida(`expected one ds:Signature, found ${firmas.length}`);
  const firma = firmas.item(0);
  if (firma === null || firma.parentNode !== raiz) return invalida('the signature must be a child of the root (enveloped)');

  const signedInfo = hijos(firma, NS_DS, 'SignedInfo')[0];
  if (signedInfo === undefined) return invalida('no SignedInfo');
  const metodo = hijos(signedInfo, NS_DS, 'SignatureMethod')[0]?.getAttribute('Algorithm') ?? '';
  if (!FIRMAS.has(metodo)) return invalida(`signature algorithm not allowed by the policy: ${metodo}`);
  const refs = hijos(signedInfo, NS_DS, 'Reference');
  const refDocumento = refs.filter((r) => r.getAttribute('URI') === '');
  if (refDocumento.length !== 1) return invalida('expected exactly one reference to the whole document (URI="")');
  for (const r of refs) {
    const alg = hijos(r, NS_DS, 'DigestMethod')[0]?.getAttribute('Algorithm') ?? '';
    if (DIGESTS[alg] === undefined) return invalida(`digest algorithm not allowed by the policy: ${alg}`);
    for (const t of r.getElementsByTagNameNS(NS_DS, 'Transform')) {
      if (t.getAttribute('Algorithm') !== ALG_XPATH) continue;
      const xpath = hijos(t, NS_DS, 'XPath')[0];
      if (xpath === undefined || (xpath.textContent ?? '').trim() !== XPATH_PERMITIDO || xpath.lookupNamespaceURI('ds') !== NS_DS) {
        return invalida('unsupported XPath transform');
      }
    }
  }
  const refDoc = refDocumento[0];
  const algsDoc = refDoc === undefined ? [] : [...refDoc.getElementsByTagNameNS(NS_DS, 'Transform')].map((t) => t.getAttribute('Algorithm'));
  if (!algsDoc.includes(ALG_ENVELOPED)) return invalida('the document reference lacks the enveloped-signature transform');

  const signedProperties = descendiente(firma, NS_XADES, 'SignedProperties');
  if (signedProperties === undefined) return invalida('no xades:SignedProperties');
  const idSp = signedProperties.getAttribute('Id') ?? '';
  if (!refs.some((r) => r.getAttribute('URI') === '#' + idSp && r.getAttribute('Type') === TYPE_SIGNED_PROPERTIES)) {
    return invalida('the SignedProperties are not referenced');
  }
  if (descendiente(signedProperties, NS_XADES, 'SigningTime') === undefined) return invalida('no SigningTime');
  if (descendiente(signedProperties, NS_XADES, 'SignaturePolicyIdentifier') === undefined) return invalida('no SignaturePolicyIdentifier');
  const certDigest = descendiente(signedProperties, NS_XADES, 'CertDigest');
  if (certDigest === undefined) return invalida('no SigningCertificate');

  let pem = certificatePem;
  if (pem === undefined) {
    const b64 = (descendiente(firma, NS_DS, 'X509Certificate')?.textContent ?? '').replace(/\s+/g, '');
    if (b64 === '') return invalida('no certificate given and none in KeyInfo');
    pem = '-----BEGIN CERTIFICATE-----\n' + (b64.match(/.{1,64}/g) ?? []).join('\n') + '\n-----END CERTIFICATE-----\n';
  }
  let der: Buffer;
  try {
    der = new X509Certificate(pem).raw;
  } catch {
    return invalida('unreadable certificate');
  }
  const algCert = DIGESTS[hijos(certDigest, NS_DS, 'DigestMethod')[0]?.getAttribute('Algorithm') ?? ''];
  const valorCert = (hijos(certDigest, NS_DS, 'DigestValue')[0]?.textContent ?? '').trim();
  if (algCert === undefined || createHash(algCert).update(der).digest('base64') !== valorCert) {
    return invalida('SigningCertificate does not match the signing certificate');
  }

  const sx = usarAlgoritmosTbai(new SignedXml({ publicCert: pem }));
  try {
    sx.loadSignature(firma as unknown as Parameters<SignedXml['loadSignature']>[0]);
    if (!sx.checkSignature(signedXml)) {
      const fallo = sx.getReferences().find((r) => r.validationError !== undefined);
      return invalida(fallo?.validationError?.message ?? 'a reference digest does not match');
    }
  } catch (e) {
    return invalida(e instanceof Error ? e.message : String(e));
  }
  return { valid: true, signatureValue: signatureValueDe(signedXml) };
}
