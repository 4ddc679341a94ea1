// Validates generated TicketBAI XML against the official XSDs shipped in assets/reference, offline,
// inside the test suite (xmllint-wasm). Like xsd.ts: every schema a root schema may import is
// preloaded in libxml2's in-memory file system under the name the import uses:
//   - xmldsig under its absolute URL;
//   - the Zuzendu schemas import "ticketBaiV1-2-2.xsd" and "Anula_ticketBaiV1-2-2.xsd", while the
//     official package ships them in lower case (reference README): both names are preloaded;
//   - the LROE schemas import the batuz_* libraries by file name.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { REFERENCE_DIR, type XsdResult } from './xsd';

const V122 = path.join(REFERENCE_DIR, 'ticketbai/xsd/v1-2-2');
const LROE = path.join(REFERENCE_DIR, 'ticketbai/xsd/lroe-bizkaia');
const XMLDSIG = path.join(REFERENCE_DIR, 'ticketbai/xsd/xmldsig-core-schema.xsd');
const XMLDSIG_URL = 'http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd';

export type TicketbaiRootXsd =
  | 'ticketbaiv1-2-2.xsd'
  | 'anula_ticketbaiv1-2-2.xsd'
  | 'zuzendualta_ticketbaiv1-2-2.xsd'
  | 'zuzenduanula_ticketbaiv1-2-2.xsd'
  | 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd'
  | 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd'
  | 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd'
  | 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd';

/** The official files are UTF-8 with a BOM: libxml2 gets them without it. */
function leer(file: string): string {
  return readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
}

let files: Map<string, string> | undefined;

/** Every schema under the name(s) an import refers to it by. */
function schemaFiles(): Map<string, string> {
  if (files !== undefined) return files;
  const m = new Map<string, string>();
  for (const f of readdirSync(V122)) m.set(f, leer(path.join(V122, f)));
  for (const f of readdirSync(LROE)) m.set(f, leer(path.join(LROE, f)));
  // The case-sensitivity gotcha of the Zuzendu imports.
  m.set('ticketBaiV1-2-2.xsd', m.get('ticketbaiv1-2-2.xsd') ?? '');
  m.set('Anula_ticketBaiV1-2-2.xsd', m.get('anula_ticketbaiv1-2-2.xsd') ?? '');
  m.set(XMLDSIG_URL, leer(XMLDSIG));
  files = m;
  return m;
}

/** Validates one XML document whose root element is declared by `rootXsd`. */
export async function validateAgainstTicketbaiXsd(xml: string, rootXsd: TicketbaiRootXsd): Promise<XsdResult> {
  const all = schemaFiles();
  const root = all.get(rootXsd);
  if (root === undefined) throw new Error(`unknown schema ${rootXsd}`);
  const preload = [...all].filter(([name]) => name !== rootXsd).map(([fileName, contents]) => ({ fileName, contents }));
  const result = await validateXML({
    xml: [{ fileName: 'document.xml', contents: xml }],
    schema: [{ fileName: rootXsd, contents: root }],
    preload,
  });
  return { valid: result.valid, errors: result.errors.map((e) => e.message) };
}
