import type { Statement } from 'better-sqlite3';
import type { Row } from '../common/sqlite';
import { SqliteLedger, boolOrNull, num, numOrNull, str, strOrNull } from '../common/sqlite';
import type { Provincia } from './urls';

// What the emulated treasuries hold, in one SQLite file with a `provincia`
// column everywhere (one logical ledger per province). Levels, as in the AEAT
// ledger:
//  - submissions: every HTTP request that reached a service (refused ones too),
//  - presentations: every invoice/cancellation record received, with its verdict,
//  - invoices: one row per invoice (provincia, NIF, serie, número) with the state
//    the treasury keeps,
//  - chains: the last invoice received per (provincia, NIF, device) chain,
//  - devices: devices seen per (provincia, NIF) (Araba's warning 009).

export type TbaiService = 'alta' | 'anulacion' | 'zuzendu-alta' | 'zuzendu-baja';
export type SubmissionService = TbaiService | 'lroe';
export type Verdict = 'accepted' | 'accepted-with-warnings' | 'rejected';
export type InvoiceEstado = 'registrada' | 'anulada' | 'rechazada';
export type SubmissionOutcome = 'processed' | 'refused' | 'injected';

export function invoiceKey(provincia: Provincia, nif: string, serie: string, num: string): string {
  return `${provincia}|${nif.trim()}|${serie.trim()}|${num.trim()}`;
}

export interface TbaiSubmission {
  id: number;
  provincia: Provincia;
  service: SubmissionService;
  receivedAt: string;
  nif: string | null;
  requestSha256: string;
  requestBytes: number;
  recordCount: number;
  outcome: SubmissionOutcome;
  /** Transport fault mode, or the request-level code of a refused request. */
  faultCode: string | null;
  /** 00/01 (Araba, Gipuzkoa) or Correcto/ParcialmenteCorrecto/Incorrecto (LROE). */
  estado: string | null;
  codigo: string | null;
  mensaje: string | null;
  csv: string | null;
  /** LROE `eus-bizkaia-n3-identificativo`. */
  identificativo: string | null;
  processMs: number | null;
}

export interface TbaiInvoice {
  key: string;
  provincia: Provincia;
  nif: string;
  serie: string;
  num: string;
  fecha: string;
  /** Identifier computed from the file (null when its data was missing: 004). */
  idTbai: string | null;
  /** Full SignatureValue of the alta received (Zuzendu: the 100 characters sent). */
  signatureValue: string;
  device: string;
  importeTotal: string | null;
  estado: InvoiceEstado;
  /** True once the treasury accepted the invoice (00 / Correcto / AceptadoConErrores). */
  registered: boolean;
  /** Rejection code while `rechazada`. */
  codigo: string | null;
  /** Warnings of the accepted presentation. */
  warnings: string[];
  csv: string | null;
  /** Registered (SUBSANAR) or changed (MODIFICAR) through Zuzendu. */
  corrected: boolean;
  correction: 'SUBSANAR' | 'MODIFICAR' | null;
  correctedAt: string | null;
  anuladaAt: string | null;
  /** The cancellation came through Zuzendu baja. */
  anulacionCorrected: boolean;
  /** Alta presentations received for the invoice (any verdict). */
  receivedCount: number;
  firstReceivedAt: string;
  updatedAt: string;
  submissionId: number;
}

export interface TbaiPresentation {
  id: number;
  submissionId: number;
  provincia: Provincia;
  line: number;
  service: TbaiService;
  key: string | null;
  nif: string | null;
  idTbai: string | null;
  device: string;
  signatureValue: string;
  /** As answered: 00/01, or the LROE EstadoRegistro. */
  estado: string;
  verdict: Verdict;
  /** Every code answered for the record (rejection or warnings). */
  codes: string[];
  /** An alta for an invoice already registered (005 / B4_2000003). */
  duplicate: boolean;
  signatureOk: boolean | null;
  signatureProblem: string | null;
  /** null: not evaluated (rejections, Zuzendu, first link of an unknown chain). */
  chainOk: boolean | null;
  chainProblem: string | null;
  /** First invoice registered for its (NIF, device). */
  newDevice: boolean;
  /** Code forced by fault injection, if any. */
  injected: string | null;
  receivedAt: string;
}

export interface ChainHead {
  provincia: Provincia;
  nif: string;
  /** NumSerieDispositivo, '' for invoices without one. */
  device: string;
  key: string;
  serie: string;
  num: string;
  fecha: string;
  /** Full SignatureValue of the last invoice of the chain. */
  signatureValue: string;
  length: number;
}

export interface DeviceRow {
  provincia: Provincia;
  nif: string;
  device: string;
  firstKey: string;
  firstSeenAt: string;
}

export interface DuplicateReceived {
  provincia: Provincia;
  key: string;
  idTbai: string | null;
  /** Alta presentations received for the invoice. */
  times: number;
  /** All of them carried the same signature (a resend, not a different file). */
  sameSignature: boolean;
}

export interface TbaiLedgerSummary {
  provincia: Provincia | 'all';
  submissions: number;
  processedSubmissions: number;
  faultedSubmissions: number;
  invoices: number;
  registered: number;
  byEstado: Record<string, number>;
  corrected: number;
  presentations: number;
  byVerdict: Record<string, number>;
  duplicatesReceived: number;
  signatureFailures: number;
  chainBreaks: number;
  newDevices: number;
  chains: Array<{ provincia: Provincia; nif: string; device: string; length: number; intact: boolean }>;
}

/** Read-only helpers for tests and the control API. */
export interface TbaiLedgerApi {
  /** Invoices registered (ever accepted) in the province, optionally for one NIF. */
  countInvoices(provincia: Provincia, nif?: string): number;
  /** Invoice by TicketBAI identifier (optionally within one province). */
  getInvoice(idTbai: string, provincia?: Provincia): TbaiInvoice | null;
  getInvoiceByKey(provincia: Provincia, nif: string, serie: string, num: string): TbaiInvoice | null;
  invoices(provincia?: Provincia, nif?: string): TbaiInvoice[];
  presentations(filter?: { provincia?: Provincia; key?: string; idTbai?: string }): TbaiPresentation[];
  submissions(provincia?: Provincia): TbaiSubmission[];
  /** Invoices whose alta arrived more than once. */
  duplicatesReceived(provincia?: Provincia): DuplicateReceived[];
  /**
   * No presentation of the chain got a chaining warning. `device` undefined: every
   * device of the NIF; '' the chain of invoices without NumSerieDispositivo.
   */
  chainIntact(provincia: Provincia, nif: string, device?: string): boolean;
  chainBreaks(provincia?: Provincia, nif?: string): TbaiPresentation[];
  chainHead(provincia: Provincia, nif: string, device?: string): ChainHead | null;
  devices(provincia: Provincia, nif?: string): DeviceRow[];
  summary(provincia?: Provincia): TbaiLedgerSummary;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS submissions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  provincia TEXT NOT NULL,
  service TEXT NOT NULL,
  received_at TEXT NOT NULL,
  nif TEXT,
  request_sha256 TEXT NOT NULL,
  request_bytes INTEGER NOT NULL,
  record_count INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  fault_code TEXT,
  estado TEXT,
  codigo TEXT,
  mensaje TEXT,
  csv TEXT,
  identificativo TEXT,
  process_ms REAL
);
CREATE INDEX IF NOT EXISTS submissions_prov ON submissions (provincia, id);
CREATE TABLE IF NOT EXISTS invoices (
  key TEXT PRIMARY KEY,
  provincia TEXT NOT NULL,
  nif TEXT NOT NULL,
  serie TEXT NOT NULL,
  num TEXT NOT NULL,
  fecha TEXT NOT NULL,
  id_tbai TEXT,
  signature_value TEXT NOT NULL,
  device TEXT NOT NULL,
  importe_total TEXT,
  estado TEXT NOT NULL,
  registered INTEGER NOT NULL,
  codigo TEXT,
  warnings TEXT NOT NULL,
  csv TEXT,
  corrected INTEGER NOT NULL DEFAULT 0,
  correction TEXT,
  corrected_at TEXT,
  anulada_at TEXT,
  anulacion_corrected INTEGER NOT NULL DEFAULT 0,
  received_count INTEGER NOT NULL,
  first_received_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  submission_id INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS invoices_id_tbai ON invoices (id_tbai);
CREATE INDEX IF NOT EXISTS invoices_prov_nif ON invoices (provincia, nif, registered);
CREATE TABLE IF NOT EXISTS presentations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  submission_id INTEGER NOT NULL,
  provincia TEXT NOT NULL,
  line INTEGER NOT NULL,
  service TEXT NOT NULL,
  key TEXT,
  nif TEXT,
  id_tbai TEXT,
  device TEXT NOT NULL,
  signature_value TEXT NOT NULL,
  estado TEXT NOT NULL,
  verdict TEXT NOT NULL,
  codes TEXT NOT NULL,
  duplicate INTEGER NOT NULL,
  signature_ok INTEGER,
  signature_problem TEXT,
  chain_ok INTEGER,
  chain_problem TEXT,
  new_device INTEGER NOT NULL,
  injected TEXT,
  received_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS presentations_key ON presentations (key);
CREATE INDEX IF NOT EXISTS presentations_chain ON presentations (provincia, nif, device, chain_ok);
CREATE TABLE IF NOT EXISTS chains (
  provincia TEXT NOT NULL,
  nif TEXT NOT NULL,
  device TEXT NOT NULL,
  key TEXT NOT NULL,
  serie TEXT NOT NULL,
  num TEXT NOT NULL,
  fecha TEXT NOT NULL,
  signature_value TEXT NOT NULL,
  length INTEGER NOT NULL,
  PRIMARY KEY (provincia, nif, device)
);
CREATE TABLE IF NOT EXISTS devices (
  provincia TEXT NOT NULL,
  nif TEXT NOT NULL,
  device TEXT NOT NULL,
  first_key TEXT NOT NULL,
  first_seen_at TEXT NOT NULL,
  PRIMARY KEY (provincia, nif, device)
);
`;

function toSubmission(r: Row): TbaiSubmission {
  return {
    id: num(r.id),
    provincia: str(r.provincia) as Provincia,
    service: str(r.service) as SubmissionService,
    receivedAt: str(r.received_at),
    nif: strOrNull(r.nif),
    requestSha256: str(r.request_sha256),
    requestBytes: num(r.request_bytes),
    recordCount: num(r.record_count),
    outcome: str(r.outcome) as SubmissionOutcome,
    faultCode: strOrNull(r.fault_code),
    estado: strOrNull(r.estado),
    codigo: strOrNull(r.codigo),
    mensaje: strOrNull(r.mensaje),
    csv: strOrNull(r.csv),
    identificativo: strOrNull(r.identificativo),
    processMs: numOrNull(r.process_ms),
  };
}

function toInvoice(r: Row): TbaiInvoice {
  return {
    key: str(r.key),
    provincia: str(r.provincia) as Provincia,
    nif: str(r.nif),
    serie: str(r.serie),
    num: str(r.num),
    fecha: str(r.fecha),
    idTbai: strOrNull(r.id_tbai),
    signatureValue: str(r.signature_value),
    device: str(r.device),
    importeTotal: strOrNull(r.importe_total),
    estado: str(r.estado) as InvoiceEstado,
    registered: num(r.registered) === 1,
    codigo: strOrNull(r.codigo),
    warnings: JSON.parse(str(r.warnings) || '[]') as string[],
    csv: strOrNull(r.csv),
    corrected: num(r.corrected) === 1,
    correction: strOrNull(r.correction) as TbaiInvoice['correction'],
    correctedAt: strOrNull(r.corrected_at),
    anuladaAt: strOrNull(r.anulada_at),
    anulacionCorrected: num(r.anulacion_corrected) === 1,
    receivedCount: num(r.received_count),
    firstReceivedAt: str(r.first_received_at),
    updatedAt: str(r.updated_at),
    submissionId: num(r.submission_id),
  };
}

function toPresentation(r: Row): TbaiPresentation {
  return {
    id: num(r.id),
    submissionId: num(r.submission_id),
    provincia: str(r.provincia) as Provincia,
    line: num(r.line),
    service: str(r.service) as TbaiService,
    key: strOrNull(r.key),
    nif: strOrNull(r.nif),
    idTbai: strOrNull(r.id_tbai),
    device: str(r.device),
    signatureValue: str(r.signature_value),
    estado: str(r.estado),
    verdict: str(r.verdict) as Verdict,
    codes: JSON.parse(str(r.codes) || '[]') as string[],
    duplicate: num(r.duplicate) === 1,
    signatureOk: boolOrNull(r.signature_ok),
    signatureProblem: strOrNull(r.signature_problem),
    chainOk: boolOrNull(r.chain_ok),
    chainProblem: strOrNull(r.chain_problem),
    newDevice: num(r.new_device) === 1,
    injected: strOrNull(r.injected),
    receivedAt: str(r.received_at),
  };
}

function toHead(r: Row): ChainHead {
  return {
    provincia: str(r.provincia) as Provincia,
    nif: str(r.nif),
    device: str(r.device),
    key: str(r.key),
    serie: str(r.serie),
    num: str(r.num),
    fecha: str(r.fecha),
    signatureValue: str(r.signature_value),
    length: num(r.length),
  };
}

export type NewSubmission = Pick<
  TbaiSubmission,
  'provincia' | 'service' | 'receivedAt' | 'nif' | 'requestSha256' | 'requestBytes' | 'recordCount' | 'outcome'
> &
  Partial<Pick<TbaiSubmission, 'faultCode' | 'estado' | 'codigo' | 'mensaje'>>;

export type InvoiceWrite = Omit<TbaiInvoice, 'receivedCount' | 'firstReceivedAt' | 'updatedAt'> & {
  at: string;
  /** Count this write as one more alta received. */
  countReceived: boolean;
};

export type PresentationWrite = Omit<TbaiPresentation, 'id'>;

export class TbaiLedger extends SqliteLedger implements TbaiLedgerApi {
  private readonly st: Record<string, Statement>;

  constructor(dbPath: string) {
    super(dbPath, SCHEMA);
    const p = (sql: string): Statement => this.db.prepare(sql);
    this.st = {
      insertSubmission: p(`INSERT INTO submissions (provincia, service, received_at, nif, request_sha256, request_bytes,
        record_count, outcome, fault_code, estado, codigo, mensaje)
        VALUES (@provincia, @service, @receivedAt, @nif, @requestSha256, @requestBytes, @recordCount, @outcome,
        @faultCode, @estado, @codigo, @mensaje)`),
      finishSubmission: p(`UPDATE submissions SET nif = COALESCE(@nif, nif), estado = @estado, codigo = @codigo,
        mensaje = @mensaje, csv = @csv, identificativo = @identificativo, process_ms = @processMs,
        outcome = @outcome, record_count = @recordCount WHERE id = @id`),
      getInvoice: p('SELECT * FROM invoices WHERE key = ?'),
      upsertInvoice: p(`INSERT INTO invoices (key, provincia, nif, serie, num, fecha, id_tbai, signature_value, device,
        importe_total, estado, registered, codigo, warnings, csv, corrected, correction, corrected_at, anulada_at,
        anulacion_corrected, received_count, first_received_at, updated_at, submission_id)
        VALUES (@key, @provincia, @nif, @serie, @num, @fecha, @idTbai, @signatureValue, @device, @importeTotal, @estado,
        @registered, @codigo, @warnings, @csv, @corrected, @correction, @correctedAt, @anuladaAt, @anulacionCorrected,
        @countReceived, @at, @at, @submissionId)
        ON CONFLICT (key) DO UPDATE SET fecha = excluded.fecha, id_tbai = excluded.id_tbai,
        signature_value = excluded.signature_value, device = excluded.device, importe_total = excluded.importe_total,
        estado = excluded.estado, registered = excluded.registered, codigo = excluded.codigo,
        warnings = excluded.warnings, csv = excluded.csv, corrected = excluded.corrected,
        correction = excluded.correction, corrected_at = excluded.corrected_at, anulada_at = excluded.anulada_at,
        anulacion_corrected = excluded.anulacion_corrected,
        received_count = invoices.received_count + excluded.received_count, updated_at = excluded.updated_at,
        submission_id = excluded.submission_id`),
      bumpReceived: p('UPDATE invoices SET received_count = received_count + 1 WHERE key = ?'),
      insertPresentation: p(`INSERT INTO presentations (submission_id, provincia, line, service, key, nif, id_tbai,
        device, signature_value, estado, verdict, codes, duplicate, signature_ok, signature_problem, chain_ok,
        chain_problem, new_device, injected, received_at)
        VALUES (@submissionId, @provincia, @line, @service, @key, @nif, @idTbai, @device, @signatureValue, @estado,
        @verdict, @codes, @duplicate, @signatureOk, @signatureProblem, @chainOk, @chainProblem, @newDevice, @injected,
        @receivedAt)`),
      getHead: p('SELECT * FROM chains WHERE provincia = ? AND nif = ? AND device = ?'),
      setHead: p(`INSERT INTO chains (provincia, nif, device, key, serie, num, fecha, signature_value, length)
        VALUES (@provincia, @nif, @device, @key, @serie, @num, @fecha, @signatureValue, @length)
        ON CONFLICT (provincia, nif, device) DO UPDATE SET key = excluded.key, serie = excluded.serie,
        num = excluded.num, fecha = excluded.fecha, signature_value = excluded.signature_value,
        length = excluded.length`),
      getDevice: p('SELECT 1 FROM devices WHERE provincia = ? AND nif = ? AND device = ?'),
      addDevice: p(`INSERT OR IGNORE INTO devices (provincia, nif, device, first_key, first_seen_at)
        VALUES (?, ?, ?, ?, ?)`),
    };
  }

  // ---- writes (used by the services) ----

  insertSubmission(s: NewSubmission): number {
    const r = this.st.insertSubmission!.run({
      faultCode: null,
      estado: null,
      codigo: null,
      mensaje: null,
      ...s,
    });
    return Number(r.lastInsertRowid);
  }

  finishSubmission(f: {
    id: number;
    nif?: string | null;
    outcome: SubmissionOutcome;
    recordCount: number;
    estado: string | null;
    codigo: string | null;
    mensaje: string | null;
    csv: string | null;
    identificativo: string | null;
    processMs: number | null;
  }): void {
    this.st.finishSubmission!.run({ nif: null, ...f });
  }

  invoiceRow(key: string): TbaiInvoice | null {
    const r = this.st.getInvoice!.get(key) as Row | undefined;
    return r ? toInvoice(r) : null;
  }

  writeInvoice(w: InvoiceWrite): void {
    this.st.upsertInvoice!.run({
      ...w,
      registered: w.registered ? 1 : 0,
      corrected: w.corrected ? 1 : 0,
      anulacionCorrected: w.anulacionCorrected ? 1 : 0,
      warnings: JSON.stringify(w.warnings),
      countReceived: w.countReceived ? 1 : 0,
    });
  }

  bumpReceived(key: string): void {
    this.st.bumpReceived!.run(key);
  }

  writePresentation(p: PresentationWrite): void {
    this.st.insertPresentation!.run({
      ...p,
      codes: JSON.stringify(p.codes),
      duplicate: p.duplicate ? 1 : 0,
      signatureOk: p.signatureOk === null ? null : p.signatureOk ? 1 : 0,
      chainOk: p.chainOk === null ? null : p.chainOk ? 1 : 0,
      newDevice: p.newDevice ? 1 : 0,
    });
  }

  saveChainHead(h: ChainHead): void {
    this.st.setHead!.run(h);
  }

  deviceKnown(provincia: Provincia, nif: string, device: string): boolean {
    return this.st.getDevice!.get(provincia, nif, device) !== undefined;
  }

  addDevice(provincia: Provincia, nif: string, device: string, firstKey: string, at: string): void {
    this.st.addDevice!.run(provincia, nif, device, firstKey, at);
  }

  /** Empties one province's ledger (or all of them). */
  reset(provincia?: Provincia): void {
    const tables = ['submissions', 'invoices', 'presentations', 'chains', 'devices'];
    this.transaction(() => {
      for (const t of tables) {
        if (provincia) this.db.prepare(`DELETE FROM ${t} WHERE provincia = ?`).run(provincia);
        else this.db.prepare(`DELETE FROM ${t}`).run();
      }
      if (!provincia) this.db.exec("DELETE FROM sqlite_sequence WHERE name IN ('submissions', 'presentations')");
    });
  }

  // ---- queries ----

  countInvoices(provincia: Provincia, nif?: string): number {
    const r = (
      nif
        ? this.db.prepare('SELECT COUNT(*) AS n FROM invoices WHERE provincia = ? AND registered = 1 AND nif = ?').get(provincia, nif)
        : this.db.prepare('SELECT COUNT(*) AS n FROM invoices WHERE provincia = ? AND registered = 1').get(provincia)
    ) as Row;
    return num(r.n);
  }

  getInvoice(idTbai: string, provincia?: Provincia): TbaiInvoice | null {
    const r = (
      provincia
        ? this.db.prepare('SELECT * FROM invoices WHERE id_tbai = ? AND provincia = ? ORDER BY updated_at DESC LIMIT 1').get(idTbai, provincia)
        : this.db.prepare('SELECT * FROM invoices WHERE id_tbai = ? ORDER BY updated_at DESC LIMIT 1').get(idTbai)
    ) as Row | undefined;
    return r ? toInvoice(r) : null;
  }

  getInvoiceByKey(provincia: Provincia, nif: string, serie: string, num: string): TbaiInvoice | null {
    return this.invoiceRow(invoiceKey(provincia, nif, serie, num));
  }

  invoices(provincia?: Provincia, nif?: string): TbaiInvoice[] {
    const where: string[] = [];
    const args: string[] = [];
    if (provincia) {
      where.push('provincia = ?');
      args.push(provincia);
    }
    if (nif) {
      where.push('nif = ?');
      args.push(nif);
    }
    const sql = `SELECT * FROM invoices ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY first_received_at, key`;
    return (this.db.prepare(sql).all(...args) as Row[]).map(toInvoice);
  }

  presentations(filter: { provincia?: Provincia; key?: string; idTbai?: string } = {}): TbaiPresentation[] {
    const where: string[] = [];
    const args: string[] = [];
    if (filter.provincia) {
      where.push('provincia = ?');
      args.push(filter.provincia);
    }
    if (filter.key) {
      where.push('key = ?');
      args.push(filter.key);
    }
    if (filter.idTbai) {
      where.push('id_tbai = ?');
      args.push(filter.idTbai);
    }
    const sql = `SELECT * FROM presentations ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id`;
    return (this.db.prepare(sql).all(...args) as Row[]).map(toPresentation);
  }

  submissions(provincia?: Provincia): TbaiSubmission[] {
    const rows = (
      provincia
        ? this.db.prepare('SELECT * FROM submissions WHERE provincia = ? ORDER BY id').all(provincia)
        : this.db.prepare('SELECT * FROM submissions ORDER BY id').all()
    ) as Row[];
    return rows.map(toSubmission);
  }

  duplicatesReceived(provincia?: Provincia): DuplicateReceived[] {
    const rows = (
      this.db
        .prepare(
          `SELECT provincia, key, MAX(id_tbai) AS id_tbai, COUNT(*) AS times,
             COUNT(DISTINCT signature_value) AS sigs
           FROM presentations WHERE service = 'alta' AND key IS NOT NULL ${provincia ? 'AND provincia = ?' : ''}
           GROUP BY provincia, key HAVING COUNT(*) > 1 ORDER BY MIN(id)`,
        )
        .all(...(provincia ? [provincia] : [])) as Row[]
    );
    return rows.map((r) => ({
      provincia: str(r.provincia) as Provincia,
      key: str(r.key),
      idTbai: strOrNull(r.id_tbai),
      times: num(r.times),
      sameSignature: num(r.sigs) === 1,
    }));
  }

  chainIntact(provincia: Provincia, nif: string, device?: string): boolean {
    const r =
      device === undefined
        ? this.db.prepare('SELECT 1 FROM presentations WHERE provincia = ? AND nif = ? AND chain_ok = 0 LIMIT 1').get(provincia, nif)
        : this.db
            .prepare('SELECT 1 FROM presentations WHERE provincia = ? AND nif = ? AND device = ? AND chain_ok = 0 LIMIT 1')
            .get(provincia, nif, device);
    return r === undefined;
  }

  chainBreaks(provincia?: Provincia, nif?: string): TbaiPresentation[] {
    const where = ['chain_ok = 0'];
    const args: string[] = [];
    if (provincia) {
      where.push('provincia = ?');
      args.push(provincia);
    }
    if (nif) {
      where.push('nif = ?');
      args.push(nif);
    }
    return (this.db.prepare(`SELECT * FROM presentations WHERE ${where.join(' AND ')} ORDER BY id`).all(...args) as Row[]).map(
      toPresentation,
    );
  }

  chainHead(provincia: Provincia, nif: string, device = ''): ChainHead | null {
    const r = this.st.getHead!.get(provincia, nif, device) as Row | undefined;
    return r ? toHead(r) : null;
  }

  devices(provincia: Provincia, nif?: string): DeviceRow[] {
    const rows = (
      nif
        ? this.db.prepare('SELECT * FROM devices WHERE provincia = ? AND nif = ? ORDER BY first_seen_at').all(provincia, nif)
        : this.db.prepare('SELECT * FROM devices WHERE provincia = ? ORDER BY first_seen_at').all(provincia)
    ) as Row[];
    return rows.map((r) => ({
      provincia: str(r.provincia) as Provincia,
      nif: str(r.nif),
      device: str(r.device),
      firstKey: str(r.first_key),
      firstSeenAt: str(r.first_seen_at),
    }));
  }

  summary(provincia?: Provincia): TbaiLedgerSummary {
    const w = provincia ? 'WHERE provincia = ?' : '';
    const a = provincia ? [provincia] : [];
    const and = (cond: string): string => (provincia ? `WHERE provincia = ? AND ${cond}` : `WHERE ${cond}`);
    const one = (sql: string): number => num((this.db.prepare(sql).get(...a) as Row).n);
    const group = (sql: string): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const r of this.db.prepare(sql).all(...a) as Row[]) out[str(r.k)] = num(r.n);
      return out;
    };
    const chains = (this.db.prepare(`SELECT * FROM chains ${w} ORDER BY provincia, nif, device`).all(...a) as Row[]).map((r) => {
      const h = toHead(r);
      return { provincia: h.provincia, nif: h.nif, device: h.device, length: h.length, intact: this.chainIntact(h.provincia, h.nif, h.device) };
    });
    return {
      provincia: provincia ?? 'all',
      submissions: one(`SELECT COUNT(*) AS n FROM submissions ${w}`),
      processedSubmissions: one(`SELECT COUNT(*) AS n FROM submissions ${and("outcome = 'processed'")}`),
      faultedSubmissions: one(`SELECT COUNT(*) AS n FROM submissions ${and("outcome <> 'processed'")}`),
      invoices: one(`SELECT COUNT(*) AS n FROM invoices ${w}`),
      registered: one(`SELECT COUNT(*) AS n FROM invoices ${and('registered = 1')}`),
      byEstado: group(`SELECT estado AS k, COUNT(*) AS n FROM invoices ${w} GROUP BY estado`),
      corrected: one(`SELECT COUNT(*) AS n FROM invoices ${and('(corrected = 1 OR anulacion_corrected = 1)')}`),
      presentations: one(`SELECT COUNT(*) AS n FROM presentations ${w}`),
      byVerdict: group(`SELECT verdict AS k, COUNT(*) AS n FROM presentations ${w} GROUP BY verdict`),
      duplicatesReceived: this.duplicatesReceived(provincia).length,
      signatureFailures: one(`SELECT COUNT(*) AS n FROM presentations ${and('signature_ok = 0')}`),
      chainBreaks: one(`SELECT COUNT(*) AS n FROM presentations ${and('chain_ok = 0')}`),
      newDevices: one(`SELECT COUNT(*) AS n FROM devices ${w}`),
      chains,
    };
  }
}
