import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// XSD validation with libxml2 (xmllint-wasm), shared by the AEAT and TicketBAI
// emulators. The library's validateXML() spawns a worker and compiles the wasm
// on every call (~250 ms even for one record); we keep warm workers that hold
// the compiled module and only instantiate it per request, which brings a
// 1000-record batch to ~50 ms. A worker knows several named schema sets (picked
// per call), and one call validates any number of documents in a single xmllint
// run (instantiating the wasm module per document would cost more than the
// validation). What an exit code means is left to the caller.
// Every file reaches the wasm file system as UTF-8 bytes: the glue's own string path encodes
// character by character in JavaScript (a third of a 2 MB request's validation time). Schemas are
// encoded once per worker, documents by the caller's thread and handed over without a copy.

export interface XsdFile {
  fileName: string;
  contents: string;
}

/**
 * A document on its way to a worker: its UTF-8 bytes, whose buffer is transferred. A caller that
 * has the bytes already hands them over this way (a view of a whole ArrayBuffer it gives up).
 */
export interface EncodedFile {
  fileName: string;
  contents: Uint8Array;
}

const XMLDSIG_URL = 'http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd';

/** The xmldsig import points at W3C by absolute URL; in-memory copies point at the local file instead. */
export const localXmldsig = (schema: string): string => schema.replace(XMLDSIG_URL, 'xmldsig-core-schema.xsd');

/** One xmllint run: its exit code, its stderr, and the time spent inside the worker. */
export interface XsdRun {
  exitCode: number;
  stderr: string;
  ms: number;
}

// Plain JS so it runs in a worker whatever loader (tsx, vitest) runs the host.
// xmllint-node.js registers its own parentPort listener; it ignores our
// messages because they lack its 'xmllint-wasm' tag.
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const factory = require(workerData.modulePath);
const compiled = new WebAssembly.Module(fs.readFileSync(workerData.wasmPath));
const encoder = new TextEncoder();
const sets = {};
for (const [name, files] of Object.entries(workerData.sets)) {
  sets[name] = files.map((f) => ({ fileName: f.fileName, contents: encoder.encode(f.contents) }));
}
const INITIAL_PAGES = 256;
// The wasm memory of the last run, zeroed: to the next instance the same as a new one, without
// allocating 16 MiB per run (page faults, and external memory that drove this thread's GC).
let spare = null;
const takeMemory = () => {
  const m = spare ?? new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: workerData.maxMemoryPages });
  spare = null;
  return m;
};
// Below this, a run touches few pages of a new memory: zeroing all 16 MiB would cost more.
const REUSE_FROM_BYTES = 256 * 1024;
const giveBack = (m) => {
  // One that grew is left to the GC: zeroing it on every run would cost more than it saves.
  if (m.buffer.byteLength !== INITIAL_PAGES * 65536) return;
  new Uint8Array(m.buffer).fill(0);
  spare = m;
};
parentPort.on('message', (msg) => {
  if (!msg || msg.kind !== 'xsd-validate') return;
  const t0 = performance.now();
  let stderr = '';
  let done = false;
  const memory = takeMemory();
  const finish = (exitCode) => {
    if (done) return;
    done = true;
    parentPort.postMessage({ kind: 'xsd-result', id: msg.id, exitCode, stderr, ms: performance.now() - t0 });
    // xmllint has exited (onExit is called from inside it): reuse its memory once the stack has unwound.
    if (exitCode >= 0 && docBytes >= REUSE_FROM_BYTES) setImmediate(() => giveBack(memory));
  };
  const schemas = sets[msg.set];
  const docs = msg.docs;
  const docBytes = docs.reduce((n, d) => n + d.contents.byteLength, 0);
  try {
    factory({
      inputFiles: docs.concat(schemas),
      arguments: ['--nonet', '--noout', '--schema', schemas[0].fileName].concat(docs.map((d) => d.fileName)),
      print() {},
      printErr(t) { stderr += t + '\n'; },
      onExit: finish,
      onAbort(r) { stderr += 'WASM abort: ' + r + '\n'; finish(-1); },
      wasmMemory: memory,
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
  set: string;
  docs: EncodedFile[];
  resolve: (r: XsdRun) => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  busy: Job | null;
}

export interface XsdPoolOptions {
  /** Parallel validations (one worker each). */
  poolSize: number;
  /** A validation taking longer is abandoned and its worker replaced. */
  timeoutMs: number;
  /** wasm memory ceiling in 64 KiB pages. Default 16384 (1 GiB). */
  maxMemoryPages?: number;
  /** Name used in the errors of a closed pool. */
  name: string;
}

export class XsdWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private isClosed = false;
  private readonly workerData: Record<string, unknown>;
  private readonly timeoutMs: number;
  private readonly name: string;

  constructor(sets: Readonly<Record<string, readonly XsdFile[]>>, opts: XsdPoolOptions) {
    const req = createRequire(import.meta.url);
    this.workerData = {
      modulePath: req.resolve('xmllint-wasm/xmllint-node.js'),
      wasmPath: req.resolve('xmllint-wasm/xmllint.wasm'),
      sets: Object.fromEntries(
        Object.entries(sets).map(([k, files]) => [k, files.map((s) => ({ fileName: s.fileName, contents: s.contents }))]),
      ),
      maxMemoryPages: opts.maxMemoryPages ?? 16_384,
    };
    this.timeoutMs = opts.timeoutMs;
    this.name = opts.name;
    const n = Math.max(1, opts.poolSize);
    for (let i = 0; i < n; i++) this.slots.push(this.spawn());
  }

  get closed(): boolean {
    return this.isClosed;
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.workerData });
    // Idle validators must not keep a test process or CLI alive.
    worker.unref();
    const slot: Slot = { worker, busy: null };
    worker.on('message', (m: { kind?: string; id?: number; exitCode?: number; stderr?: string; ms?: number }) => {
      if (m.kind !== 'xsd-result') return;
      const job = slot.busy;
      if (!job || job.id !== m.id) return;
      slot.busy = null;
      if (job.timer) clearTimeout(job.timer);
      job.resolve({ exitCode: m.exitCode ?? -1, stderr: m.stderr ?? '', ms: m.ms ?? 0 });
      this.pump();
    });
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', () => {
      if (!this.isClosed && this.slots.includes(slot)) this.replace(slot, new Error('xsd worker exited'));
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
    if (!this.isClosed) {
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
      slot.worker.postMessage(
        { kind: 'xsd-validate', id: job.id, set: job.set, docs: job.docs },
        job.docs.map((d) => d.contents.buffer as ArrayBuffer),
      );
    }
  }

  /** One xmllint run of the documents against the set (its first file is the root schema). */
  run(set: string, docs: ReadonlyArray<XsdFile | EncodedFile>): Promise<XsdRun> {
    if (this.isClosed) return Promise.reject(new Error(`${this.name} is closed`));
    const encoder = new TextEncoder();
    // TextEncoder gives each document a buffer of its own, safe to transfer.
    const encoded = docs.map((d) =>
      typeof d.contents === 'string' ? { fileName: d.fileName, contents: encoder.encode(d.contents) } : (d as EncodedFile),
    );
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, set, docs: encoded, resolve, reject });
      this.pump();
    });
  }

  /** Runs a throw-away validation on each worker so the first real batch is not paying JIT warm-up. */
  async warmup(set: string): Promise<void> {
    const doc: XsdFile = { fileName: 'doc.xml', contents: '<warmup/>' };
    await Promise.all(this.slots.map(() => this.run(set, [doc]).catch(() => undefined)));
  }

  async close(): Promise<void> {
    this.isClosed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error(`${this.name} closed`));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        if (s.busy) {
          if (s.busy.timer) clearTimeout(s.busy.timer);
          s.busy.reject(new Error(`${this.name} closed`));
        }
        return s.worker.terminate();
      }),
    );
  }
}
