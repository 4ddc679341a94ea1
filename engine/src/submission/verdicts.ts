import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../db/database';
import type { EventsTable } from '../db/schema/submission';
import type { InvoiceRow, RegistroRow } from '../invoices/store';
import type { IdGenerator } from '../platform/ids';

/** `extra`: authority-specific record fields kept for the reads (TicketBAI's tipoRespuestaTbai…). */
export type Verdict =
  | {
      kind: 'aceptado';
      conErrores: boolean;
      codigo?: string | undefined;
      descripcion?: string | undefined;
      csv?: string | undefined;
      extra?: Record<string, unknown> | undefined;
    }
  | {
      kind: 'rechazado';
      codigo: string;
      descripcion: string;
      /** Further reasons the authority gave (TicketBAI lists several); only the webhook carries them. */
      motivosAdicionales?: { codigo: string; descripcion: string }[] | undefined;
      extra?: Record<string, unknown> | undefined;
    };

/** What applying a verdict reads of a record: callers read only these columns. */
export const VERDICT_RECORD_COLUMNS = ['id', 'invoiceId', 'tipo', 'extra', 'huella', 'estadoEnvioFinal'] as const satisfies readonly (keyof RegistroRow)[];
export type VerdictRecord = Pick<RegistroRow, (typeof VERDICT_RECORD_COLUMNS)[number]>;

/** What applying a verdict reads of an invoice: its state and what its event carries. */
const VERDICT_INVOICE_COLUMNS = [
  'id',
  'accountId',
  'entorno',
  'nifEmisor',
  'sistemaFiscal',
  'provincia',
  'numeroFactura',
  'tipoFactura',
  'importeTotal',
  'cuotaTotal',
  'estadoFactura',
  'csvAeat',
] as const satisfies readonly (keyof InvoiceRow)[];
type VerdictInvoice = Pick<InvoiceRow, (typeof VERDICT_INVOICE_COLUMNS)[number]>;
/** A LEFT JOIN's columns: null when the row has no match. */
type NullableColumns<T> = { [K in keyof T]: T[K] | null };

export interface VerdictItem {
  registro: VerdictRecord;
  verdict: Verdict;
}

/** A JSON array of ids, bound once: `id IN (SELECT value FROM json_each(?))` takes any number. */
const IN_IDS = 'IN (SELECT value FROM json_each(?))';
const NONE = '\u0001';

/**
 * The statements of applyVerdicts, prepared once per database: one per verdict class, each
 * taking its ids as one JSON array, so a thousand verdicts cost a handful of statement runs and
 * no SQL is built or compiled per call.
 */
interface VerdictStatements {
  openRecords: BetterSqlite3.Statement<[string], { registroId: string } & NullableColumns<VerdictInvoice>>;
  accept: BetterSqlite3.Statement<[number, string | null, string | null, string | null, string, string, string]>;
  reject: BetterSqlite3.Statement<[string, string, string, string, string]>;
  lote: BetterSqlite3.Statement<[string, string, string]>;
  extra: BetterSqlite3.Statement<[string, string]>;
  invoiceChanges: BetterSqlite3.Statement<[number, string | null, number, string | null, number, string | null, string, string]>;
  event: BetterSqlite3.Statement<[string, string, string, string, string, string, string, string, string]>;
}

const prepared = new WeakMap<Database, VerdictStatements>();

function statementsOf(db: Database): VerdictStatements {
  let st = prepared.get(db);
  if (st) return st;
  const sqlite = db.sqlite;
  st = {
    // The records still without a final state, each with its invoice, in one pass.
    openRecords: sqlite.prepare(`SELECT r.id AS registroId, ${VERDICT_INVOICE_COLUMNS.map((c) => `i.${c}`).join(', ')}
      FROM registros r LEFT JOIN invoices i ON i.id = r.invoiceId
      WHERE r.id ${IN_IDS} AND r.estadoEnvioFinal IS NULL`),
    // An acceptance with errors shows in estadoEnvio; a clean one leaves it as it was.
    accept: sqlite.prepare(`UPDATE registros SET estado = 'aceptada',
      estadoEnvio = CASE WHEN ? THEN 'aceptada_con_errores' ELSE estadoEnvio END, estadoEnvioFinal = 'registrada',
      codigoRespuesta = ?, descripcionRespuesta = ?, csvAeat = ?, envioCompletadoEn = ?, ultimaModificacion = ?
      WHERE id ${IN_IDS}`),
    reject: sqlite.prepare(`UPDATE registros SET estado = 'rechazada', estadoEnvio = 'rechazada', estadoEnvioFinal = 'rechazada',
      codigoRespuesta = ?, descripcionRespuesta = ?, envioCompletadoEn = ?, ultimaModificacion = ?
      WHERE id ${IN_IDS}`),
    // The submission that settled a record is, in every path, the one it already names: written
    // only where it differs, since writing idLote rewrites the record's registros_lote entry even
    // when the value stays (≈ 2–3 µs a record, measured).
    lote: sqlite.prepare(`UPDATE registros SET idLote = ? WHERE id ${IN_IDS} AND idLote IS NOT ?`),
    extra: sqlite.prepare('UPDATE registros SET extra = ? WHERE id = ?'),
    // Each optional column is written only when its flag says the invoice's state changed it.
    invoiceChanges: sqlite.prepare(`UPDATE invoices SET
      estadoFactura = CASE WHEN ? THEN ? ELSE estadoFactura END,
      estadoEnvio = CASE WHEN ? THEN ? ELSE estadoEnvio END,
      csvAeat = CASE WHEN ? THEN ? ELSE csvAeat END,
      ultimaModificacion = ?
      WHERE id ${IN_IDS}`),
    event: sqlite.prepare(
      'INSERT INTO events (id, evento, accountId, entorno, nifEmisor, invoiceId, registroId, datos, creadoEn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  };
  prepared.set(db, st);
  return st;
}

/** The records' new columns, the same for every record of one group. */
type RecordOutcome =
  | { kind: 'aceptado'; conErrores: boolean; codigo: string | null; descripcion: string | null; csv: string | null }
  | { kind: 'rechazado'; codigo: string; descripcion: string };

function outcomeOf(verdict: Verdict): { key: string; outcome: RecordOutcome } {
  if (verdict.kind === 'aceptado') {
    const outcome: RecordOutcome = {
      kind: 'aceptado',
      conErrores: verdict.conErrores,
      codigo: verdict.codigo ?? null,
      descripcion: verdict.descripcion ?? null,
      csv: verdict.csv ?? null,
    };
    return { key: ['a', outcome.conErrores ? 1 : 0, outcome.codigo ?? NONE, outcome.descripcion ?? NONE, outcome.csv ?? NONE].join('\u0000'), outcome };
  }
  return { key: ['r', verdict.codigo, verdict.descripcion].join('\u0000'), outcome: { kind: 'rechazado', codigo: verdict.codigo, descripcion: verdict.descripcion } };
}

type InvoiceChanges = Partial<Pick<InvoiceRow, 'estadoFactura' | 'estadoEnvio' | 'csvAeat' | 'ultimaModificacion'>>;

/**
 * Applies the authority's final verdicts to records, their invoices and the invoices they
 * rectify, and writes one event per record, inside the caller's transaction. Set-based: one
 * submission's thousand verdicts cost a handful of statements. Idempotent: a record that already
 * has a final state is skipped, so a reconciled duplicate never yields a second event.
 */
export function applyVerdicts(
  db: Database,
  ids: IdGenerator,
  items: readonly VerdictItem[],
  context: { idLote: string; now: string },
): void {
  const { now, idLote } = context;
  if (items.length === 0) return;
  const st = statementsOf(db);
  const open = new Set<string>();
  // One object per invoice: two records of one invoice see each other's changes below.
  const invoices = new Map<string, VerdictInvoice>();
  for (const { registroId, ...invoice } of st.openRecords.all(JSON.stringify(items.map((i) => i.registro.id)))) {
    open.add(registroId);
    if (invoice.id !== null && !invoices.has(invoice.id)) invoices.set(invoice.id, invoice as VerdictInvoice);
  }
  const pending = items.filter((i) => open.has(i.registro.id));
  if (pending.length === 0) return;

  // Records: grouped by identical outcome, one UPDATE per group.
  const groups = new Map<string, { outcome: RecordOutcome; ids: string[] }>();
  for (const { registro, verdict } of pending) {
    const { key, outcome } = outcomeOf(verdict);
    const group = groups.get(key);
    if (group) group.ids.push(registro.id);
    else groups.set(key, { outcome, ids: [registro.id] });
  }
  for (const { outcome, ids: groupIds } of groups.values()) {
    const list = JSON.stringify(groupIds);
    if (outcome.kind === 'aceptado') {
      st.accept.run(outcome.conErrores ? 1 : 0, outcome.codigo, outcome.descripcion, outcome.csv, now, now, list);
    } else {
      st.reject.run(outcome.codigo, outcome.descripcion, now, now, list);
    }
  }
  st.lote.run(idLote, JSON.stringify(pending.map((i) => i.registro.id)), idLote);
  for (const { registro, verdict } of pending) {
    if (!verdict.extra) continue;
    const merged = { ...(JSON.parse(registro.extra) as Record<string, unknown>), ...verdict.extra };
    st.extra.run(JSON.stringify(merged), registro.id);
  }

  // Invoices: the new state worked out in memory (so the events carry it), then written.
  const invoiceUpdates = new Map<string, InvoiceChanges>();
  for (const { registro, verdict } of pending) {
    const invoice = invoices.get(registro.invoiceId);
    if (!invoice) continue;
    const changes = invoiceUpdates.get(invoice.id) ?? {};
    let evento: EventsTable['evento'];
    const extra: Record<string, unknown> = {};
    if (verdict.kind === 'aceptado') {
      if (registro.tipo === 'anulacion') {
        changes.estadoFactura = 'anulada';
        evento = 'factura.anulada';
        extra.tipoRegistro = registro.tipo;
      } else {
        changes.estadoFactura = invoice.estadoFactura === 'anulada' ? 'anulada' : (invoice.estadoFactura ?? 'registrada');
        if (verdict.conErrores) changes.estadoEnvio = 'aceptada_con_errores';
        if (verdict.csv) changes.csvAeat = verdict.csv;
        evento = 'factura.registrada';
        if (invoice.tipoFactura?.startsWith('R')) markRectified(db, invoice, now);
      }
    } else {
      // A rejected cancellation leaves the invoice as it was; a rejected alta or correction of
      // an invoice not yet registered shows `estadoEnvio: rechazada` without `estadoFactura`.
      if (registro.tipo !== 'anulacion' && invoice.estadoFactura === null) changes.estadoEnvio = 'rechazada';
      evento = 'factura.rechazada';
      extra.tipoRegistro = registro.tipo;
      extra.motivoRechazo = {
        codigo: verdict.codigo,
        descripcion: verdict.descripcion,
        ...(verdict.motivosAdicionales?.length ? { motivosAdicionales: verdict.motivosAdicionales } : {}),
      };
    }
    changes.ultimaModificacion = now;
    invoiceUpdates.set(invoice.id, changes);
    Object.assign(invoice, changes);
    // TicketBAI: the treasury's registration id (its CSV), when it gave one.
    const idRegistroTbai = verdict.extra?.idRegistroTbai;
    if (typeof idRegistroTbai === 'string' && invoice.sistemaFiscal === 'ticketbai') extra.idRegistroTbai = idRegistroTbai;
    const e = eventRow(ids, evento, invoice, registro, now, extra);
    st.event.run(e.id, e.evento, e.accountId, e.entorno, e.nifEmisor, e.invoiceId, e.registroId, e.datos, e.creadoEn);
  }
  const byChanges = new Map<string, { set: InvoiceChanges; ids: string[] }>();
  for (const [id, set] of invoiceUpdates) {
    const key = [set.estadoFactura ?? NONE, set.estadoEnvio ?? NONE, set.csvAeat ?? NONE].join('\u0000');
    const group = byChanges.get(key);
    if (group) group.ids.push(id);
    else byChanges.set(key, { set, ids: [id] });
  }
  for (const { set, ids: groupIds } of byChanges.values()) {
    st.invoiceChanges.run(
      set.estadoFactura !== undefined ? 1 : 0,
      set.estadoFactura ?? null,
      set.estadoEnvio !== undefined ? 1 : 0,
      set.estadoEnvio ?? null,
      set.csvAeat !== undefined ? 1 : 0,
      set.csvAeat ?? null,
      now,
      JSON.stringify(groupIds),
    );
  }
}

/** One record's verdict (the set-based path with a single item). */
export function applyVerdict(
  db: Database,
  ids: IdGenerator,
  registro: VerdictRecord,
  verdict: Verdict,
  context: { idLote: string; now: string },
): void {
  applyVerdicts(db, ids, [{ registro, verdict }], context);
}

/** An accepted rectifying invoice turns the registered invoices it names into `rectificada`. */
function markRectified(db: Database, invoice: Pick<InvoiceRow, 'id'>, now: string): void {
  const refs = db.all(
    db.kysely.selectFrom('invoice_refs').selectAll().where('invoiceId', '=', invoice.id).where('tipo', '=', 'rectificada'),
  );
  for (const ref of refs) {
    db.run(
      db.kysely
        .updateTable('invoices')
        .set({ estadoFactura: 'rectificada', ultimaModificacion: now })
        .where('entorno', '=', ref.entorno)
        .where('nifEmisor', '=', ref.nifEmisor)
        .where('numeroFactura', '=', ref.numeroFactura)
        .where('fechaExpedicion', '=', ref.fechaExpedicion)
        .where('estadoFactura', '=', 'registrada'),
    );
  }
}

/**
 * The event and its `datos` as the spec's Events section lists them, in this key order (the
 * stored JSON and every webhook body keep it). Assigned one by one: a thousand events per answer.
 */
function eventRow(
  ids: IdGenerator,
  evento: EventsTable['evento'],
  invoice: VerdictInvoice,
  registro: VerdictRecord,
  now: string,
  extra: Record<string, unknown>,
): EventsTable {
  const rechazada = evento === 'factura.rechazada';
  const datos: Record<string, unknown> = {
    sistemaFiscal: invoice.sistemaFiscal,
    nifEmisor: invoice.nifEmisor,
    idFactura: invoice.id,
    numeroFactura: invoice.numeroFactura,
  };
  if (invoice.tipoFactura) datos.tipoFactura = invoice.tipoFactura;
  if (invoice.importeTotal) datos.importeTotal = invoice.importeTotal;
  if (invoice.cuotaTotal) datos.cuotaTotal = invoice.cuotaTotal;
  // The verdict on the record the event is about, in the spec's two values ("registrada or
  // rechazada in the given cases"): an accepted cancellation is a registered record; that it
  // cancels is said by the event and `tipoRegistro` (docs/api-contract.md).
  datos.estadoFactura = rechazada ? 'rechazada' : 'registrada';
  if (!rechazada) datos.fechaRegistro = now;
  if (invoice.sistemaFiscal === 'verifactu') {
    if (invoice.csvAeat) datos.csvAeat = invoice.csvAeat;
    if (registro.huella) datos.hashVerifactu = registro.huella;
  } else if (invoice.provincia) {
    datos.provincia = invoice.provincia;
  }
  for (const key in extra) datos[key] = extra[key];
  return {
    id: ids.next('evt'),
    evento,
    accountId: invoice.accountId,
    entorno: invoice.entorno,
    nifEmisor: invoice.nifEmisor,
    invoiceId: invoice.id,
    registroId: registro.id,
    datos: JSON.stringify(datos),
    creadoEn: now,
  };
}
