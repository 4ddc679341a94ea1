import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { EncodedFile, XsdFile } from '../common/xsd-pool';
import { XsdWorkerPool, localXmldsig } from '../common/xsd-pool';

// XSD validation of VeriFactu documents, one document per call, in the warm
// xmllint workers of shared/xsd-pool.ts.

export type { XsdFile } from '../common/xsd-pool';

export interface XsdResult {
  valid: boolean;
  /** libxml2 messages, file/line prefix removed. */
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
  /** wasm memory ceiling in 64 KiB pages. Default 16384 (1 GiB). */
  maxMemoryPages?: number;
}

const SET = 'schemas';

export class XsdValidator {
  private readonly pool: XsdWorkerPool;

  constructor(schemas: readonly XsdFile[], opts: XsdValidatorOptions = {}) {
    if (schemas.length === 0) throw new Error('XsdValidator needs at least the root schema');
    this.pool = new XsdWorkerPool(
      { [SET]: schemas },
      { poolSize: opts.poolSize ?? 2, timeoutMs: opts.timeoutMs ?? 30_000, maxMemoryPages: opts.maxMemoryPages, name: 'XsdValidator' },
    );
  }

  /** `xml` as text, or as UTF-8 bytes in an ArrayBuffer of their own (handed over to the worker, not copied). */
  async validate(xml: string | Uint8Array): Promise<XsdResult> {
    const doc: XsdFile | EncodedFile = typeof xml === 'string' ? { fileName: 'doc.xml', contents: xml } : { fileName: 'doc.xml', contents: xml };
    const { exitCode: code, stderr, ms } = await this.pool.run(SET, [doc]);
    // xmllint: 0 valid, 3/4 invalid; anything else is a crash of the tool.
    if (code === 0 || code === 3 || code === 4) return { valid: code === 0, errors: code === 0 ? [] : parseErrors(stderr), ms };
    throw new Error(`xmllint failed (exit ${code}): ${stderr.slice(0, 500)}`);
  }

  /** Runs a throw-away validation on each worker so the first real batch is not paying JIT warm-up. */
  warmup(): Promise<void> {
    return this.pool.warmup(SET);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function parseErrors(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.endsWith('fails to validate') && !l.endsWith(' validates'))
    .map((l) => l.replace(/^doc\.xml:\d+:\s*/, ''));
}
