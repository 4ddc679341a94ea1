import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { XsdFile } from '../common/xsd-pool';
import { XsdWorkerPool, localXmldsig } from '../common/xsd-pool';

// XSD validation of VeriFactu documents, one document per call, in the warm
// libxml2 workers of common/xsd-pool.ts (the schema set compiled once per worker).

export type { XsdFile } from '../common/xsd-pool';

export interface XsdResult {
  valid: boolean;
  /** libxml2 messages as xmllint prints them, file/line prefix removed. */
  errors: string[];
  /** Time spent inside the worker. */
  ms: number;
}

/**
 * Schema set for one VeriFactu root (`SuministroLR.xsd` for requests,
 * `RespuestaSuministro.xsd` for answers). The xmldsig import points at W3C by
 * absolute URL; the in-memory copy is pointed at the local file instead (the
 * files on disk stay untouched).
 */
export function loadVerifactuSchemas(
  refDir: string,
  root: 'SuministroLR.xsd' | 'RespuestaSuministro.xsd',
): XsdFile[] {
  const dir = path.join(refDir, 'verifactu', 'xsd');
  const read = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
  const files: XsdFile[] = [{ fileName: root, contents: read(root) }];
  if (root !== 'SuministroLR.xsd') files.push({ fileName: 'SuministroLR.xsd', contents: read('SuministroLR.xsd') });
  files.push({ fileName: 'SuministroInformacion.xsd', contents: localXmldsig(read('SuministroInformacion.xsd')) });
  files.push({ fileName: 'xmldsig-core-schema.xsd', contents: read('xmldsig-core-schema.xsd') });
  return files;
}

export interface XsdValidatorOptions {
  /** Parallel validations (one worker each). Default 2. */
  poolSize?: number;
  /** A validation taking longer is abandoned and its worker replaced. Default 30 s. */
  timeoutMs?: number;
  /** A worker whose wasm heap grew past this is replaced once it has answered (see XsdPoolOptions). */
  recycleAboveBytes?: number;
}

const SET = 'schemas';

export class XsdValidator {
  private readonly pool: XsdWorkerPool;

  constructor(schemas: readonly XsdFile[], opts: XsdValidatorOptions = {}) {
    if (schemas.length === 0) throw new Error('XsdValidator needs at least the root schema');
    this.pool = new XsdWorkerPool(
      { [SET]: schemas },
      { poolSize: opts.poolSize ?? 2, timeoutMs: opts.timeoutMs ?? 30_000, recycleAboveBytes: opts.recycleAboveBytes, name: 'XsdValidator' },
    );
  }

  /** `xml` as text, or as UTF-8 bytes in an ArrayBuffer of their own (handed over to the worker, not copied). */
  async validate(xml: string | Uint8Array): Promise<XsdResult> {
    const doc = typeof xml === 'string' ? { fileName: 'doc.xml', contents: xml } : { fileName: 'doc.xml', contents: xml };
    const { results, ms } = await this.pool.run(SET, [doc]);
    const [result] = results;
    if (!result) throw new Error('XsdValidator: the worker answered no verdict');
    return { valid: result.valid, errors: result.errors, ms };
  }

  /** Workers started so far, replacements included. */
  get workersStarted(): number {
    return this.pool.workersStarted;
  }

  /** Runs a throw-away validation on each worker so the first real batch is not paying JIT warm-up. */
  warmup(): Promise<void> {
    return this.pool.warmup(SET);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
