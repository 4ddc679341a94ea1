import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// XSD validation with libxml2 (libxml2-wasm), shared by the AEAT and TicketBAI emulators, in
// warm worker threads off the emulators' event loop. Each worker compiles every named schema set
// once, when it starts, and validates every later document against the compiled schema: with
// xmllint-wasm, which only exports xmllint's `main`, each request recompiled the whole set inside
// a fresh wasm instance. The imports between schema files are served from memory (libxml2's
// virtual IO), so nothing is read from disk or the network.
//
// The verdicts and messages are xmllint's: the document is parsed with xmllint's default options
// (plus --nonet), validated even when the parser reported a recoverable (namespace) error, and
// each diagnostic is written as xmllint writes it on stderr without the file/line prefix and the
// source-context lines ("parser error : …", "namespace error : …", "Schemas validity error : …").
// What a verdict means is left to the caller.

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

/** One document's verdict: libxml2's diagnostics as xmllint prints them (empty when valid). */
export interface XsdDocResult {
  valid: boolean;
  errors: string[];
}

/** One run: a verdict per document, in order, the time spent inside the worker and its memory after the run. */
export interface XsdRun {
  results: XsdDocResult[];
  ms: number;
  /** The worker's wasm heap once the run was over (0 when it could not be seen). */
  memoryBytes: number;
}

// Plain JS so it runs in a worker whatever loader (tsx, vitest) runs the host; libxml2-wasm is an
// ES module, imported by its resolved path.
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
// xmllint's defaults (XML_PARSE_COMPACT | XML_PARSE_BIG_LINES) and --nonet (XML_PARSE_NONET).
const PARSE_OPTIONS = 65536 | 4194304 | 2048;
// Keeps the parser's reports from the error handler: libxml2-wasm fails a parse on any reported
// error, even one after which libxml2 kept the document.
const XML_PARSE_NOERROR = 32;
const XML_ERR_FATAL = 3;
// The parser's namespace-domain messages (xmlNsErr, xmlNsWarn): xmllint prefixes them "namespace".
const NAMESPACE_MESSAGE = /^(?:xmlns|xml namespace|Namespace prefix|Namespaced Attribute|Failed to parse QName|redefinition of the xmlns|reuse of the xmlns)/;

const encoder = new TextEncoder();

function lines(details, domainOf) {
  const out = [];
  for (const d of details) {
    const text = d.message.replace(/\n+$/, '').split('\n');
    out.push(domainOf(d) + (d.level === 1 ? ' warning : ' : ' error : ') + text[0]);
    for (let i = 1; i < text.length; i++) out.push(text[i]);
  }
  return out;
}
const parserDomain = (d) => (NAMESPACE_MESSAGE.test(d.message) ? 'namespace' : 'parser');
const schemaDomain = () => 'Schemas validity';

// libxml2's heap: the memory its wasm instance exports (libxml2-wasm keeps it to itself), caught
// when the instance is made. It grows to what the largest document needed and never shrinks.
let wasmMemory = null;
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async (...args) => {
  const made = await instantiate.apply(WebAssembly, args);
  const memory = (made.instance ?? made).exports.memory;
  if (memory instanceof WebAssembly.Memory) wasmMemory = memory;
  return made;
};
const wasmHeapBytes = () => (wasmMemory ? wasmMemory.buffer.byteLength : 0);

const setup = import(pathToFileURL(workerData.libxml2Path).href).then((lx) => {
  WebAssembly.instantiate = instantiate;
  // Each set's files are offered while that set compiles: two sets may use one name for different files.
  const provider = new lx.XmlBufferInputProvider({});
  lx.xmlRegisterInputProvider(provider);
  const sets = {};
  for (const [name, files] of Object.entries(workerData.sets)) {
    const bytes = files.map((f) => encoder.encode(f.contents));
    files.forEach((f, i) => provider.addBuffer(f.fileName, bytes[i]));
    try {
      // The schema document stays alive as long as the schema compiled from it.
      const schemaDoc = lx.XmlDocument.fromBuffer(bytes[0], { url: files[0].fileName, option: PARSE_OPTIONS });
      sets[name] = { validator: lx.XsdValidator.fromDoc(schemaDoc), schemaDoc };
    } catch (e) {
      sets[name] = { failure: 'xsd set ' + name + ' does not compile: ' + String(e && e.message || e).slice(0, 500) };
    } finally {
      for (const f of files) provider.removeBuffer(f.fileName);
    }
  }
  return { lx, sets };
});

function parse(lx, doc, option) {
  return lx.XmlDocument.fromBuffer(doc.contents, { url: doc.fileName, option });
}

function validateOne(lx, validator, doc) {
  let parsed;
  let diagnostics = [];
  try {
    parsed = parse(lx, doc, PARSE_OPTIONS);
    diagnostics = lines(parsed.warnings, parserDomain);
  } catch (e) {
    if (!(e instanceof lx.XmlParseError)) throw e;
    const details = e.details || [];
    diagnostics = lines(details, parserDomain);
    // A fatal error leaves no document. Recoverable ones (an undeclared prefix…) leave one that
    // xmllint still validates; libxml2-wasm drops it, so it is parsed again with the reports off.
    if (details.length === 0 || details.some((d) => d.level >= XML_ERR_FATAL)) {
      return { valid: false, errors: diagnostics.length ? diagnostics : ['parser error : the document could not be parsed'] };
    }
    try {
      parsed = parse(lx, doc, PARSE_OPTIONS | XML_PARSE_NOERROR);
    } catch (again) {
      if (!(again instanceof lx.XmlParseError)) throw again;
      return { valid: false, errors: diagnostics };
    }
  }
  try {
    validator.validate(parsed);
    return { valid: true, errors: [] };
  } catch (e) {
    if (!(e instanceof lx.XmlValidateError)) throw e;
    return { valid: false, errors: diagnostics.concat(lines(e.details, schemaDomain)) };
  } finally {
    parsed.dispose();
  }
}

parentPort.on('message', (msg) => {
  if (!msg || msg.kind !== 'xsd-validate') return;
  setup.then(({ lx, sets }) => {
    const t0 = performance.now();
    const set = sets[msg.set];
    if (!set) throw new Error('unknown xsd set ' + msg.set);
    if (set.failure) throw new Error(set.failure);
    const results = msg.docs.map((d) => validateOne(lx, set.validator, d));
    parentPort.postMessage({ kind: 'xsd-result', id: msg.id, results, ms: performance.now() - t0, memoryBytes: wasmHeapBytes() });
  }).catch((e) => {
    parentPort.postMessage({ kind: 'xsd-result', id: msg.id, failure: String(e && e.stack || e).slice(0, 2000) });
  });
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

interface WorkerAnswer {
  kind?: string;
  id?: number;
  results?: XsdDocResult[];
  ms?: number;
  memoryBytes?: number;
  failure?: string;
}

export interface XsdPoolOptions {
  /** Parallel validations (one worker each). */
  poolSize: number;
  /** A validation taking longer is abandoned and its worker replaced. */
  timeoutMs: number;
  /**
   * A worker whose memory (its wasm heap: a wasm memory never shrinks) has grown past this is
   * replaced once it has answered. Default 512 MiB. The heap itself cannot pass libxml2-wasm's
   * own ceiling of 2 GiB: a document that needs more fails with libxml2's out-of-memory error.
   */
  recycleAboveBytes?: number;
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
  private readonly recycleAboveBytes: number;
  private readonly name: string;
  private spawned = 0;

  constructor(sets: Readonly<Record<string, readonly XsdFile[]>>, opts: XsdPoolOptions) {
    this.workerData = {
      libxml2Path: createRequire(import.meta.url).resolve('libxml2-wasm'),
      sets: Object.fromEntries(
        Object.entries(sets).map(([k, files]) => [k, files.map((s) => ({ fileName: s.fileName, contents: s.contents }))]),
      ),
    };
    this.timeoutMs = opts.timeoutMs;
    this.recycleAboveBytes = opts.recycleAboveBytes ?? 512 * 1024 * 1024;
    this.name = opts.name;
    const n = Math.max(1, opts.poolSize);
    for (let i = 0; i < n; i++) this.slots.push(this.spawn());
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Workers started so far, replacements included. */
  get workersStarted(): number {
    return this.spawned;
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.workerData });
    this.spawned++;
    // Idle validators must not keep a test process or CLI alive.
    worker.unref();
    const slot: Slot = { worker, busy: null };
    worker.on('message', (m: WorkerAnswer) => {
      if (m.kind !== 'xsd-result') return;
      const job = slot.busy;
      if (!job || job.id !== m.id) return;
      slot.busy = null;
      if (job.timer) clearTimeout(job.timer);
      if (m.failure !== undefined) job.reject(new Error(`${this.name}: ${m.failure}`));
      else job.resolve({ results: m.results ?? [], ms: m.ms ?? 0, memoryBytes: m.memoryBytes ?? 0 });
      if ((m.memoryBytes ?? 0) > this.recycleAboveBytes) this.replace(slot, null);
      else this.pump();
    });
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', () => {
      if (!this.isClosed && this.slots.includes(slot)) this.replace(slot, new Error('xsd worker exited'));
    });
    return slot;
  }

  /** Ends the slot's worker (failing its job with `err`) and starts a new one in its place. */
  private replace(slot: Slot, err: Error | null): void {
    const job = slot.busy;
    slot.busy = null;
    if (job) {
      if (job.timer) clearTimeout(job.timer);
      job.reject(err ?? new Error('xsd worker replaced'));
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

  /** Validates the documents against the set: one verdict per document, in order. */
  run(set: string, docs: ReadonlyArray<XsdFile | EncodedFile>): Promise<XsdRun> {
    if (this.isClosed) return Promise.reject(new Error(`${this.name} is closed`));
    const encoder = new TextEncoder();
    // TextEncoder gives each document a buffer of its own, safe to transfer.
    const encoded = docs.map(({ fileName, contents }): EncodedFile =>
      typeof contents === 'string' ? { fileName, contents: encoder.encode(contents) } : { fileName, contents },
    );
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, set, docs: encoded, resolve, reject });
      this.pump();
    });
  }

  /** Runs a throw-away validation on each worker: the schemas are compiled and the code warm before the first real one. */
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
