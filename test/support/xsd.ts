// Validates generated XML against the official AEAT XSDs in ../shared/reference, offline.
// The XSDs import xmldsig by absolute URL: libxml2 (xmllint-wasm) resolves that URL as a path in
// its in-memory file system, so the local copy is preloaded under exactly that name.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { validateXML } from 'xmllint-wasm';

const here = path.dirname(fileURLToPath(import.meta.url));
/** ../shared/reference beside the repository root. */
export const REFERENCE_DIR = path.resolve(here, '../../../shared/reference');
const XSD_DIR = path.join(REFERENCE_DIR, 'verifactu/xsd');
const XMLDSIG_URL = 'http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd';

export type VerifactuRootXsd = 'SuministroInformacion.xsd' | 'SuministroLR.xsd' | 'RespuestaSuministro.xsd';

const files = new Map<string, string>();
function xsd(name: string): string {
  let text = files.get(name);
  if (text === undefined) {
    text = readFileSync(path.join(XSD_DIR, name), 'utf8');
    files.set(name, text);
  }
  return text;
}

export interface XsdResult {
  valid: boolean;
  errors: string[];
}

/** Validates one XML document whose root element is declared by `rootXsd`. */
export async function validateAgainstVerifactuXsd(xml: string, rootXsd: VerifactuRootXsd): Promise<XsdResult> {
  const preload = [
    { fileName: 'SuministroInformacion.xsd', contents: xsd('SuministroInformacion.xsd') },
    { fileName: XMLDSIG_URL, contents: xsd('xmldsig-core-schema.xsd') },
  ].filter((f) => f.fileName !== rootXsd);
  const result = await validateXML({
    xml: [{ fileName: 'document.xml', contents: xml }],
    schema: [{ fileName: rootXsd, contents: xsd(rootXsd) }],
    preload,
  });
  return { valid: result.valid, errors: result.errors.map((e) => e.message) };
}

/** First element child of a SOAP envelope's Body, serialised with the namespaces it needs. */
export function soapBodyFirstChild(envelope: string): string {
  const doc = new DOMParser().parseFromString(envelope, 'text/xml');
  const body = doc.getElementsByTagNameNS('http://schemas.xmlsoap.org/soap/envelope/', 'Body').item(0);
  if (body === null) throw new Error('no SOAP Body');
  for (let n = body.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1) return new XMLSerializer().serializeToString(n);
  }
  throw new Error('empty SOAP Body');
}
