import { X509Certificate, createHash, verify as rsaVerify } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import type { Document as XDocument, Element as XElement, Node as XNode } from '@xmldom/xmldom';
import { C14nCanonicalization, C14nCanonicalizationWithComments, ExclusiveCanonicalization, ExclusiveCanonicalizationWithComments, SignedXml } from 'xml-crypto';

// Independent verification of the XAdES-EPES enveloped signature of a TicketBAI
// file (TicketBAI_Politica_firma_1_0: enveloped only; SigningTime, SigningCertificate
// and SignaturePolicyIdentifier mandatory; RSA > 1024 bits; SHA-256 or stronger).
//
// Two fixes on top of xml-crypto 6.3.2, both needed to verify the official signed
// examples of Gipuzkoa:
//  1. Its C14N sorts namespace declarations with localeCompare, which puts `ds`
//     before `T`. C14N orders them by code point (`T` < `ds`), as libxml2 does;
//     with the library's order the digest of every TicketBAI file (root
//     `T:TicketBai` declaring xmlns:T and xmlns:ds) comes out wrong.
//  2. The official files carry an XPath transform `not(ancestor-or-self::ds:Signature)`
//     after enveloped-signature; xml-crypto has no XPath transform.

export const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const XADES_NS = 'http://uri.etsi.org/01903/v1.3.2#';
const XPATH_TRANSFORM = 'http://www.w3.org/TR/1999/REC-xpath-19991116';

const codePointCompare = (a: { prefix: string }, b: { prefix: string }): number =>
  a.prefix === b.prefix ? 0 : a.prefix < b.prefix ? -1 : 1;

export class FixedC14n extends C14nCanonicalization {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return codePointCompare(a, b);
  }
}
export class FixedC14nWithComments extends C14nCanonicalizationWithComments {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return codePointCompare(a, b);
  }
}
export class FixedExcC14n extends ExclusiveCanonicalization {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return codePointCompare(a, b);
  }
}
export class FixedExcC14nWithComments extends ExclusiveCanonicalizationWithComments {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return codePointCompare(a, b);
  }
}

/**
 * XPath filter `not(ancestor-or-self::ds:Signature)`: drops every ds:Signature
 * from the node-set. Other expressions are refused (the verification fails).
 */
export class NotSignatureXPathTransform {
  includeComments = false;
  process(node: XNode): XNode {
    const doomed: XElement[] = [];
    const walk = (n: XNode): void => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1) {
          const el = c as XElement;
          if (el.localName === 'Signature' && el.namespaceURI === DS_NS) doomed.push(el);
          else walk(el);
        }
      }
    };
    walk(node);
    for (const el of doomed) el.parentNode?.removeChild(el);
    return node;
  }
  getAlgorithmName(): string {
    return XPATH_TRANSFORM;
  }
}

/** Registers the fixed canonicalizations (and the XPath filter) on a SignedXml. */
export function useFixedCanonicalization(sx: SignedXml): SignedXml {
  const algs = sx.CanonicalizationAlgorithms as Record<string, unknown>;
  algs['http://www.w3.org/TR/2001/REC-xml-c14n-20010315'] = FixedC14n;
  algs['http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments'] = FixedC14nWithComments;
  algs['http://www.w3.org/2001/10/xml-exc-c14n#'] = FixedExcC14n;
  algs['http://www.w3.org/2001/10/xml-exc-c14n#WithComments'] = FixedExcC14nWithComments;
  algs[XPATH_TRANSFORM] = NotSignatureXPathTransform;
  return sx;
}

export interface SignaturePolicy {
  /** xades:SigPolicyId/xades:Identifier (compared case-insensitively, trailing slash ignored). */
  identifier: string;
  /** Accepted SigPolicyHash DigestValues; null accepts any (Araba publishes several). */
  digests: string[] | null;
}

/**
 * Policies of the three treasuries (they recognise each other's: reciprocity
 * clause of the specification §7.2). Gipuzkoa's official examples use
 * `https://www.gipuzkoa.eus/ticketbai/sinadura` with its own digest; FACTS.md
 * gives `https://www.gipuzkoa.eus/TicketBAI/signature`. Both are accepted.
 */
export const DEFAULT_POLICIES: readonly SignaturePolicy[] = Object.freeze([
  {
    identifier:
      'https://www.batuz.eus/fitxategiak/batuz/ticketbai/sinadura_elektronikoaren_zehaztapenak_especificaciones_de_la_firma_electronica_v1_0.pdf',
    digests: ['Quzn98x3PMbSHwbUzaj5f5KOpiH0u8bvmwbbbNkO9Es='],
  },
  { identifier: 'https://www.gipuzkoa.eus/TicketBAI/signature', digests: ['6NrKAm60o7u62FUQwzZew24ra2ve9PRQYwC21AM6In0='] },
  { identifier: 'https://www.gipuzkoa.eus/ticketbai/sinadura', digests: ['vSe1CH7eAFVkGN0X2Y7Nl9XGUoBnziDA5BGUSsyt8mg='] },
  { identifier: 'https://ticketbai.araba.eus/tbai/sinadura/', digests: null },
]);

export interface SignatureCheck {
  ok: boolean;
  /** Why verification failed (null when ok). */
  problem: string | null;
  /** SignatureValue text with whitespace removed ('' when absent). */
  signatureValue: string;
  signingTime: string | null;
  policyIdentifier: string | null;
  certSubject: string | null;
  certSerialNumber: string | null;
}

const SIG_ALGS = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
]);
const DIGEST_ALGS: Record<string, string> = {
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#sha384': 'sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
};

function children(el: XElement | XDocument, ns: string | null, name: string): XElement[] {
  const out: XElement[] = [];
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1) {
      const e = c as XElement;
      if (e.localName === name && (ns === null || e.namespaceURI === ns)) out.push(e);
    }
  }
  return out;
}
const child = (el: XElement | null | undefined, ns: string | null, name: string): XElement | null =>
  el ? (children(el, ns, name)[0] ?? null) : null;
const text = (el: XElement | null): string | null => (el ? (el.textContent ?? '') : null);

function descendant(el: XElement, ns: string, name: string): XElement | null {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType !== 1) continue;
    const e = c as XElement;
    if (e.localName === name && e.namespaceURI === ns) return e;
    const d = descendant(e, ns, name);
    if (d) return d;
  }
  return null;
}

function descendants(el: XElement, ns: string, name: string, out: XElement[] = []): XElement[] {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType !== 1) continue;
    const e = c as XElement;
    if (e.localName === name && e.namespaceURI === ns) out.push(e);
    descendants(e, ns, name, out);
  }
  return out;
}

const normId = (s: string): string => s.trim().toLowerCase().replace(/\/+$/, '');

export function policyAccepted(policies: readonly SignaturePolicy[], identifier: string, digest: string): boolean {
  const id = normId(identifier);
  return policies.some((p) => normId(p.identifier) === id && (p.digests === null || p.digests.includes(digest.trim())));
}

interface CachedCert {
  cert: X509Certificate;
  keyType: string | undefined;
  bits: number;
}
const certCache = new Map<string, CachedCert>();
/** Parsed certificates by base64 (a till signs every invoice with the same one). */
function certificate(b64: string, der: Buffer): CachedCert {
  let c = certCache.get(b64);
  if (!c) {
    const cert = new X509Certificate(der);
    c = { cert, keyType: cert.publicKey.asymmetricKeyType, bits: cert.publicKey.asymmetricKeyDetails?.modulusLength ?? 0 };
    if (certCache.size >= 256) certCache.delete(certCache.keys().next().value as string);
    certCache.set(b64, c);
  }
  return c;
}

function countSignatures(doc: XDocument): number {
  let n = 0;
  const walk = (e: XNode): void => {
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType !== 1) continue;
      const el = c as XElement;
      if (el.localName === 'Signature' && el.namespaceURI === DS_NS) n++;
      walk(el);
    }
  };
  walk(doc);
  return n;
}

function fail(problem: string, partial: Partial<SignatureCheck> = {}): SignatureCheck {
  return {
    ok: false,
    problem,
    signatureValue: partial.signatureValue ?? '',
    signingTime: partial.signingTime ?? null,
    policyIdentifier: partial.policyIdentifier ?? null,
    certSubject: partial.certSubject ?? null,
    certSerialNumber: partial.certSerialNumber ?? null,
  };
}

/** Verifies the enveloped XAdES signature of a TicketBAI (alta or anulación) document. */
export function verifyTicketBaiSignature(
  xml: string,
  policies: readonly SignaturePolicy[] = DEFAULT_POLICIES,
  parsed?: XDocument,
): SignatureCheck {
  let doc: XDocument;
  try {
    doc = parsed ?? new DOMParser({ onError: () => undefined }).parseFromString(xml, 'text/xml');
  } catch (e) {
    return fail(`XML no válido: ${String(e)}`);
  }
  const root = doc.documentElement;
  if (!root) return fail('documento vacío');
  const sigs = children(root as unknown as XElement, DS_NS, 'Signature');
  if (sigs.length !== 1) return fail(sigs.length === 0 ? 'falta ds:Signature bajo la raíz' : 'más de una ds:Signature bajo la raíz');
  if (countSignatures(doc) !== 1) return fail('ds:Signature fuera de la raíz');
  const sig = sigs[0] as XElement;
  const partial: Partial<SignatureCheck> = {
    signatureValue: (text(child(sig, DS_NS, 'SignatureValue')) ?? '').replace(/\s+/g, ''),
  };
  const signedInfo = child(sig, DS_NS, 'SignedInfo');
  if (!signedInfo) return fail('falta SignedInfo', partial);
  const sigAlg = child(signedInfo, DS_NS, 'SignatureMethod')?.getAttribute('Algorithm') ?? '';
  if (!SIG_ALGS.has(sigAlg)) return fail(`algoritmo de firma no admitido: ${sigAlg}`, partial);

  // The document itself must be signed (Reference URI="" with an enveloped transform).
  const refs = children(signedInfo, DS_NS, 'Reference');
  const whole = refs.find((r) => r.getAttribute('URI') === '');
  if (!whole) return fail('ninguna referencia firma el documento (URI="")', partial);
  const transforms = children(child(whole, DS_NS, 'Transforms') ?? whole, DS_NS, 'Transform').map(
    (t) => t.getAttribute('Algorithm') ?? '',
  );
  if (!transforms.includes('http://www.w3.org/2000/09/xmldsig#enveloped-signature')) {
    return fail('la referencia al documento no aplica enveloped-signature (solo se admite XAdES enveloped)', partial);
  }
  for (const r of refs) {
    const alg = child(r, DS_NS, 'DigestMethod')?.getAttribute('Algorithm') ?? '';
    if (!DIGEST_ALGS[alg] || alg.endsWith('#sha1')) return fail(`algoritmo de resumen no admitido: ${alg}`, partial);
  }

  // Certificate from KeyInfo.
  const certText = text(descendant(sig, DS_NS, 'X509Certificate'));
  if (!certText) return fail('falta el certificado (KeyInfo/X509Data/X509Certificate)', partial);
  let cached: CachedCert;
  const certB64 = certText.replace(/\s+/g, '');
  const der = Buffer.from(certB64, 'base64');
  try {
    cached = certificate(certB64, der);
  } catch (e) {
    return fail(`certificado ilegible: ${String(e)}`, partial);
  }
  const cert = cached.cert;
  partial.certSubject = cert.subject;
  partial.certSerialNumber = cert.serialNumber;
  if (cached.keyType !== 'rsa' || cached.bits <= 1024) {
    return fail(`clave ${cached.keyType ?? '?'} de ${cached.bits} bits (se exige RSA > 1024)`, partial);
  }

  // XAdES signed properties.
  const signedProps = descendant(sig, XADES_NS, 'SignedProperties');
  if (!signedProps) return fail('falta xades:SignedProperties (XAdES-EPES)', partial);
  const spId = signedProps.getAttribute('Id') ?? signedProps.getAttribute('ID') ?? signedProps.getAttribute('id');
  if (!spId || !refs.some((r) => r.getAttribute('URI') === `#${spId}`)) {
    return fail('SignedProperties no está referenciado por la firma', partial);
  }
  partial.signingTime = text(descendant(signedProps, XADES_NS, 'SigningTime'));
  if (!partial.signingTime) return fail('falta xades:SigningTime', partial);
  const sc = descendant(signedProps, XADES_NS, 'SigningCertificate') ?? descendant(signedProps, XADES_NS, 'SigningCertificateV2');
  if (!sc) return fail('falta xades:SigningCertificate', partial);
  const certDigests = descendants(sc, XADES_NS, 'CertDigest');
  const matches = certDigests.some((cd) => {
    const alg = DIGEST_ALGS[child(cd, DS_NS, 'DigestMethod')?.getAttribute('Algorithm') ?? ''];
    const val = (text(child(cd, DS_NS, 'DigestValue')) ?? '').replace(/\s+/g, '');
    return alg !== undefined && createHash(alg).update(der).digest('base64') === val;
  });
  if (!matches) return fail('SigningCertificate no corresponde al certificado de KeyInfo', partial);
  const spi = descendant(signedProps, XADES_NS, 'SignaturePolicyIdentifier');
  if (!spi) return fail('falta xades:SignaturePolicyIdentifier', partial);
  const polId = text(descendant(spi, XADES_NS, 'Identifier'))?.trim() ?? '';
  const polHash = descendant(spi, XADES_NS, 'SigPolicyHash');
  const polDigest = polHash ? (text(child(polHash, DS_NS, 'DigestValue')) ?? '').trim() : '';
  partial.policyIdentifier = polId || null;
  if (!polId || !polDigest) return fail('SignaturePolicyIdentifier sin identificador o sin huella', partial);
  if (!policyAccepted(policies, polId, polDigest)) {
    return fail(`política de firma no reconocida: ${polId} (${polDigest})`, partial);
  }

  // Cryptographic check: every reference digest and the SignatureValue.
  const crypto = checkReferencesAndValue(doc, sig, signedInfo, refs, cert);
  if (crypto) return fail(crypto, partial);
  return {
    ok: true,
    problem: null,
    signatureValue: partial.signatureValue ?? '',
    signingTime: partial.signingTime ?? null,
    policyIdentifier: partial.policyIdentifier ?? null,
    certSubject: partial.certSubject ?? null,
    certSerialNumber: partial.certSerialNumber ?? null,
  };
}

// ---- reference processing (XML-DSig core §4.4.3) ----
//
// xml-crypto's checkSignature() resolves every reference and the loaded signature
// with XPath over the whole document (~13 ms per TicketBAI file, most of it in the
// xpath package), which would block the shared router for seconds on an LROE
// batch. The same processing is driven here directly: references are resolved by
// walking the DOM, and canonicalization uses xml-crypto's (fixed) C14N classes.
// verifyWithXmlCrypto() keeps the library's own path; tests check they agree.

type Canon = { process(node: XNode, options: Record<string, unknown>): string };
const CANON: Record<string, new () => Canon> = {
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315': FixedC14n as unknown as new () => Canon,
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments': FixedC14nWithComments as unknown as new () => Canon,
  'http://www.w3.org/2001/10/xml-exc-c14n#': FixedExcC14n as unknown as new () => Canon,
  'http://www.w3.org/2001/10/xml-exc-c14n#WithComments': FixedExcC14nWithComments as unknown as new () => Canon,
};
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const RSA_HASH: Record<string, string> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': 'sha384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'sha512',
};

interface NsDecl {
  prefix: string;
  namespaceURI: string;
}

/** Namespace declarations in scope from the ancestors (nearest first), as xml-crypto collects them. */
function ancestorNamespaces(el: XElement): NsDecl[] {
  const seen = new Set<string>();
  const out: NsDecl[] = [];
  const own = new Set<string>([el.prefix ?? '']);
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes[i]!;
    if (a.nodeName === 'xmlns' || a.nodeName.startsWith('xmlns:')) own.add(a.nodeName.replace(/^xmlns:?/, ''));
  }
  for (let p = el.parentNode; p && p.nodeType === 1; p = p.parentNode) {
    const pe = p as XElement;
    for (let i = 0; i < pe.attributes.length; i++) {
      const a = pe.attributes[i]!;
      if (a.nodeName !== 'xmlns' && !a.nodeName.startsWith('xmlns:')) continue;
      const prefix = a.nodeName.replace(/^xmlns:?/, '');
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      if (a.nodeValue && !own.has(prefix)) out.push({ prefix, namespaceURI: a.nodeValue });
    }
  }
  return out;
}

function hasComments(n: XNode): boolean {
  for (let c = n.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 8 || (c.nodeType === 1 && hasComments(c))) return true;
  }
  return false;
}

function stripComments(n: XNode): void {
  for (let c = n.firstChild; c; ) {
    const next = c.nextSibling;
    if (c.nodeType === 8) n.removeChild(c);
    else if (c.nodeType === 1) stripComments(c);
    c = next;
  }
}

function pathTo(from: XNode, to: XNode): number[] | null {
  const path: number[] = [];
  let n: XNode | null = to;
  while (n && n !== from) {
    const parent: XNode | null = n.parentNode;
    if (!parent) return null;
    let i = 0;
    for (let c = parent.firstChild; c && c !== n; c = c.nextSibling) i++;
    path.unshift(i);
    n = parent;
  }
  return n === from ? path : null;
}

function follow(root: XNode, path: number[]): XNode | null {
  let n: XNode | null = root;
  for (const i of path) {
    let c: XNode | null = n?.firstChild ?? null;
    for (let k = 0; k < i && c; k++) c = c.nextSibling;
    n = c;
  }
  return n;
}

function findSignatureByValue(root: XNode, value: string): XElement | null {
  const found: XElement[] = [];
  const walk = (n: XNode): void => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType !== 1) continue;
      const e = c as XElement;
      if (e.localName === 'Signature' && e.namespaceURI === DS_NS) {
        const sv = child(e, DS_NS, 'SignatureValue');
        if ((sv?.textContent ?? '').replace(/\s+/g, '') === value) found.push(e);
      }
      walk(e);
    }
  };
  if (root.nodeType === 1 && (root as XElement).localName === 'Signature') found.push(root as XElement);
  walk(root);
  return found.length === 1 ? (found[0] ?? null) : null;
}

function idMap(doc: XDocument): Map<string, XElement[]> {
  const m = new Map<string, XElement[]>();
  const walk = (n: XNode): void => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType !== 1) continue;
      const e = c as XElement;
      for (const a of ['Id', 'ID', 'id']) {
        const v = e.getAttribute(a);
        if (v) m.set(v, [...(m.get(v) ?? []), e]);
      }
      walk(e);
    }
  };
  walk(doc);
  return m;
}

/** Returns null when every reference digest and the SignatureValue verify, else the problem. */
function checkReferencesAndValue(doc: XDocument, sig: XElement, signedInfo: XElement, refs: XElement[], cert: X509Certificate): string | null {
  const sigValue = (text(child(sig, DS_NS, 'SignatureValue')) ?? '').replace(/\s+/g, '');
  const ids = idMap(doc);
  for (const ref of refs) {
    const uri = ref.getAttribute('URI') ?? '';
    let target: XElement | null;
    if (uri === '') target = doc.documentElement as XElement | null;
    else if (uri.startsWith('#')) {
      const hits = ids.get(uri.slice(1)) ?? [];
      if (hits.length > 1) return `Id "${uri.slice(1)}" repetido (posible ataque de envoltura)`;
      target = hits[0] ?? null;
    } else return `referencia externa no admitida: ${uri}`;
    if (!target) return `la referencia "${uri}" no apunta a ningún elemento`;
    const transforms = children(child(ref, DS_NS, 'Transforms') ?? ref, DS_NS, 'Transform').map((t) => ({
      alg: t.getAttribute('Algorithm') ?? '',
      xpath: text(child(t, DS_NS, 'XPath'))?.trim() ?? null,
    }));
    let anc = ancestorNamespaces(target);
    const plainC14n = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
    if (
      uri === '' &&
      transforms.length > 0 &&
      transforms.every((t) => t.alg === plainC14n || t.alg === ENVELOPED || (t.alg === XPATH_TRANSFORM && (t.xpath ?? '').replace(/\s+/g, '') === 'not(ancestor-or-self::ds:Signature)')) &&
      transforms.some((t) => t.alg !== plainC14n) &&
      !hasComments(target)
    ) {
      // Fast path for the TicketBAI profile (whole document; inclusive C14N, enveloped-signature
      // and/or the not(ancestor-or-self::ds:Signature) filter, in any order): the result is the
      // C14N of the document without its (single) signature, because C14N output is a fixpoint
      // (C14N(parse(C14N(D))) = C14N(D)). Detach the signature, canonicalize once, put it back.
      const parent = sig.parentNode;
      const next = sig.nextSibling;
      if (!parent) return 'ds:Signature sin padre';
      parent.removeChild(sig);
      let octets: string;
      try {
        octets = new FixedC14n().process(target as never, { ancestorNamespaces: anc });
      } finally {
        parent.insertBefore(sig, next);
      }
      const alg = DIGEST_ALGS[child(ref, DS_NS, 'DigestMethod')?.getAttribute('Algorithm') ?? ''] ?? 'sha256';
      const want = (text(child(ref, DS_NS, 'DigestValue')) ?? '').replace(/\s+/g, '');
      if (createHash(alg).update(octets, 'utf8').digest('base64') !== want) return `resumen incorrecto en la referencia "${uri}"`;
      continue;
    }
    const mutating = transforms.some((t) => !CANON[t.alg] || t.alg.endsWith('#WithComments'));
    if (!mutating && !hasComments(target)) {
      // Only canonicalizations: nothing to remove, canonicalize the node in place.
      let octets: XNode | string = target;
      for (const t of transforms) {
        if (typeof octets === 'string') {
          const d = new DOMParser({ onError: () => undefined }).parseFromString(octets, 'text/xml');
          if (!d.documentElement) return 'la salida de una transformación no es XML';
          octets = d.documentElement as unknown as XNode;
          anc = [];
        }
        octets = new CANON[t.alg]!().process(octets, { ancestorNamespaces: anc, defaultNsForPrefix: { ds: DS_NS } });
      }
      if (typeof octets !== 'string') octets = new FixedC14n().process(octets as never, { ancestorNamespaces: anc });
      const alg = DIGEST_ALGS[child(ref, DS_NS, 'DigestMethod')?.getAttribute('Algorithm') ?? ''] ?? 'sha256';
      const want = (text(child(ref, DS_NS, 'DigestValue')) ?? '').replace(/\s+/g, '');
      if (createHash(alg).update(octets, 'utf8').digest('base64') !== want) return `resumen incorrecto en la referencia "${uri}"`;
      continue;
    }
    let current: XNode | string = target.cloneNode(true);
    stripComments(current);
    const sigPath = pathTo(target, sig);
    let sigInCurrent: XNode | null = sigPath ? follow(current, sigPath) : null;
    for (const t of transforms) {
      if (typeof current === 'string') {
        let parsed: XDocument;
        try {
          parsed = new DOMParser({ onError: () => undefined }).parseFromString(current, 'text/xml');
        } catch {
          return 'la salida de una transformación no es XML';
        }
        if (!parsed.documentElement) return 'la salida de una transformación no es XML';
        current = parsed.documentElement as unknown as XNode;
        anc = [];
        sigInCurrent = findSignatureByValue(current, sigValue);
      }
      if (t.alg === ENVELOPED) {
        if (sigInCurrent?.parentNode) sigInCurrent.parentNode.removeChild(sigInCurrent);
        sigInCurrent = null;
      } else if (t.alg === XPATH_TRANSFORM) {
        if (t.xpath !== null && t.xpath.replace(/\s+/g, '') !== 'not(ancestor-or-self::ds:Signature)') {
          return `transformación XPath no admitida: ${t.xpath}`;
        }
        new NotSignatureXPathTransform().process(current);
        sigInCurrent = null;
      } else {
        const C = CANON[t.alg];
        if (!C) return `transformación no admitida: ${t.alg}`;
        current = new C().process(current, { ancestorNamespaces: anc, defaultNsForPrefix: { ds: DS_NS } });
      }
    }
    const octets = typeof current === 'string' ? current : new FixedC14n().process(current as never, { ancestorNamespaces: anc });
    const alg = DIGEST_ALGS[child(ref, DS_NS, 'DigestMethod')?.getAttribute('Algorithm') ?? ''] ?? 'sha256';
    const want = (text(child(ref, DS_NS, 'DigestValue')) ?? '').replace(/\s+/g, '');
    if (createHash(alg).update(octets, 'utf8').digest('base64') !== want) return `resumen incorrecto en la referencia "${uri}"`;
  }
  const cm = child(signedInfo, DS_NS, 'CanonicalizationMethod')?.getAttribute('Algorithm') ?? '';
  const C = CANON[cm];
  if (!C) return `CanonicalizationMethod no admitido: ${cm}`;
  const canon = new C().process(signedInfo, { ancestorNamespaces: ancestorNamespaces(signedInfo), defaultNsForPrefix: { ds: DS_NS } });
  const hash = RSA_HASH[child(signedInfo, DS_NS, 'SignatureMethod')?.getAttribute('Algorithm') ?? ''];
  if (!hash) return 'algoritmo de firma no admitido';
  const ok = rsaVerify(hash, Buffer.from(canon, 'utf8'), cert.publicKey, Buffer.from(sigValue, 'base64'));
  return ok ? null : 'el valor de la firma (SignatureValue) no es correcto';
}

/**
 * The same cryptographic check through xml-crypto's own SignedXml.checkSignature
 * (with the fixed C14N). Slower; kept to cross-check the emulator's path in tests.
 */
export function verifyWithXmlCrypto(xml: string): boolean {
  const doc = new DOMParser({ onError: () => undefined }).parseFromString(xml, 'text/xml');
  const sig = doc.getElementsByTagNameNS(DS_NS, 'Signature')[0];
  if (!sig) return false;
  const certText = text(descendant(sig as XElement, DS_NS, 'X509Certificate'));
  if (!certText) return false;
  const cert = new X509Certificate(Buffer.from(certText.replace(/\s+/g, ''), 'base64'));
  const sx = useFixedCanonicalization(new SignedXml({ publicCert: cert.toString(), getCertFromKeyInfo: () => null }));
  sx.idAttributes = ['Id'];
  try {
    sx.loadSignature(sig as unknown as Parameters<SignedXml['loadSignature']>[0]);
    return sx.checkSignature(xml);
  } catch {
    return false;
  }
}
