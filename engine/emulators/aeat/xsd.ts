import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

// XSD validation with libxml2 (xmllint-wasm). The library's validateXML()
// spawns a worker and compiles the wasm on every call (~250 ms even for one
// record); we keep warm workers that hold the compiled module and only
// instantiate it per request, which brings a 1000-record batch to ~50 ms.

export interface XsdFile {
  fileName: string;
  contents: string;
}

export interface XsdResult {
  valid: boolean;
  /** libxml2 messages, file/line prefix removed. */
  errors: string[];
  /** Time spent inside the worker. */
  ms: number;
}

const XMLDSIG_URL = 'http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd';

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
  files.push({
    fileName: 'SuministroInformacion.xsd',
    contents: read('SuministroInformacion.xsd').replace(XMLDSIG_URL, 'xmldsig-core-schema.xsd'),
  });
  files.push({ fileName: 'xmldsig-core-schema.xsd', contents: read('xmldsig-core-schema.xsd') });
  return files;
}

// Plain JS so it runs in a worker whatever loader (tsx, vitest) runs the host.
// xmllint-node.js registers its own parentPort listener; it ignores our
// messages because they lack its 'xmllint-wasm' tag.
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const factory = require(workerData.modulePath);
const compiled = new WebAssembly.Module(fs.readFileSync(workerData.wasmPath));
const schemas = workerData.schemas;
parentPort.on('message', (msg) => {
  if (!msg || msg.kind !== 'validate') return;
  const t0 = performance.now();
  let stderr = '';
  let done = false;
  const finish = (exitCode) => {
    if (done) return;
    done = true;
    parentPort.postMessage({ kind: 'result', id: msg.id, exitCode, stderr, ms: performance.now() - t0 });
  };
  try {
    factory({
      inputFiles: [{ fileName: 'doc.xml', contents: msg.xml }].concat(schemas),
      arguments: ['--nonet', '--noout', '--schema', schemas[0].fileName, 'doc.xml'],
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
  xml: string;
  resolve: (r: XsdResult) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  busy: Job | null;
}

export interface XsdValidatorOptions {
  /** Parallel validations (one worker each). Default 2. */
  poolSize?: number;
  /** A validation taking longer is abandoned and its worker replaced. Default 30 s. */
  timeoutMs?: number;
  /** wasm memory ceiling in 64 KiB pages. Default 16384 (1 GiB). */
  maxMemoryPages?: number;
}

export class XsdValidator {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly workerData: Record<string, unknown>;
  private readonly timeoutMs: number;

  constructor(schemas: readonly XsdFile[], opts: XsdValidatorOptions = {}) {
    if (schemas.length === 0) throw new Error('XsdValidator needs at least the root schema');
    const req = createRequire(import.meta.url);
    this.workerData = {
      modulePath: req.resolve('xmllint-wasm/xmllint-node.js'),
      wasmPath: req.resolve('xmllint-wasm/xmllint.wasm'),
      schemas: schemas.map((s) => ({ fileName: s.fileName, contents: s.contents })),
      maxMemoryPages: opts.maxMemoryPages ?? 16_384,
    };
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    const n = Math.max(1, opts.poolSize ?? 2);
    for (let i = 0; i < n; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.workerData });
    // Idle validators must not keep a test process or CLI alive.
    worker.unref();
    const slot: Slot = { worker, busy: null };
    worker.on('message', (m: { kind?: string; id?: number; exitCode?: number; stderr?: string; ms?: number }) => {
      if (m.kind !== 'result') return;
      const job = slot.busy;
      if (!job || job.id !== m.id) return;
      slot.busy = null;
      if (job.timer) clearTimeout(job.timer);
      const code = m.exitCode ?? -1;
      const stderr = m.stderr ?? '';
      // xmllint: 0 valid, 3/4 invalid; anything else is a crash of the tool.
      if (code === 0 || code === 3 || code === 4) {
        job.resolve({ valid: code === 0, errors: code === 0 ? [] : parseErrors(stderr), ms: m.ms ?? 0 });
      } else {
        job.reject(new Error(`xmllint failed (exit ${code}): ${stderr.slice(0, 500)}`));
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
      slot.worker.postMessage({ kind: 'validate', id: job.id, xml: job.xml });
    }
  }

  validate(xml: string): Promise<XsdResult> {
    if (this.closed) return Promise.reject(new Error('XsdValidator is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, xml, resolve, reject });
      this.pump();
    });
  }

  /** Runs a throw-away validation on each worker so the first real batch is not paying JIT warm-up. */
  async warmup(): Promise<void> {
    await Promise.all(this.slots.map(() => this.validate('<warmup/>').catch(() => undefined)));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('XsdValidator closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.busy) {
          if (s.busy.timer) clearTimeout(s.busy.timer);
          s.busy.reject(new Error('XsdValidator closed'));
        }
        return s.worker.terminate();
      }),
    );
  }
}

function parseErrors(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.endsWith('fails to validate') && !l.endsWith(' validates'))
    .map((l) => l.replace(/^doc\.xml:\d+:\s*/, ''));
}
