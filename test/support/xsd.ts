// Validates generated XML against the official AEAT XSDs shipped in assets/reference, offline.
// The XSDs import xmldsig by absolute URL: libxml2 (xmllint-wasm) resolves that URL as a path in
// its in-memory file system, so the local copy is preloaded under exactly that name.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import Database from 'better-sqlite3';
import { validateXML } from 'xmllint-wasm';
import type { Database as EngineDatabase } from '../../engine/src/db/database';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The official artefacts shipped in the repository (assets/reference/README.md). */
export const REFERENCE_DIR = path.resolve(here, '../../assets/reference');
const XSD_DIR = path.join(REFERENCE_DIR, 'verifactu/xsd');
const XMLDSIG_URL = 'http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd';

export type VerifactuRootXsd = 'SuministroInformacion.xsd' | 'SuministroLR.xsd' | 'RespuestaSuministro.xsd' | 'EventosSIF.xsd';

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

/** Local name of the first element child of a SOAP envelope's Body. */
function soapBodyFirstChildName(envelope: string): string {
  let doc;
  try {
    doc = new DOMParser().parseFromString(envelope, 'text/xml');
  } catch {
    return '';
  }
  const body = doc.getElementsByTagNameNS('http://schemas.xmlsoap.org/soap/envelope/', 'Body').item(0);
  for (let n = body?.firstChild ?? null; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1) return (n as unknown as { localName: string }).localName;
  }
  return '';
}

/** Anything that can run one SELECT: a better-sqlite3 handle, or an engine's database (SQLite or PostgreSQL). */
type RepliesReader = { prepare(sql: string): { all(...params: unknown[]): unknown[] } } | Pick<EngineDatabase, 'statement'>;

/**
 * Validates every AEAT reply an engine stored (submission_batches.respuesta) against
 * RespuestaSuministro.xsd and returns one line per problem (empty when all are valid).
 * Client SOAP Faults are stored too (the batch refused): they are not RespuestaSuministro
 * documents, so only RespuestaRegFactuSistemaFacturacion bodies are validated.
 */
export async function invalidAeatReplies(db: RepliesReader): Promise<string[]> {
  // An engine's database is migrated; a bare file may predate the table.
  const select = (sql: string) => ('statement' in db ? db.statement(sql).all() : db.prepare(sql).all());
  if (!('statement' in db) && select("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'submission_batches'").length === 0) return [];
  const rows = select(
    "SELECT id, estado, respuesta FROM submission_batches WHERE autoridad = 'aeat' AND respuesta IS NOT NULL ORDER BY rowid",
  ) as { id: string; estado: string; respuesta: string }[];
  const problems: string[] = [];
  const bodies: { id: string; xml: string }[] = [];
  for (const row of rows) {
    const name = soapBodyFirstChildName(row.respuesta);
    if (name !== 'RespuestaRegFactuSistemaFacturacion') {
      // A refused batch keeps the client Fault AEAT sent: not a RespuestaSuministro document.
      // An applied reply ('respondido') must be one.
      if (row.estado === 'respondido') problems.push(`${row.id}: the SOAP Body holds ${name || 'nothing'}, not RespuestaRegFactuSistemaFacturacion`);
      continue;
    }
    // The real service (and the emulator) write EstadoRegistroDuplicado AceptadoConErrores where the
    // XSD says AceptadaConErrores: that one departure is not a problem of the reply.
    const xml = soapBodyFirstChild(row.respuesta).replace(/(<(?:\w+:)?EstadoRegistroDuplicado>)AceptadoConErrores</g, '$1AceptadaConErrores<');
    bodies.push({ id: row.id, xml });
  }
  // Identical replies need one validation; several documents go through one xmllint run.
  const unique = new Map<string, string>();
  for (const b of bodies) if (!unique.has(b.xml)) unique.set(b.xml, b.id);
  const docs = [...unique].map(([xml, id]) => ({ id, xml }));
  for (let i = 0; i < docs.length; i += 25) {
    const chunk = docs.slice(i, i + 25);
    const result = await validateXML({
      xml: chunk.map((d) => ({ fileName: `reply-${d.id}.xml`, contents: d.xml })),
      schema: [{ fileName: 'RespuestaSuministro.xsd', contents: xsd('RespuestaSuministro.xsd') }],
      preload: [
        { fileName: 'SuministroInformacion.xsd', contents: xsd('SuministroInformacion.xsd') },
        { fileName: XMLDSIG_URL, contents: xsd('xmldsig-core-schema.xsd') },
      ],
      maxMemoryPages: 16_384,
    });
    if (!result.valid) problems.push(...result.errors.map((e) => e.rawMessage));
  }
  return problems;
}

/** invalidAeatReplies over an engine's data dir (its database opened read-only), after it stopped. */
export async function invalidAeatRepliesIn(dataDir: string): Promise<string[]> {
  const file = path.join(dataDir, 'engine.sqlite');
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    return await invalidAeatReplies(db);
  } finally {
    db.close();
  }
}
