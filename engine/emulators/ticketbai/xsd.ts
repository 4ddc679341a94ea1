import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { XsdDocResult, XsdFile } from '../common/xsd-pool';
import { XsdWorkerPool, localXmldsig } from '../common/xsd-pool';

// XSD validation of TicketBAI and LROE documents in the warm libxml2 workers of
// common/xsd-pool.ts (each schema set compiled once per worker): one call validates
// many documents in one message to a worker (an LROE batch carries up to 1000
// embedded TicketBAI files).

export type { XsdFile } from '../common/xsd-pool';

export type SchemaSetName = 'tbai' | 'lroe' | 'tbai-response' | 'lroe-response';

/** One document's verdict; `errors` are libxml2's messages as xmllint prints them, file/line prefix removed. */
export type DocResult = XsdDocResult;

const LROE_NS = 'https://www.batuz.eus/fitxategiak/batuz/LROE/esquemas/';

export const LROE_PETITIONS = [
  'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd',
  'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd',
  'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd',
  'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd',
] as const;
export const LROE_RESPONSES = [
  'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaRespuesta_V1_0_1.xsd',
  'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionRespuesta_V1_0_0.xsd',
  'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaRespuesta_V1_0_2.xsd',
  'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionRespuesta_V1_0_0.xsd',
] as const;
const BATUZ_LIBS = [
  'batuz_Enumerados.xsd',
  'batuz_TiposAnulacion.xsd',
  'batuz_TiposBasicos.xsd',
  'batuz_TiposComplejos.xsd',
] as const;

function wrapper(imports: Array<[string, string]>): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<schema xmlns="http://www.w3.org/2001/XMLSchema">\n' +
    imports.map(([ns, loc]) => `  <import namespace="${ns}" schemaLocation="${loc}"/>\n`).join('') +
    '</schema>\n'
  );
}

/**
 * The schema sets, read once from the reference folder (files on disk stay
 * untouched). The first file of each set is the root schema compiled:
 *  - tbai: alta, anulación and both Zuzendu schemas of 1.2.2. The Zuzendu XSDs
 *    import `ticketBaiV1-2-2.xsd` / `Anula_ticketBaiV1-2-2.xsd` with capitals
 *    while the files are lower case, so the in-memory copies carry the imported
 *    names. The xmldsig import is pointed at the local copy.
 *  - lroe: the four Bizkaia petitions (240/140, alta/anulación).
 *  - tbai-response / lroe-response: the answers (used by tests to check ours).
 */
export function loadTicketBaiSchemas(refDir: string): Record<SchemaSetName, XsdFile[]> {
  const tb = path.join(refDir, 'ticketbai', 'xsd');
  const read = (...p: string[]): string => readFileSync(path.join(tb, ...p), 'utf8');
  const dsig: XsdFile = { fileName: 'xmldsig-core-schema.xsd', contents: read('xmldsig-core-schema.xsd') };
  const tbai: XsdFile[] = [
    {
      fileName: 'tbai-all.xsd',
      contents: wrapper([
        ['urn:ticketbai:emision', 'ticketBaiV1-2-2.xsd'],
        ['urn:ticketbai:anulacion', 'Anula_ticketBaiV1-2-2.xsd'],
        ['urn:ticketbai:zuzendu-alta', 'zuzendualta_ticketbaiv1-2-2.xsd'],
        ['urn:ticketbai:zuzendu-baja', 'zuzenduanula_ticketbaiv1-2-2.xsd'],
      ]),
    },
    { fileName: 'ticketBaiV1-2-2.xsd', contents: localXmldsig(read('v1-2-2', 'ticketbaiv1-2-2.xsd')) },
    { fileName: 'Anula_ticketBaiV1-2-2.xsd', contents: localXmldsig(read('v1-2-2', 'anula_ticketbaiv1-2-2.xsd')) },
    { fileName: 'zuzendualta_ticketbaiv1-2-2.xsd', contents: read('v1-2-2', 'zuzendualta_ticketbaiv1-2-2.xsd') },
    { fileName: 'zuzenduanula_ticketbaiv1-2-2.xsd', contents: read('v1-2-2', 'zuzenduanula_ticketbaiv1-2-2.xsd') },
    dsig,
  ];
  const libs = BATUZ_LIBS.map((f) => ({ fileName: f, contents: read('lroe-bizkaia', f) }));
  const lroeSet = (files: readonly string[], root: string): XsdFile[] => [
    { fileName: root, contents: wrapper(files.map((f) => [LROE_NS + f, f])) },
    ...files.map((f) => ({ fileName: f, contents: read('lroe-bizkaia', f) })),
    ...libs,
  ];
  return {
    tbai,
    lroe: lroeSet(LROE_PETITIONS, 'lroe-peticiones.xsd'),
    'tbai-response': [{ fileName: 'TicketBAIResponse.xsd', contents: read('response', 'TicketBAIResponse.xsd') }],
    'lroe-response': lroeSet(LROE_RESPONSES, 'lroe-respuestas.xsd'),
  };
}

export interface TbaiXsdPoolOptions {
  poolSize?: number;
  timeoutMs?: number;
  /** A worker whose wasm heap grew past this is replaced once it has answered (see XsdPoolOptions). */
  recycleAboveBytes?: number;
}

export class TbaiXsdPool {
  private readonly pool: XsdWorkerPool;

  constructor(sets: Record<SchemaSetName, XsdFile[]>, opts: TbaiXsdPoolOptions = {}) {
    this.pool = new XsdWorkerPool(sets, {
      poolSize: opts.poolSize ?? 1,
      timeoutMs: opts.timeoutMs ?? 60_000,
      recycleAboveBytes: opts.recycleAboveBytes,
      name: 'TbaiXsdPool',
    });
  }

  /** Validates every document against the set; one result per document, in order. */
  async validateMany(set: SchemaSetName, docs: string[]): Promise<DocResult[]> {
    if (docs.length === 0 && !this.pool.closed) return [];
    const { results } = await this.pool.run(
      set,
      docs.map((contents, i) => ({ fileName: `d${i}.xml`, contents })),
    );
    if (results.length !== docs.length) throw new Error(`TbaiXsdPool: ${results.length} verdicts for ${docs.length} documents`);
    return results;
  }

  async validate(set: SchemaSetName, doc: string): Promise<DocResult> {
    const [r] = await this.validateMany(set, [doc]);
    return r ?? { valid: false, errors: ['no result'] };
  }

  warmup(): Promise<void> {
    return this.pool.warmup('tbai');
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
