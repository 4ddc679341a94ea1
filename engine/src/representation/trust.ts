import { X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';
import type { Entorno } from '../../../src-shared/api/common';

// Whom a representation signature may come from: a certificate that chains to a trusted CA
// (qualified CAs in LIVE, given by configuration; none ship with the engine), valid now and when
// it signed, and allowed to sign (keyUsage). In TEST the install's own test CA is trusted too.

/** A signature clock skew we forgive: a signing time this far after "now" is not "in the future". */
const SIGNING_TIME_SKEW_MS = 5 * 60_000;
/** No real hierarchy is deeper than this; it bounds a hostile bag of certificates. */
const MAX_CHAIN = 8;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Certificates of a PEM (one or many) or a single DER. */
export function parseCertificates(bytes: Buffer, source: string): X509Certificate[] {
  const pems = bytes.toString('latin1').match(PEM_BLOCK);
  try {
    return pems ? pems.map((pem) => new X509Certificate(pem)) : [new X509Certificate(bytes)];
  } catch (error) {
    throw new Error(`${source}: no es un certificado X.509 legible (${(error as Error).message})`);
  }
}

/**
 * The configured CA certificates: each entry is PEM text, or the path of a PEM/DER file, or of a
 * directory whose .pem/.crt/.cer files are read. A wrong entry stops the start-up: a trust store
 * that silently lost a CA would refuse every signature of that CA without saying why.
 */
export function loadTrustAnchors(entries: readonly string[]): X509Certificate[] {
  const anchors: X509Certificate[] = [];
  for (const entry of entries) {
    if (entry.includes('-----BEGIN CERTIFICATE-----')) {
      anchors.push(...parseCertificates(Buffer.from(entry, 'latin1'), 'representacionCas (PEM)'));
      continue;
    }
    let files: string[];
    try {
      files = statSync(entry).isDirectory()
        ? readdirSync(entry)
            .filter((f) => /\.(pem|crt|cer)$/i.test(f))
            .sort()
            .map((f) => path.join(entry, f))
        : [entry];
    } catch (error) {
      throw new Error(`representacionCas: no se puede leer ${entry} (${(error as Error).message})`);
    }
    for (const file of files) anchors.push(...parseCertificates(readFileSync(file), `representacionCas: ${file}`));
  }
  return anchors;
}

type Asn1 = forge.asn1.Asn1;
const children = (node: Asn1 | undefined): Asn1[] => (node && Array.isArray(node.value) ? (node.value as Asn1[]) : []);
const fromDer = forge.asn1.fromDer as unknown as (bytes: forge.util.ByteStringBuffer, options: { decodeBitStrings: boolean }) => Asn1;
const OID_KEY_USAGE = '2.5.29.15';

/**
 * The keyUsage extension (RFC 5280 §4.2.1.3) when the certificate has one. node:crypto exposes
 * only the extended key usage, and node-forge cannot parse certificates with EC keys: read the
 * extension straight from the DER.
 */
export function keyUsageOf(der: Buffer): { digitalSignature: boolean; nonRepudiation: boolean; keyCertSign: boolean } | undefined {
  const cert = fromDer(forge.util.createBuffer(der.toString('binary')), { decodeBitStrings: false });
  const tbs = children(cert)[0];
  const extensions = children(children(tbs).find((n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 3))[0];
  for (const ext of children(extensions)) {
    const parts = children(ext);
    if (forge.asn1.derToOid(String(parts[0]?.value ?? '')) !== OID_KEY_USAGE) continue;
    const octets = parts[parts.length - 1];
    const bits = fromDer(forge.util.createBuffer(String(octets?.value ?? '')), { decodeBitStrings: false });
    // BIT STRING content: the count of unused bits, then the bits (digitalSignature is the first).
    const value = String(bits.value);
    const first = value.length > 1 ? value.charCodeAt(1) : 0;
    return { digitalSignature: (first & 0x80) !== 0, nonRepudiation: (first & 0x40) !== 0, keyCertSign: (first & 0x04) !== 0 };
  }
  return undefined;
}

const cnOf = (x509: X509Certificate, field: 'subject' | 'issuer') =>
  /^CN=(.*)$/m.exec(x509[field])?.[1]?.trim() ?? x509[field].replace(/\n/g, ', ');
const iso = (date: Date) => date.toISOString();

export interface TrustInput {
  /** The signer's certificate (DER). */
  signer: Buffer;
  /** Other certificates that came with it (the CMS or PKCS#12 bag): candidate intermediates. */
  others: Buffer[];
  /** When the verification happens (the engine's clock). */
  now: Date;
  /** When the signer says it signed; the same as `now` when signing here. */
  signingTime: Date;
}

export interface TrustVerdict {
  trusted: boolean;
  /** Why not, one sentence each, naming the certificate concerned. */
  problems: string[];
  /** The path found, signer first, trust anchor last (subjects' CN). */
  chain: string[];
  /** The path reached a trusted CA (whatever else is wrong: validity, key usage, dates). */
  anchored: boolean;
}

function validityProblems(x509: X509Certificate, label: string, times: Array<{ at: Date; when: string }>): string[] {
  const from = new Date(Date.parse(x509.validFrom));
  const to = new Date(Date.parse(x509.validTo));
  const problems: string[] = [];
  for (const { at, when } of times) {
    if (at < from) problems.push(`${label} no era válido ${when} (${iso(at)}): lo es desde ${iso(from)}`);
    else if (at > to) problems.push(`${label} había caducado ${when} (${iso(at)}): fue válido hasta ${iso(to)}`);
  }
  return problems;
}

function safeVerify(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

/**
 * One step of the path from the signer to an anchor: issuer name, key identifiers and the
 * issuer's keyCertSign match (OpenSSL's X509_check_issued), and the signature verifies.
 */
function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  return child.checkIssued(parent) && safeVerify(child, parent);
}

/** Whether the signer's certificate is one the engine trusts for a representation signature. */
export function checkSignerTrust(anchors: readonly X509Certificate[], input: TrustInput): TrustVerdict {
  const problems: string[] = [];
  const signer = new X509Certificate(input.signer);
  const times = [
    { at: input.now, when: 'en la fecha de verificación' },
    { at: input.signingTime, when: 'en la fecha de firma' },
  ];
  if (input.signingTime.getTime() > input.now.getTime() + SIGNING_TIME_SKEW_MS) {
    problems.push(`La fecha de firma (${iso(input.signingTime)}) es posterior a la fecha actual (${iso(input.now)})`);
  }
  const usage = keyUsageOf(input.signer);
  if (usage && !usage.digitalSignature && !usage.nonRepudiation) {
    problems.push('El certificado no sirve para firmar: su uso de clave (keyUsage) no incluye firma digital ni no repudio');
  }
  problems.push(...validityProblems(signer, 'El certificado del firmante', times));

  const intermediates = input.others.map((der) => new X509Certificate(der)).filter((c) => !c.raw.equals(signer.raw));
  const path: X509Certificate[] = [signer];
  let anchored = false;
  for (let current = signer; path.length <= MAX_CHAIN; ) {
    // A certificate put in the trust store itself (a pinned one) ends the path too.
    if (anchors.some((a) => a.raw.equals(current.raw))) {
      anchored = true;
      break;
    }
    const anchor = anchors.find((a) => a.ca && issuedBy(current, a));
    if (anchor) {
      path.push(anchor);
      anchored = true;
      break;
    }
    const next = intermediates.find((c) => c.ca && !path.includes(c) && issuedBy(current, c));
    if (!next) break;
    path.push(next);
    current = next;
  }
  const chain = path.map((c) => cnOf(c, 'subject'));
  if (!anchored) {
    const last = path[path.length - 1] ?? signer;
    // Not checkIssued(last): OpenSSL also wants keyCertSign there, which an end-entity lacks.
    const selfSigned = last.subject === last.issuer && safeVerify(last, last);
    problems.push(
      selfSigned
        ? `El certificado no es de confianza: «${cnOf(last, 'subject')}» es autofirmado y no es una autoridad de certificación admitida`
        : `El certificado no es de confianza: su emisor «${cnOf(last, 'issuer')}» no es una autoridad de certificación admitida`,
    );
  }
  for (const ca of path.slice(1)) problems.push(...validityProblems(ca, `El certificado de la autoridad «${cnOf(ca, 'subject')}»`, times));
  return { trusted: problems.length === 0, problems, chain, anchored };
}

/**
 * The anchors per environment: the configured CAs everywhere and, in TEST only, the install's
 * test CA (so a certificate it issued can never open LIVE issuing).
 */
export class TrustStore {
  constructor(
    private readonly configured: readonly X509Certificate[],
    private readonly testAnchor: () => X509Certificate | undefined = () => undefined,
  ) {}

  anchors(entorno: Entorno): X509Certificate[] {
    const test = entorno === 'test' ? this.testAnchor() : undefined;
    return test ? [...this.configured, test] : [...this.configured];
  }

  check(entorno: Entorno, input: TrustInput): TrustVerdict {
    return checkSignerTrust(this.anchors(entorno), input);
  }
}
