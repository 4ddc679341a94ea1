import type { Statement } from 'better-sqlite3';
import type { Row } from '../common/sqlite';
import { SqliteLedger, boolOrNull, num, numOrNull, str, strOrNull } from '../common/sqlite';
import type { EstadoEnvio, EstadoRegistro } from './soap';

// What the emulated AEAT "holds", in its own SQLite file. Three levels:
//  - submissions: every SOAP request that reached the service (even refused ones),
//  - presentations: every record line received, with its verdict,
//  - records: one row per invoice key with the state AEAT keeps for it.

export interface RecordKey {
  emisor: string;
  numSerie: string;
  /** DD-MM-YYYY */
  fecha: string;
}

export function recordKey(k: RecordKey): string {
  return `${k.emisor.trim()}|${k.numSerie.trim()}|${k.fecha.trim()}`;
}

/** A SIF of an obligado, as chain heads name it: each installation keeps its own chain. */
export function sifOf(s: { idSistemaInformatico: string; numeroInstalacion: string }): string {
  return `${s.idSistemaInformatico.trim()}|${s.numeroInstalacion.trim()}`;
}

export type SubmissionOutcome = 'processed' | 'fault' | 'injected';

export interface Submission {
  id: number;
  idPeticion: string | null;
  receivedAt: string;
  obligado: string | null;
  presentador: string | null;
  recordCount: number;
  requestSha256: string;
  requestBytes: number;
  outcome: SubmissionOutcome;
  faultCode: string | null;
  faultString: string | null;
  csv: string | null;
  estadoEnvio: EstadoEnvio | null;
  accepted: number;
  acceptedWithErrors: number;
  rejected: number;
  /** ms since the previous processed submission of the same obligado (null for the first). */
  sincePreviousMs: number | null;
  /** TiempoEsperaEnvio the previous answer had asked for. */
  requiredWaitMs: number | null;
  flowViolation: boolean;
  validateMs: number | null;
  processMs: number | null;
  /** RemisionVoluntaria/Incidencia of the header: 'S' or 'N' (absent counts as N); null when unreadable. */
  incidencia: 'S' | 'N' | null;
}

export interface LedgerRecord {
  key: string;
  obligado: string;
  emisor: string;
  numSerie: string;
  fecha: string;
  /** Last operation AEAT holds for the key (or the one presented, if it was never accepted). */
  tipo: 'alta' | 'anulacion';
  /** Verdict of the presentation that produced the current state. */
  estado: EstadoRegistro;
  /** True once AEAT has accepted a record for the key (Correcto or AceptadoConErrores). */
  registered: boolean;
  /** Correcta / AceptadaConErrores / Anulada as AEAT reports it for duplicates; Rechazada if never accepted. */
  estadoRegistro: 'Correcta' | 'AceptadaConErrores' | 'Anulada' | 'Rechazada';
  codigo: number | null;
  descripcion: string | null;
  /** Every admissible error found, not only the one answered. */
  warnings: number[];
  huella: string;
  huellaCheck: 'exact' | 'amount-variant' | 'mismatch';
  csv: string | null;
  submissionId: number;
  idPeticion: string | null;
  /** How many times a record with this key arrived (any operation, any verdict). */
  receivedCount: number;
  firstReceivedAt: string;
  updatedAt: string;
}

export interface Presentation {
  id: number;
  submissionId: number;
  line: number;
  obligado: string;
  key: string;
  tipo: 'alta' | 'anulacion';
  subsanacion: string | null;
  rechazoPrevio: string | null;
  sinRegistroPrevio: string | null;
  huella: string;
  huellaCheck: 'exact' | 'amount-variant' | 'mismatch';
  prevKey: string | null;
  prevHuella: string | null;
  primerRegistro: boolean;
  fechaHoraHusoGenRegistro: string;
  estado: EstadoRegistro;
  codigo: number | null;
  /** Same key and huella already received before: a resend, not a new record. */
  retransmission: boolean;
  /** null for retransmissions (they are not links of the chain). */
  chainOk: boolean | null;
  chainProblem: string | null;
  receivedAt: string;
}

export interface ChainHead {
  obligado: string;
  /** The SIF that keeps this chain: `IdSistemaInformatico|NumeroInstalacion` (see sifOf). */
  sistema: string;
  key: string;
  emisor: string;
  numSerie: string;
  fecha: string;
  huella: string;
  length: number;
}

export interface FlowViolation {
  submissionId: number;
  obligado: string;
  receivedAt: string;
  sincePreviousMs: number;
  requiredWaitMs: number;
  recordCount: number;
}

export interface LedgerSummary {
  submissions: number;
  processedSubmissions: number;
  faultedSubmissions: number;
  records: number;
  registered: number;
  byEstadoRegistro: Record<string, number>;
  presentations: number;
  retransmissions: number;
  duplicatesReceived: number;
  maxBatchSize: number;
  flowViolations: number;
  chainBreaks: number;
  /** chainLength: records chained over all the obligado's SIFs; chains: how many SIFs. */
  obligados: Array<{ nif: string; records: number; chainIntact: boolean; chainLength: number; chains: number }>;
}

/** Read-only helpers for tests and the control API. */
export interface LedgerApi {
  countRecords(nif?: string): number;
  getRecord(key: RecordKey | string): LedgerRecord | null;
  records(nif?: string): LedgerRecord[];
  presentations(key?: RecordKey | string): Presentation[];
  /** Records (same key and huella) that arrived more than once. */
  duplicatesReceived(): Array<{ key: string; huella: string; times: number }>;
  maxBatchSize(): number;
  submissions(): Submission[];
  chainIntact(nif: string): boolean;
  chainBreaks(nif?: string): Presentation[];
  /** The head of one SIF's chain; without `sistema`, the obligado's most recently advanced chain. */
  chainHead(nif: string, sistema?: string): ChainHead | null;
  /** Every chain of the obligado, one per SIF (installation). */
  chainHeads(nif: string): ChainHead[];
  flowViolations(nif?: string): FlowViolation[];
  summary(): LedgerSummary;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS submissions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  id_peticion TEXT,
  received_at TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  obligado TEXT,
  presentador TEXT,
  record_count INTEGER NOT NULL,
  request_sha256 TEXT NOT NULL,
  request_bytes INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  fault_code TEXT,
  fault_string TEXT,
  csv TEXT,
  estado_envio TEXT,
  wait_seconds INTEGER,
  accepted INTEGER NOT NULL DEFAULT 0,
  accepted_with_errors INTEGER NOT NULL DEFAULT 0,
  rejected INTEGER NOT NULL DEFAULT 0,
  since_previous_ms INTEGER,
  required_wait_ms INTEGER,
  flow_violation INTEGER NOT NULL DEFAULT 0,
  validate_ms REAL,
  process_ms REAL,
  incidencia TEXT
);
CREATE INDEX IF NOT EXISTS submissions_obligado ON submissions (obligado, outcome, id);
CREATE TABLE IF NOT EXISTS records (
  key TEXT PRIMARY KEY,
  obligado TEXT NOT NULL,
  emisor TEXT NOT NULL,
  num_serie TEXT NOT NULL,
  fecha TEXT NOT NULL,
  tipo TEXT NOT NULL,
  estado TEXT NOT NULL,
  registered INTEGER NOT NULL,
  codigo INTEGER,
  descripcion TEXT,
  warnings TEXT NOT NULL,
  huella TEXT NOT NULL,
  huella_check TEXT NOT NULL,
  csv TEXT,
  submission_id INTEGER NOT NULL,
  id_peticion TEXT,
  received_count INTEGER NOT NULL,
  first_received_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_obligado ON records (obligado, registered);
CREATE TABLE IF NOT EXISTS presentations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  submission_id INTEGER NOT NULL,
  line INTEGER NOT NULL,
  obligado TEXT NOT NULL,
  key TEXT NOT NULL,
  tipo TEXT NOT NULL,
  subsanacion TEXT,
  rechazo_previo TEXT,
  sin_registro_previo TEXT,
  huella TEXT NOT NULL,
  huella_check TEXT NOT NULL,
  prev_key TEXT,
  prev_huella TEXT,
  primer_registro INTEGER NOT NULL,
  fecha_hora_gen TEXT NOT NULL,
  estado TEXT NOT NULL,
  codigo INTEGER,
  retransmission INTEGER NOT NULL,
  chain_ok INTEGER,
  chain_problem TEXT,
  received_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS presentations_key ON presentations (key, huella);
CREATE INDEX IF NOT EXISTS presentations_chain ON presentations (obligado, chain_ok);
CREATE TABLE IF NOT EXISTS sif_chain_heads (
  obligado TEXT NOT NULL,
  sistema TEXT NOT NULL,
  key TEXT NOT NULL,
  emisor TEXT NOT NULL,
  num_serie TEXT NOT NULL,
  fecha TEXT NOT NULL,
  huella TEXT NOT NULL,
  length INTEGER NOT NULL,
  PRIMARY KEY (obligado, sistema)
);
`;

function toSubmission(r: Row): Submission {
  return {
    id: num(r.id),
    idPeticion: strOrNull(r.id_peticion),
    receivedAt: str(r.received_at),
    obligado: strOrNull(r.obligado),
    presentador: strOrNull(r.presentador),
    recordCount: num(r.record_count),
    requestSha256: str(r.request_sha256),
    requestBytes: num(r.request_bytes),
    outcome: str(r.outcome) as SubmissionOutcome,
    faultCode: strOrNull(r.fault_code),
    faultString: strOrNull(r.fault_string),
    csv: strOrNull(r.csv),
    estadoEnvio: strOrNull(r.estado_envio) as EstadoEnvio | null,
    accepted: num(r.accepted),
    acceptedWithErrors: num(r.accepted_with_errors),
    rejected: num(r.rejected),
    sincePreviousMs: numOrNull(r.since_previous_ms),
    requiredWaitMs: numOrNull(r.required_wait_ms),
    flowViolation: num(r.flow_violation) === 1,
    validateMs: numOrNull(r.validate_ms),
    processMs: numOrNull(r.process_ms),
    incidencia: r.incidencia === 'S' || r.incidencia === 'N' ? r.incidencia : null,
  };
}

function estadoRegistroOf(r: Row): LedgerRecord['estadoRegistro'] {
  if (num(r.registered) !== 1) return 'Rechazada';
  if (str(r.tipo) === 'anulacion') return 'Anulada';
  return str(r.estado) === 'AceptadoConErrores' ? 'AceptadaConErrores' : 'Correcta';
}

function toRecord(r: Row): LedgerRecord {
  return {
    key: str(r.key),
    obligado: str(r.obligado),
    emisor: str(r.emisor),
    numSerie: str(r.num_serie),
    fecha: str(r.fecha),
    tipo: str(r.tipo) as 'alta' | 'anulacion',
    estado: str(r.estado) as EstadoRegistro,
    registered: num(r.registered) === 1,
    estadoRegistro: estadoRegistroOf(r),
    codigo: numOrNull(r.codigo),
    descripcion: strOrNull(r.descripcion),
    warnings: JSON.parse(str(r.warnings) || '[]') as number[],
    huella: str(r.huella),
    huellaCheck: str(r.huella_check) as LedgerRecord['huellaCheck'],
    csv: strOrNull(r.csv),
    submissionId: num(r.submission_id),
    idPeticion: strOrNull(r.id_peticion),
    receivedCount: num(r.received_count),
    firstReceivedAt: str(r.first_received_at),
    updatedAt: str(r.updated_at),
  };
}

function toPresentation(r: Row): Presentation {
  return {
    id: num(r.id),
    submissionId: num(r.submission_id),
    line: num(r.line),
    obligado: str(r.obligado),
    key: str(r.key),
    tipo: str(r.tipo) as 'alta' | 'anulacion',
    subsanacion: strOrNull(r.subsanacion),
    rechazoPrevio: strOrNull(r.rechazo_previo),
    sinRegistroPrevio: strOrNull(r.sin_registro_previo),
    huella: str(r.huella),
    huellaCheck: str(r.huella_check) as Presentation['huellaCheck'],
    prevKey: strOrNull(r.prev_key),
    prevHuella: strOrNull(r.prev_huella),
    primerRegistro: num(r.primer_registro) === 1,
    fechaHoraHusoGenRegistro: str(r.fecha_hora_gen),
    estado: str(r.estado) as EstadoRegistro,
    codigo: numOrNull(r.codigo),
    retransmission: num(r.retransmission) === 1,
    chainOk: boolOrNull(r.chain_ok),
    chainProblem: strOrNull(r.chain_problem),
    receivedAt: str(r.received_at),
  };
}

function toHead(r: Row): ChainHead {
  return {
    obligado: str(r.obligado),
    sistema: str(r.sistema),
    key: str(r.key),
    emisor: str(r.emisor),
    numSerie: str(r.num_serie),
    fecha: str(r.fecha),
    huella: str(r.huella),
    length: num(r.length),
  };
}

export type NewSubmission = Pick<
  Submission,
  'idPeticion' | 'receivedAt' | 'obligado' | 'presentador' | 'recordCount' | 'requestSha256' | 'requestBytes' | 'outcome'
> &
  Partial<Pick<Submission, 'faultCode' | 'faultString' | 'sincePreviousMs' | 'requiredWaitMs' | 'flowViolation' | 'validateMs' | 'incidencia'>> & {
    receivedMs: number;
    waitSeconds?: number | null;
  };

export type RecordWrite = Omit<LedgerRecord, 'estadoRegistro' | 'receivedCount' | 'firstReceivedAt' | 'updatedAt'> & {
  at: string;
};

export type PresentationWrite = Omit<Presentation, 'id'>;

export class Ledger extends SqliteLedger implements LedgerApi {
  private readonly st: Record<string, Statement>;

  constructor(dbPath: string) {
    super(dbPath, SCHEMA);
    // Ledger files written before the column existed: CREATE TABLE IF NOT EXISTS leaves them as they were.
    const columns = this.db.prepare('PRAGMA table_info(submissions)').all() as Row[];
    if (!columns.some((c) => c.name === 'incidencia')) this.db.exec('ALTER TABLE submissions ADD COLUMN incidencia TEXT');
    const p = (sql: string): Statement => this.db.prepare(sql);
    this.st = {
      insertSubmission: p(`INSERT INTO submissions (id_peticion, received_at, received_ms, obligado, presentador,
        record_count, request_sha256, request_bytes, outcome, fault_code, fault_string, wait_seconds,
        since_previous_ms, required_wait_ms, flow_violation, validate_ms, incidencia)
        VALUES (@idPeticion, @receivedAt, @receivedMs, @obligado, @presentador, @recordCount, @requestSha256,
        @requestBytes, @outcome, @faultCode, @faultString, @waitSeconds, @sincePreviousMs, @requiredWaitMs,
        @flowViolation, @validateMs, @incidencia)`),
      finishSubmission: p(`UPDATE submissions SET csv = @csv, estado_envio = @estadoEnvio, accepted = @accepted,
        accepted_with_errors = @acceptedWithErrors, rejected = @rejected, validate_ms = @validateMs,
        process_ms = @processMs WHERE id = @id`),
      begin: p('BEGIN IMMEDIATE'),
      commit: p('COMMIT'),
      rollback: p('ROLLBACK'),
      lastProcessed: p(`SELECT received_ms, wait_seconds FROM submissions
        WHERE obligado = ? AND outcome = 'processed' ORDER BY id DESC LIMIT 1`),
      getRecord: p('SELECT * FROM records WHERE key = ?'),
      // Positional parameters, bound straight from the fields: named ones cost an object per row.
      upsertRecord: p(`INSERT INTO records (key, obligado, emisor, num_serie, fecha, tipo, estado, registered, codigo,
        descripcion, warnings, huella, huella_check, csv, submission_id, id_peticion, received_count,
        first_received_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
        ON CONFLICT (key) DO UPDATE SET tipo = excluded.tipo, estado = excluded.estado,
        registered = excluded.registered, codigo = excluded.codigo, descripcion = excluded.descripcion,
        warnings = excluded.warnings, huella = excluded.huella, huella_check = excluded.huella_check,
        csv = excluded.csv, submission_id = excluded.submission_id, id_peticion = excluded.id_peticion,
        received_count = records.received_count + 1, updated_at = excluded.updated_at`),
      bumpReceived: p('UPDATE records SET received_count = received_count + 1 WHERE key = ?'),
      insertPresentation: p(`INSERT INTO presentations (submission_id, line, obligado, key, tipo, subsanacion,
        rechazo_previo, sin_registro_previo, huella, huella_check, prev_key, prev_huella, primer_registro,
        fecha_hora_gen, estado, codigo, retransmission, chain_ok, chain_problem, received_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      seen: p('SELECT 1 FROM presentations WHERE key = ? AND huella = ? LIMIT 1'),
      getHead: p('SELECT * FROM sif_chain_heads WHERE obligado = ? AND sistema = ?'),
      // INSERT OR REPLACE gives the row a new rowid: the highest rowid is the latest advanced chain.
      latestHead: p('SELECT * FROM sif_chain_heads WHERE obligado = ? ORDER BY rowid DESC LIMIT 1'),
      setHead: p(`INSERT OR REPLACE INTO sif_chain_heads (obligado, sistema, key, emisor, num_serie, fecha, huella, length)
        VALUES (@obligado, @sistema, @key, @emisor, @numSerie, @fecha, @huella, @length)`),
    };
  }

  // ---- writes (used by the processor, inside one transaction per request) ----

  /**
   * A request's transaction, opened and closed by hand: it stays open across the wait for the
   * XSD verdict (db.transaction() cannot span an await). Only the ledger's turn may call these.
   */
  begin(): void {
    this.st.begin!.run();
  }

  commit(): void {
    try {
      this.st.commit!.run();
    } catch (err) {
      // A failed COMMIT can leave the transaction open: nothing of it may stay for the next turn.
      if (this.db.inTransaction) this.st.rollback!.run();
      throw err;
    }
  }

  rollback(): void {
    if (this.db.inTransaction) this.st.rollback!.run();
  }

  insertSubmission(s: NewSubmission): number {
    const info = this.st.insertSubmission!.run({
      faultCode: null,
      faultString: null,
      waitSeconds: null,
      sincePreviousMs: null,
      requiredWaitMs: null,
      validateMs: null,
      incidencia: null,
      ...s,
      flowViolation: s.flowViolation ? 1 : 0,
    });
    return Number(info.lastInsertRowid);
  }

  finishSubmission(f: {
    id: number;
    csv: string | null;
    estadoEnvio: EstadoEnvio;
    accepted: number;
    acceptedWithErrors: number;
    rejected: number;
    /** Set at the end: the verdict may arrive after the records were written. */
    validateMs: number | null;
    processMs: number;
  }): void {
    this.st.finishSubmission!.run(f);
  }

  lastProcessedSubmission(obligado: string): { receivedMs: number; waitSeconds: number } | null {
    const r = this.st.lastProcessed!.get(obligado) as Row | undefined;
    return r ? { receivedMs: num(r.received_ms), waitSeconds: num(r.wait_seconds) } : null;
  }

  writeRecord(w: RecordWrite): void {
    this.st.upsertRecord!.run(
      w.key, w.obligado, w.emisor, w.numSerie, w.fecha, w.tipo, w.estado, w.registered ? 1 : 0, w.codigo,
      w.descripcion, w.warnings.length === 0 ? '[]' : JSON.stringify(w.warnings), w.huella, w.huellaCheck, w.csv,
      w.submissionId, w.idPeticion, w.at, w.at,
    );
  }

  bumpReceived(key: string): void {
    this.st.bumpReceived!.run(key);
  }

  writePresentation(p: PresentationWrite): void {
    this.st.insertPresentation!.run(
      p.submissionId, p.line, p.obligado, p.key, p.tipo, p.subsanacion, p.rechazoPrevio, p.sinRegistroPrevio,
      p.huella, p.huellaCheck, p.prevKey, p.prevHuella, p.primerRegistro ? 1 : 0, p.fechaHoraHusoGenRegistro,
      p.estado, p.codigo, p.retransmission ? 1 : 0, p.chainOk === null ? null : p.chainOk ? 1 : 0, p.chainProblem,
      p.receivedAt,
    );
  }

  alreadyReceived(key: string, huella: string): boolean {
    return this.st.seen!.get(key, huella) !== undefined;
  }

  saveChainHead(h: ChainHead): void {
    this.st.setHead!.run(h);
  }

  reset(): void {
    this.db.exec(
      'DELETE FROM submissions; DELETE FROM records; DELETE FROM presentations; DELETE FROM sif_chain_heads; ' +
        "DELETE FROM sqlite_sequence WHERE name IN ('submissions', 'presentations');",
    );
  }

  // ---- queries ----

  countRecords(nif?: string): number {
    const r = (
      nif
        ? this.db.prepare('SELECT COUNT(*) AS n FROM records WHERE registered = 1 AND obligado = ?').get(nif)
        : this.db.prepare('SELECT COUNT(*) AS n FROM records WHERE registered = 1').get()
    ) as Row;
    return num(r.n);
  }

  getRecord(key: RecordKey | string): LedgerRecord | null {
    const k = typeof key === 'string' ? key : recordKey(key);
    const r = this.st.getRecord!.get(k) as Row | undefined;
    return r ? toRecord(r) : null;
  }

  records(nif?: string): LedgerRecord[] {
    const rows = (
      nif
        ? this.db.prepare('SELECT * FROM records WHERE obligado = ? ORDER BY first_received_at, key').all(nif)
        : this.db.prepare('SELECT * FROM records ORDER BY first_received_at, key').all()
    ) as Row[];
    return rows.map(toRecord);
  }

  presentations(key?: RecordKey | string): Presentation[] {
    const rows = (
      key === undefined
        ? this.db.prepare('SELECT * FROM presentations ORDER BY id').all()
        : this.db
            .prepare('SELECT * FROM presentations WHERE key = ? ORDER BY id')
            .all(typeof key === 'string' ? key : recordKey(key))
    ) as Row[];
    return rows.map(toPresentation);
  }

  duplicatesReceived(): Array<{ key: string; huella: string; times: number }> {
    const rows = this.db
      .prepare(
        'SELECT key, huella, COUNT(*) AS times FROM presentations GROUP BY key, huella HAVING COUNT(*) > 1 ORDER BY MIN(id)',
      )
      .all() as Row[];
    return rows.map((r) => ({ key: str(r.key), huella: str(r.huella), times: num(r.times) }));
  }

  maxBatchSize(): number {
    const r = this.db.prepare('SELECT COALESCE(MAX(record_count), 0) AS n FROM submissions').get() as Row;
    return num(r.n);
  }

  submissions(): Submission[] {
    return (this.db.prepare('SELECT * FROM submissions ORDER BY id').all() as Row[]).map(toSubmission);
  }

  chainIntact(nif: string): boolean {
    return (
      this.db.prepare('SELECT 1 FROM presentations WHERE obligado = ? AND chain_ok = 0 LIMIT 1').get(nif) ===
      undefined
    );
  }

  chainBreaks(nif?: string): Presentation[] {
    const rows = (
      nif
        ? this.db.prepare('SELECT * FROM presentations WHERE obligado = ? AND chain_ok = 0 ORDER BY id').all(nif)
        : this.db.prepare('SELECT * FROM presentations WHERE chain_ok = 0 ORDER BY id').all()
    ) as Row[];
    return rows.map(toPresentation);
  }

  chainHead(nif: string, sistema?: string): ChainHead | null {
    const r = (sistema === undefined ? this.st.latestHead!.get(nif) : this.st.getHead!.get(nif, sistema)) as Row | undefined;
    return r ? toHead(r) : null;
  }

  chainHeads(nif: string): ChainHead[] {
    return (this.db.prepare('SELECT * FROM sif_chain_heads WHERE obligado = ? ORDER BY sistema').all(nif) as Row[]).map(toHead);
  }

  flowViolations(nif?: string): FlowViolation[] {
    const rows = (
      nif
        ? this.db.prepare('SELECT * FROM submissions WHERE flow_violation = 1 AND obligado = ? ORDER BY id').all(nif)
        : this.db.prepare('SELECT * FROM submissions WHERE flow_violation = 1 ORDER BY id').all()
    ) as Row[];
    return rows.map((r) => ({
      submissionId: num(r.id),
      obligado: str(r.obligado),
      receivedAt: str(r.received_at),
      sincePreviousMs: num(r.since_previous_ms),
      requiredWaitMs: num(r.required_wait_ms),
      recordCount: num(r.record_count),
    }));
  }

  summary(): LedgerSummary {
    const one = (sql: string): number => num((this.db.prepare(sql).get() as Row).n);
    const byEstadoRegistro: Record<string, number> = {};
    for (const r of this.records()) byEstadoRegistro[r.estadoRegistro] = (byEstadoRegistro[r.estadoRegistro] ?? 0) + 1;
    const obligados = (
      this.db
        .prepare(
          `SELECT o.obligado AS nif,
             (SELECT COUNT(*) FROM records r WHERE r.obligado = o.obligado AND r.registered = 1) AS records,
             (SELECT COUNT(*) FROM presentations p WHERE p.obligado = o.obligado AND p.chain_ok = 0) AS breaks,
             (SELECT SUM(length) FROM sif_chain_heads h WHERE h.obligado = o.obligado) AS len,
             (SELECT COUNT(*) FROM sif_chain_heads h WHERE h.obligado = o.obligado) AS chains
           FROM (SELECT DISTINCT obligado FROM presentations) o ORDER BY o.obligado`,
        )
        .all() as Row[]
    ).map((r) => ({
      nif: str(r.nif),
      records: num(r.records),
      chainIntact: num(r.breaks) === 0,
      chainLength: numOrNull(r.len) ?? 0,
      chains: num(r.chains),
    }));
    return {
      submissions: one('SELECT COUNT(*) AS n FROM submissions'),
      processedSubmissions: one("SELECT COUNT(*) AS n FROM submissions WHERE outcome = 'processed'"),
      faultedSubmissions: one("SELECT COUNT(*) AS n FROM submissions WHERE outcome <> 'processed'"),
      records: one('SELECT COUNT(*) AS n FROM records'),
      registered: one('SELECT COUNT(*) AS n FROM records WHERE registered = 1'),
      byEstadoRegistro,
      presentations: one('SELECT COUNT(*) AS n FROM presentations'),
      retransmissions: one('SELECT COUNT(*) AS n FROM presentations WHERE retransmission = 1'),
      duplicatesReceived: this.duplicatesReceived().length,
      maxBatchSize: this.maxBatchSize(),
      flowViolations: one('SELECT COUNT(*) AS n FROM submissions WHERE flow_violation = 1'),
      chainBreaks: one('SELECT COUNT(*) AS n FROM presentations WHERE chain_ok = 0'),
      obligados,
    };
  }
}
