import { isAscii } from 'node:buffer';
import { hash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { CensusDirectory } from '../census-data';
import { censusControlHandler } from '../census-control';
import { sendText } from '../http-util';
import { referenceDir } from '../paths';
import type { EmulatorRouter, TlsOptions } from '../router';
import { createRouter } from '../router';
import { ledgerPath } from '../common/sqlite';
import { HTTP500_HTML, Parking, certNif, cutAnswer, serveWithFaults } from '../common/transport';
import { isoMadrid, madridCompact } from '../time';
import type { Clock, IdSource } from '../types';
import type { ConfigPatch } from './control';
import { aeatControlHandler } from './control';
import { describeError, schemaFaultText } from './errors';
import { Faults } from './faults';
import type { LedgerApi } from './ledger';
import { Ledger } from './ledger';
import { IdReserve, LedgerTurn } from './ledger-turn';
import type { ParsedRequest } from './parse';
import { countRegistroFactura, parseRegFactu } from './parse';
import type { ProcessResult } from './processor';
import { processRecords } from './processor';
import type { PayloadSpan } from './soap';
import type { AeatEndpoint } from './header';
import { CERTIFICATE_REQUIRED_HTML, headerFault, nifFormatFault, presenterFault } from './header';
import { SoapFaultError, clientFault, extractBodyPayload, faultXml, respuestaXml } from './soap';
import type { XsdResult } from './xsd';
import { XsdValidator, loadVerifactuSchemas } from './xsd';

export { Faults } from './faults';
export type { FaultState, FaultsPatch, TransportMode } from './faults';
export { recordKey } from './ledger';
export type { LedgerApi, LedgerRecord, Presentation, RecordKey, Submission, FlowViolation, LedgerSummary } from './ledger';
export { XsdValidator, loadVerifactuSchemas } from './xsd';
export type { XsdResult } from './xsd';
export { extractBodyPayload } from './soap';

/** Same path as AEAT's endpoints (prewww1 / www1 .../VerifactuSOAP). */
export const AEAT_SOAP_PATH = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP';
/** The service for answers to a requerimiento (non-VERI*FACTU systems): only its header rules are emulated. */
export const AEAT_REQUERIMIENTO_PATH = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/RequerimientoSOAP';
const SOAP_PREFIX = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/';
const MAX_RECORDS = 1000;

export interface AeatEmulatorOptions {
  /** Folder for the ledger (`aeat-ledger.sqlite`). Ignored when dbPath is given. */
  dataDir?: string;
  /** Ledger file; `:memory:` for a throw-away ledger (the default when neither is given). */
  dbPath?: string;
  clock?: Clock;
  /** Source of CSVs and IdPeticion (hashed, so any unique strings do). */
  ids?: IdSource;
  /** TiempoEsperaEnvio. Default POS_EMULATOR_WAIT_S or 60 (AEAT's initial value). */
  waitSeconds?: number;
  census?: CensusDirectory;
  /** Validate RegFactuSistemaFacturacion against SuministroLR.xsd. Default true. */
  validateXsd?: boolean;
  /** Tolerance for FechaHoraHusoGenRegistro ahead of the clock before 2004 (AEAT does not publish it). Default 120. */
  futureToleranceSeconds?: number;
  /** Answer 2001 for Destinatarios NIFs missing from the census. Default true, as the real service. */
  checkRecipients?: boolean;
  referenceDir?: string;
  /** Mount on a shared server instead of creating one. */
  router?: EmulatorRouter;
  /** TLS for the server this emulator creates (ignored with `router`). */
  tls?: TlsOptions;
  /** Parallel XSD validations. Default 2. */
  xsdPoolSize?: number;
  /** Validates requests instead of the emulator's own pool (which xsdPoolSize sizes); closed with the emulator. */
  xsdValidator?: DocumentValidator;
  /**
   * Write a request's records while its document is still being validated, committed only if it
   * is valid (same answers and ledger as waiting for the verdict first). Default true; false
   * waits for the verdict first, as the tests comparing both ways do.
   */
  speculativeLedger?: boolean;
  /** Request size cap. Default 64 MiB (1000 records with signatures stay well below). */
  maxBodyBytes?: number;
}

/** What the service needs of an XSD validator (XsdValidator's shape). */
export type DocumentValidator = Pick<XsdValidator, 'validate' | 'warmup' | 'close'>;

export interface AeatConfig {
  waitSeconds: number;
  futureToleranceSeconds: number;
  checkRecipients: boolean;
  validateXsd: boolean;
}

export interface AeatEmulator {
  readonly server: EmulatorRouter['server'];
  readonly router: EmulatorRouter;
  readonly soapPath: string;
  readonly ledger: LedgerApi;
  readonly faults: Faults;
  readonly census: CensusDirectory;
  /** The SOAP endpoint handler, for mounting elsewhere. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  config(): AeatConfig;
  configure(patch: ConfigPatch): AeatConfig;
  /**
   * Empties the ledger and clears faults (and the run-time census additions when asked): at once
   * when no request is at the ledger, else as soon as the one there has finished.
   */
  reset(opts?: { census?: boolean }): Promise<void>;
  /** Reads the ledger once no request is at it (never rows a request may still roll back). */
  readLedger<T>(read: (ledger: LedgerApi) => T): Promise<T>;
  /** Resolves when the XSD workers have warmed up (the first batch is not slower). */
  ready(): Promise<void>;
  listen(port?: number, host?: string): Promise<number>;
  url(): string;
  close(): Promise<void>;
}

function envWaitSeconds(): number | undefined {
  const v = process.env.POS_EMULATOR_WAIT_S;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

function digest(id: string): Buffer {
  return hash('sha256', id, 'buffer');
}

const CSV_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `A-` + 14 characters, the shape of real CSVs (e.g. A-YDSW8NLFLANWPM), derived from the id source. */
function makeCsv(id: string): string {
  const h = digest(`csv:${id}`);
  let s = 'A-';
  for (let i = 0; i < 14; i++) s += CSV_ALPHABET[(h[i] ?? 0) % CSV_ALPHABET.length];
  return s;
}

/** 20 digits like AEAT's (`20241113115410360242`): Madrid timestamp + 6 digits from the id source. */
function makeIdPeticion(now: Date, id: string): string {
  const n = digest(`pet:${id}`).readUInt32BE(0) % 1_000_000;
  return madridCompact(now) + String(n).padStart(6, '0');
}

/** Incidencia of a request the service did not parse (refused or faulted): absent means N. */
function incidenciaOf(xml: string): 'S' | 'N' {
  return /<(?:[\w.-]+:)?Incidencia>\s*S\s*</.test(xml) ? 'S' : 'N';
}

/**
 * The payload's bytes cut out of an ASCII body (one character, one byte), in an ArrayBuffer of
 * their own (never Buffer's shared pool: it is transferred to the XSD worker). Read as latin1 they
 * also give the reader its text as an external string: a 2 MB payload assembled from string
 * pieces was flattened into the JavaScript heap on every request.
 */
function payloadBytes(body: Buffer, span: PayloadSpan): Buffer {
  const head = span.nameEnd - span.start;
  const bytes = Buffer.allocUnsafeSlow(head + span.inserted.length + (span.end - span.nameEnd));
  body.copy(bytes, 0, span.start, span.nameEnd);
  bytes.write(span.inserted, head, 'latin1');
  body.copy(bytes, head + span.inserted.length, span.nameEnd, span.end);
  return bytes;
}

interface Reply {
  status: number;
  contentType: string;
  body: string;
}

/** The XSD verdict of a request, or what the validator threw (a pool timeout, a crashed worker). */
type SchemaVerdict = { ms: number } & ({ threw: false; result: XsdResult } | { threw: true; error: unknown });

/** Settles at once into a verdict: it is awaited only later, after other turns, and must never be an unhandled rejection. */
function schemaVerdict(validation: Promise<XsdResult>, t0: number): Promise<SchemaVerdict> {
  return validation.then(
    (result) => ({ ms: performance.now() - t0, threw: false, result }),
    (error: unknown) => ({ ms: performance.now() - t0, threw: true, error }),
  );
}

/** The 4102 fault of a document the schema refuses, null for a valid one; what the validator threw is rethrown. */
function schemaFault(v: SchemaVerdict): SoapFaultError | null {
  if (v.threw) throw v.error;
  return v.result.valid ? null : clientFault(4102, schemaFaultText(v.result.errors));
}

/** A request that passed the checks made before its ledger work (size, parse, census). */
interface Admitted {
  body: Buffer;
  xml: string;
  parsed: ParsedRequest;
  count: number;
  presentador: string;
  /** The schema's verdict, still to come; null without validation. */
  schema: Promise<SchemaVerdict> | null;
}


const XML_CT = 'text/xml; charset=UTF-8';

export function createAeatEmulator(opts: AeatEmulatorOptions = {}): AeatEmulator {
  const clock: Clock = opts.clock ?? (() => new Date());
  const ids: IdSource = opts.ids ?? randomUUID;
  const census = opts.census ?? new CensusDirectory();
  const cfg: AeatConfig = {
    waitSeconds: opts.waitSeconds ?? envWaitSeconds() ?? 60,
    futureToleranceSeconds: opts.futureToleranceSeconds ?? 120,
    checkRecipients: opts.checkRecipients ?? true,
    validateXsd: opts.validateXsd ?? true,
  };
  const maxBodyBytes = opts.maxBodyBytes ?? 64 * 1024 * 1024;

  const ledger = new Ledger(ledgerPath(opts, 'aeat-ledger.sqlite'));
  const turn = new LedgerTurn();
  const requestIds = new IdReserve(ids);
  const speculative = opts.speculativeLedger ?? true;
  const faults = new Faults();
  const refDir = referenceDir(opts.referenceDir);
  // Schema texts are read once; workers keep them for every request.
  const xsd: DocumentValidator =
    opts.xsdValidator ?? new XsdValidator(loadVerifactuSchemas(refDir, 'SuministroLR.xsd'), { poolSize: opts.xsdPoolSize ?? 2 });
  const warm = xsd.warmup();

  const ownsRouter = !opts.router;
  const router = opts.router ?? createRouter(opts.tls ? { tls: opts.tls } : {});
  const parking = new Parking();
  let closed = false;

  const send = (res: ServerResponse, r: Reply): void => {
    if (res.destroyed || res.writableEnded) return;
    sendText(res, r.status, r.contentType, r.body);
  };

  const logRefused = (
    body: Buffer,
    xml: string | null,
    outcome: 'fault' | 'injected',
    code: string,
    text: string | null,
    validateMs: number | null = null,
    now: Date = clock(),
  ): void => {
    ledger.insertSubmission({
      idPeticion: null,
      receivedAt: now.toISOString(),
      receivedMs: now.getTime(),
      obligado: xml ? (/<(?:[\w.-]+:)?ObligadoEmision>[\s\S]*?<(?:[\w.-]+:)?NIF>\s*([^<\s]+)/.exec(xml)?.[1] ?? null) : null,
      presentador: null,
      recordCount: xml ? countRegistroFactura(xml) : 0,
      requestSha256: hash('sha256', body, 'hex'),
      requestBytes: body.length,
      outcome,
      faultCode: code,
      faultString: text,
      validateMs,
      incidencia: xml ? incidenciaOf(xml) : null,
    });
  };

  /** 4104 / 4105 for an obligado or representante missing from the census, null when both are known. */
  const censusFault = (c: ParsedRequest['cabecera']): SoapFaultError | null => {
    const ob = c.obligado;
    if (!census.isIdentified(ob.nif)) {
      return clientFault(4104, `${describeError(4104)} NIF:${ob.nif}. NOMBRE_RAZON:${ob.nombre}`);
    }
    const rep = c.representante;
    if (rep && !census.isIdentified(rep.nif)) {
      return clientFault(4105, `${describeError(4105)} NIF:${rep.nif}. NOMBRE_RAZON:${rep.nombre}`);
    }
    return null;
  };

  /** The fault answer of a refused request, its row logged. Call in the ledger's turn. */
  const refuse = (body: Buffer, xml: string, err: SoapFaultError, validateMs: number | null, now?: Date): Reply => {
    logRefused(body, xml, 'fault', String(err.codigo ?? err.faultcode), err.faultstring, validateMs, now);
    // SOAP 1.1: faults travel with HTTP 500.
    return { status: 500, contentType: XML_CT, body: faultXml(err) };
  };

  /** The answer to a processed request. */
  const answerOf = (a: Admitted, now: Date, csv: string, result: ProcessResult): Reply => {
    const allRejected = result.estadoEnvio === 'Incorrecto';
    const respuesta = respuestaXml({
      ...(allRejected ? {} : { csv, presentacion: { nifPresentador: a.presentador, timestamp: isoMadrid(now) } }),
      cabecera: a.parsed.cabecera,
      tiempoEsperaEnvio: cfg.waitSeconds,
      estadoEnvio: result.estadoEnvio,
      lineas: result.lineas,
    });
    return { status: 200, contentType: XML_CT, body: respuesta };
  };

  /**
   * The request's ledger work, in its turn. Unless a verdict override is armed (its uses are taken
   * record by record and could not be given back), the work is done while libxml2 still
   * validates, in a transaction that is committed only if the document is valid: a schema error
   * rolls it back and answers exactly as if nothing had been written.
   */
  const processInTurn = async (a: Admitted): Promise<Reply> => {
    const speculate = a.schema !== null && speculative && !faults.overridesArmed;
    let validateMs: number | null = null;
    if (a.schema && !speculate) {
      const v = await a.schema;
      validateMs = v.ms;
      const fault = schemaFault(v);
      if (fault) return refuse(a.body, a.xml, fault, validateMs);
    }
    const ob = a.parsed.cabecera.obligado;
    const t1 = performance.now();
    // Pure reads for the clocks in use (the real one, the tests' hand-moved one); the id is given
    // back if the schema then refuses the request, and a refused request logs this same instant.
    const now = clock();
    const id = requestIds.take();
    const idPeticion = makeIdPeticion(now, id);
    const csv = makeCsv(id);
    // Committed submissions only: the turn before this one has committed or rolled back.
    const last = ledger.lastProcessedSubmission(ob.nif);
    const sincePreviousMs = last ? now.getTime() - last.receivedMs : null;
    const requiredWaitMs = last ? last.waitSeconds * 1000 : null;
    // A full batch may go early: "o deberá esperar a tener acumulados ... el límite".
    const flowViolation =
      sincePreviousMs !== null && requiredWaitMs !== null && sincePreviousMs < requiredWaitMs && a.count < MAX_RECORDS;

    ledger.begin();
    let submissionId: number;
    let result: ProcessResult;
    try {
      submissionId = ledger.insertSubmission({
        idPeticion,
        receivedAt: now.toISOString(),
        receivedMs: now.getTime(),
        obligado: ob.nif,
        presentador: a.presentador,
        recordCount: a.count,
        requestSha256: hash('sha256', a.body, 'hex'),
        requestBytes: a.body.length,
        outcome: 'processed',
        waitSeconds: cfg.waitSeconds,
        sincePreviousMs,
        requiredWaitMs,
        flowViolation,
        incidencia: a.parsed.cabecera.remisionVoluntaria?.incidencia === 'S' ? 'S' : 'N',
      });
      // headerFault let RemisionRequerimiento through on the requirement endpoint only.
      const ref = a.parsed.cabecera.remisionRequerimiento?.refRequerimiento;
      result = processRecords(
        { ledger, census, faults, config: cfg, now, submissionId, idPeticion, csv, ...(ref === undefined ? {} : { requerimiento: ref }) },
        a.parsed,
      );
    } catch (err) {
      ledger.rollback();
      throw err;
    }
    const processMs = performance.now() - t1;
    // Made before the verdict too: once it is in, only the commit stands between it and the answer.
    const reply = answerOf(a, now, csv, result);
    if (speculate && a.schema) {
      const v = await a.schema;
      validateMs = v.ms;
      if (v.threw || !v.result.valid) {
        // As if the work had waited for the verdict: nothing written, the id never drawn.
        ledger.rollback();
        requestIds.giveBack(id);
        const fault = schemaFault(v);
        if (fault) return refuse(a.body, a.xml, fault, validateMs, now);
      }
    }
    try {
      ledger.finishSubmission({
        id: submissionId,
        csv: result.estadoEnvio === 'Incorrecto' ? null : csv,
        estadoEnvio: result.estadoEnvio,
        accepted: result.accepted,
        acceptedWithErrors: result.acceptedWithErrors,
        rejected: result.rejected,
        validateMs,
        processMs,
      });
    } catch (err) {
      ledger.rollback();
      throw err;
    }
    ledger.commit();
    return reply;
  };

  /** Runs the service on one request body; never throws for client errors. */
  const serve = async (req: IncomingMessage, body: Buffer, endpoint: AeatEndpoint): Promise<Reply> => {
    // What tills send is ASCII (names escaped or plain): then latin1 is UTF-8, decoded and encoded by copy.
    const ascii = isAscii(body);
    const xml = body.toString(ascii ? 'latin1' : 'utf8');
    let validateMs: number | null = null;
    try {
      const payload = extractBodyPayload(xml);
      if (payload.localName !== 'RegFactuSistemaFacturacion') {
        throw clientFault(
          4102,
          `El XML no cumple el esquema. Operación no soportada por el emulador: ${payload.localName}`,
        );
      }
      const bytes = ascii ? payloadBytes(body, payload.span) : null;
      // Read before the bytes are handed over.
      const payloadXml = bytes ? bytes.toString('latin1') : payload.xml;
      const count = countRegistroFactura(payloadXml);
      if (count > MAX_RECORDS) {
        throw clientFault(
          4102,
          `El XML no cumple el esquema. Se ha superado el límite de ${MAX_RECORDS} registros por envío (${count}).`,
        );
      }
      // Parse on this thread while libxml2 validates in a worker; schema errors win.
      const schema = cfg.validateXsd ? schemaVerdict(xsd.validate(bytes ?? payload.xml), performance.now()) : null;
      let parsed: ParsedRequest | undefined;
      let parseError: unknown;
      try {
        parsed = parseRegFactu(payloadXml);
      } catch (err) {
        parseError = err;
      }
      const holder = certNif(req);
      const refusal = parsed
        ? (presenterFault(parsed.cabecera, holder) ?? nifFormatFault(parsed.cabecera) ?? censusFault(parsed.cabecera) ?? headerFault(parsed.cabecera, endpoint, clock()))
        : parseError;
      if (!parsed || refusal) {
        // Refused whatever the schema says; which fault is answered waits for its verdict.
        if (schema) {
          const v = await schema;
          validateMs = v.ms;
          const fault = schemaFault(v);
          if (fault) throw fault;
        }
        throw refusal;
      }
      const presentador = holder ?? parsed.cabecera.representante?.nif ?? parsed.cabecera.obligado.nif;
      const admitted: Admitted = { body, xml, parsed, count, presentador, schema };
      return await turn.run(() => processInTurn(admitted));
    } catch (err) {
      if (err instanceof SoapFaultError) return turn.run(() => refuse(body, xml, err, validateMs));
      throw err;
    }
  };

  const injectedReply = (mode: string, processed: Reply | null): Reply => {
    switch (mode) {
      case 'http500':
        return { status: 500, contentType: 'text/html; charset=UTF-8', body: HTTP500_HTML };
      case 'serverFault':
        return {
          status: 500,
          contentType: XML_CT,
          body: faultXml({
            faultcode: 'env:Server',
            faultstring: 'Se ha producido un error interno en el servidor. Reintente el envío.',
          }),
        };
      default: {
        // malformed: a real answer cut in the middle (or the start of one).
        const whole =
          processed?.body ??
          `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/">\n<env:Header/>\n<env:Body Id="Body"><tikR:RespuestaRegFactuSistemaFacturacion xmlns:tikR="x"><tikR:CSV>A-`;
        return { status: 200, contentType: XML_CT, body: cutAnswer(whole) };
      }
    }
  };

  const handleAt = async (req: IncomingMessage, res: ServerResponse, endpoint: AeatEndpoint): Promise<void> => {
    if (req.method !== 'POST') {
      send(res, {
        status: 500,
        contentType: XML_CT,
        body: faultXml(clientFault(4135, describeError(4135))),
      });
      return;
    }
    if (router.tls && !(req.socket as Partial<TLSSocket>).authorized) {
      // Only reachable with rejectUnauthorized=false: the AEAT's front end answers 401 and an HTML page.
      send(res, { status: 401, contentType: 'text/html; charset=UTF-8', body: CERTIFICATE_REQUIRED_HTML });
      return;
    }
    await serveWithFaults(
      {
        takeTransport: () => faults.takeTransport(),
        maxBodyBytes,
        parking,
        closed: () => closed,
        logInjected: (body, mode) => turn.run(() => logRefused(body, body.toString('utf8'), 'injected', mode, null)),
        send,
        tooLarge: { status: 413, contentType: 'text/plain', body: 'Request Entity Too Large' },
        broken: injectedReply,
      },
      req,
      res,
      (body) => serve(req, body, endpoint),
    );
  };
  const handle = (req: IncomingMessage, res: ServerResponse): Promise<void> => handleAt(req, res, 'verifactu');

  const emu: AeatEmulator = {
    server: router.server,
    router,
    soapPath: AEAT_SOAP_PATH,
    ledger,
    faults,
    census,
    handle,
    config: () => ({ ...cfg }),
    configure(patch) {
      Object.assign(cfg, Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
      return { ...cfg };
    },
    reset: (o = {}) =>
      turn.run(() => {
        ledger.reset();
        faults.reset();
        if (o.census) census.reset();
      }),
    readLedger: (read) => turn.run(() => read(ledger)),
    ready: () => warm,
    listen: (port = 0, host = '127.0.0.1') => router.listen(port, host),
    url: () => router.url(),
    async close() {
      if (closed) return;
      closed = true;
      parking.release();
      if (ownsRouter) await router.close();
      await xsd.close();
      // After the request at the ledger (if any) has committed or rolled back.
      await turn.run(() => ledger.close());
    },
  };

  router.mount({
    prefix: SOAP_PREFIX,
    owner: 'aeat',
    handle: async (req, res, p) => {
      if (p === AEAT_REQUERIMIENTO_PATH) {
        await handleAt(req, res, 'requerimiento');
        return;
      }
      if (p !== AEAT_SOAP_PATH) {
        sendText(res, 404, 'text/plain', 'Not Found');
        return;
      }
      await handle(req, res);
    },
  });
  router.mount(aeatControlHandler(emu, '/__control/aeat/'));
  if (!router.has('/__control/')) router.mount(aeatControlHandler(emu, '/__control/'));
  if (!router.has('/__control/census')) router.mount(censusControlHandler(census));
  return emu;
}
