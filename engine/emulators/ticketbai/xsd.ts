import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

// XSD validation with libxml2 (xmllint-wasm) in warm workers, like the AEAT
// emulator's validator, with two differences: a worker knows several schema
// sets (picked per call), and one call validates many documents in a single
// xmllint run (an LROE batch carries up to 1000 embedded TicketBAI files, and
// instantiating the wasm module per file would cost more than the validation).

export interface XsdFile {
  fileName: string;
  contents: string;
}

export type SchemaSetName = 'tbai' | 'lroe' | 'tbai-response' | 'lroe-response';

export interface DocResult {
  valid: boolean;
  /** libxml2 messages for this document, file/line prefix removed. */
  errors: string[];
}

const XMLDSIG_URL = 'http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd';
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
 * untouched). The first file of each set is the root passed to xmllint:
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
  const local = (s: string): string => s.replace(XMLDSIG_URL, 'xmldsig-core-schema.xsd');
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
    { fileName: 'ticketBaiV1-2-2.xsd', contents: local(read('v1-2-2', 'ticketbaiv1-2-2.xsd')) },
    { fileName: 'Anula_ticketBaiV1-2-2.xsd', contents: local(read('v1-2-2', 'anula_ticketbaiv1-2-2.xsd')) },
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

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const factory = require(workerData.modulePath);
const compiled = new WebAssembly.Module(fs.readFileSync(workerData.wasmPath));
const sets = workerData.sets;
parentPort.on('message', (msg) => {
  if (!msg || msg.kind !== 'tbai-validate') return;
  let stderr = '';
  let done = false;
  const finish = (exitCode) => {
    if (done) return;
    done = true;
    parentPort.postMessage({ kind: 'tbai-result', id: msg.id, exitCode, stderr });
  };
  const schemas = sets[msg.set];
  const docs = msg.docs.map((contents, i) => ({ fileName: 'd' + i + '.xml', contents }));
  try {
    factory({
      inputFiles: docs.concat(schemas),
      arguments: ['--nonet', '--noout', '--schema', schemas[0].fileName].concat(docs.map((d) => d.fileName)),
      print() {},
      printErr(t) { stderr += t + '\n'; },
      onExit: finish,
      onAbort(r) { stderr += 'WASM abort: ' + r + '\n'; finish(-1); },
      wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: workerData.maxMemoryPages }),
      instantiateWasm(imports, cb) {
        WebAssembly.instantiate(compiled, imports).then((inst) => cb(inst), (e) => { stderr += String(e); finish(-3); });
        return {};
      },
    }).catch((e) => { stderr += String(e) + '\n'; finish(-2); });
  } catch (e) {
    stderr += String(e) + '\n';
    finish(-2);
  }
});
`;

interface Job {
  id: number;
  set: SchemaSetName;
  docs: string[];
  resolve: (r: DocResult[]) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  busy: Job | null;
}

/** Splits xmllint's stderr of a multi-file run into one verdict per document. */
export function splitResults(stderr: string, count: number): DocResult[] {
  const out: DocResult[] = Array.from({ length: count }, () => ({ valid: false, errors: [] }));
  for (const raw of stderr.split('\n')) {
    const line = raw.trimEnd();
    if (!line.trim()) continue;
    const ok = /^d(\d+)\.xml validates$/.exec(line);
    if (ok) {
      const r = out[Number(ok[1])];
      if (r) r.valid = true;
      continue;
    }
    if (/^d\d+\.xml fails to validate$/.test(line)) continue;
    const m = /^d(\d+)\.xml:\d+:\s*(.*)$/.exec(line);
    if (m) out[Number(m[1])]?.errors.push(m[2] ?? '');
    // Other lines (parser context, caret) are noise.
  }
  for (const r of out) if (!r.valid && r.errors.length === 0) r.errors.push('the document could not be validated');
  return out;
}

export interface TbaiXsdPoolOptions {
  poolSize?: number;
  timeoutMs?: number;
  maxMemoryPages?: number;
}

export class TbaiXsdPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly workerData: Record<string, unknown>;
  private readonly timeoutMs: number;

  constructor(sets: Record<SchemaSetName, XsdFile[]>, opts: TbaiXsdPoolOptions = {}) {
    const req = createRequire(import.meta.url);
    this.workerData = {
      modulePath: req.resolve('xmllint-wasm/xmllint-node.js'),
      wasmPath: req.resolve('xmllint-wasm/xmllint.wasm'),
      sets,
      maxMemoryPages: opts.maxMemoryPages ?? 16_384,
    };
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    const n = Math.max(1, opts.poolSize ?? 1);
    for (let i = 0; i < n; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.workerData });
    worker.unref();
    const slot: Slot = { worker, busy: null };
    worker.on('message', (m: { kind?: string; id?: number; exitCode?: number; stderr?: string }) => {
      if (m.kind !== 'tbai-result') return;
      const job = slot.busy;
      if (!job || job.id !== m.id) return;
      slot.busy = null;
      if (job.timer) clearTimeout(job.timer);
      const code = m.exitCode ?? -1;
      // 0 all valid, 3/4 validation failures, 1 a document is not well-formed.
      if (code === 0 || code === 1 || code === 3 || code === 4) {
        const results = splitResults(m.stderr ?? '', job.docs.length);
        if (code === 4 && results.every((r) => !r.valid) && /failed to compile|WXS schema/i.test(m.stderr ?? '')) {
          job.reject(new Error(`xsd set ${job.set} does not compile: ${(m.stderr ?? '').slice(0, 500)}`));
        } else {
          job.resolve(results);
        }
      } else {
        job.reject(new Error(`xmllint failed (exit ${code}): ${(m.stderr ?? '').slice(0, 500)}`));
      }
      this.pump();
    });
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', () => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, new Error('xsd worker exited'));
    });
    return slot;
  }

  private replace(slot: Slot, err: Error): void {
    const job = slot.busy;
    slot.busy = null;
    if (job) {
      if (job.timer) clearTimeout(job.timer);
      job.reject(err);
    }
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
    if (!this.closed) {
      this.slots.push(this.spawn());
      this.pump();
    }
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.busy = job;
      job.timer = setTimeout(() => this.replace(slot, new Error('xsd validation timed out')), this.timeoutMs);
      job.timer.unref();
      slot.worker.postMessage({ kind: 'tbai-validate', id: job.id, set: job.set, docs: job.docs });
    }
  }

  /** Validates every document against the set; one result per document, in order. */
  validateMany(set: SchemaSetName, docs: string[]): Promise<DocResult[]> {
    if (this.closed) return Promise.reject(new Error('TbaiXsdPool is closed'));
    if (docs.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, set, docs, resolve, reject });
      this.pump();
    });
  }

  async validate(set: SchemaSetName, doc: string): Promise<DocResult> {
    const [r] = await this.validateMany(set, [doc]);
    return r ?? { valid: false, errors: ['no result'] };
  }

  async warmup(): Promise<void> {
    await Promise.all(this.slots.map(() => this.validate('tbai', '<warmup/>').catch(() => undefined)));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('TbaiXsdPool closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.busy) {
          if (s.busy.timer) clearTimeout(s.busy.timer);
          s.busy.reject(new Error('TbaiXsdPool closed'));
        }
        return s.worker.terminate();
      }),
    );
  }
}
