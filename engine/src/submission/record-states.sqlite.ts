import type { Database, RawStatement } from '../db/database';
import type { EventsTable } from '../db/schema/submission';
import {
  VERDICT_INVOICE_COLUMNS,
  type InvoiceChanges,
  type NullableColumns,
  type RecordOutcome,
  type RecordStates,
  type VerdictInvoice,
} from './record-states';

/** A JSON array of ids, bound once: `id IN (SELECT value FROM json_each(?))` takes any number. */
const IN_IDS = 'IN (SELECT value FROM json_each(?))';

/**
 * RecordStates on SQLite: every statement prepared once per database, each taking its ids as one
 * JSON array, so a thousand records cost one statement run and no SQL is built per call.
 */
class SqliteRecordStates implements RecordStates {
  private readonly st: {
    intoSubmission: RawStatement;
    registrosSent: RawStatement;
    invoicesSent: RawStatement;
    openRecords: RawStatement<{ registroId: string } & NullableColumns<VerdictInvoice>>;
    accept: RawStatement;
    reject: RawStatement;
    lote: RawStatement;
    extra: RawStatement;
    invoiceChanges: RawStatement;
    event: RawStatement;
  };

  constructor(private readonly db: Database) {
    this.st = {
      intoSubmission: db.statement(`UPDATE registros SET estadoEnvio = ?, idLote = ?, ultimaModificacion = ? WHERE id ${IN_IDS}`),
      registrosSent: db.statement(
        "UPDATE registros SET estadoEnvio = 'en_cola', ultimaModificacion = ? WHERE idLote = ? AND estadoEnvioFinal IS NULL AND estadoEnvio = 'en_lote'",
      ),
      invoicesSent: db.statement(
        "UPDATE invoices SET estadoEnvio = 'en_cola' WHERE estadoFactura IS NULL AND estadoEnvio = 'en_lote' AND id IN (SELECT invoiceId FROM registros WHERE idLote = ?)",
      ),
      // The records still without a final state, each with its invoice, in one pass.
      openRecords: db.statement(`SELECT r.id AS registroId, ${VERDICT_INVOICE_COLUMNS.map((c) => `i.${c}`).join(', ')}
        FROM registros r LEFT JOIN invoices i ON i.id = r.invoiceId
        WHERE r.id ${IN_IDS} AND r.estadoEnvioFinal IS NULL`),
      // An acceptance with errors shows in estadoEnvio; a clean one leaves it as it was.
      accept: db.statement(`UPDATE registros SET estado = 'aceptada',
        estadoEnvio = CASE WHEN ? THEN 'aceptada_con_errores' ELSE estadoEnvio END, estadoEnvioFinal = 'registrada',
        codigoRespuesta = ?, descripcionRespuesta = ?, csvAeat = ?, envioCompletadoEn = ?, ultimaModificacion = ?
        WHERE id ${IN_IDS}`),
      reject: db.statement(`UPDATE registros SET estado = 'rechazada', estadoEnvio = 'rechazada', estadoEnvioFinal = 'rechazada',
        codigoRespuesta = ?, descripcionRespuesta = ?, envioCompletadoEn = ?, ultimaModificacion = ?
        WHERE id ${IN_IDS}`),
      // The submission that settled a record is, in every path, the one it already names: written
      // only where it differs, since writing idLote rewrites the record's registros_lote entry even
      // when the value stays (≈ 2–3 µs a record, measured).
      lote: db.statement(`UPDATE registros SET idLote = ? WHERE id ${IN_IDS} AND idLote IS NOT ?`),
      extra: db.statement('UPDATE registros SET extra = ? WHERE id = ?'),
      // Each optional column is written only when its flag says the invoice's state changed it.
      invoiceChanges: db.statement(`UPDATE invoices SET
        estadoFactura = CASE WHEN ? THEN ? ELSE estadoFactura END,
        estadoEnvio = CASE WHEN ? THEN ? ELSE estadoEnvio END,
        csvAeat = CASE WHEN ? THEN ? ELSE csvAeat END,
        ultimaModificacion = ?
        WHERE id ${IN_IDS}`),
      event: db.statement(
        'INSERT INTO events (id, evento, accountId, entorno, nifEmisor, invoiceId, registroId, datos, creadoEn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
    };
  }

  intoSubmission(idLote: string, registroIds: readonly string[], estadoEnvio: 'en_lote' | 'en_cola', now: string): void {
    this.st.intoSubmission.run(estadoEnvio, idLote, now, JSON.stringify(registroIds));
    this.db.run(
      this.db.kysely
        .updateTable('invoices')
        .set({ estadoEnvio })
        .where('estadoFactura', 'is', null)
        .where('id', 'in', (eb) => eb.selectFrom('registros').select('invoiceId').where('idLote', '=', idLote)),
    );
  }

  sent(idLote: string, now: string): void {
    this.st.registrosSent.run(now, idLote);
    this.st.invoicesSent.run(idLote);
  }

  awaitingResend(idLote: string, estadoEnvio: 'en_cola' | 'pendiente_envio', now: string): void {
    this.db.run(
      this.db.kysely
        .updateTable('registros')
        .set({ estadoEnvio, ultimaModificacion: now })
        .where('idLote', '=', idLote)
        .where('estadoEnvioFinal', 'is', null)
        // A retry that fails again changes nothing: no rows rewritten.
        .where('estadoEnvio', '!=', estadoEnvio),
    );
    this.db.run(
      this.db.kysely
        .updateTable('invoices')
        .set({ estadoEnvio })
        .where('estadoFactura', 'is', null)
        .where('estadoEnvio', 'not in', ['rechazada', estadoEnvio])
        .where('id', 'in', (eb) => eb.selectFrom('registros').select('invoiceId').where('idLote', '=', idLote)),
    );
  }

  openWithInvoices(registroIds: readonly string[]): ({ registroId: string } & NullableColumns<VerdictInvoice>)[] {
    return this.st.openRecords.all(JSON.stringify(registroIds));
  }

  settle(registroIds: readonly string[], outcome: RecordOutcome, now: string): void {
    const list = JSON.stringify(registroIds);
    if (outcome.kind === 'aceptado') {
      this.st.accept.run(outcome.conErrores ? 1 : 0, outcome.codigo, outcome.descripcion, outcome.csv, now, now, list);
    } else {
      this.st.reject.run(outcome.codigo, outcome.descripcion, now, now, list);
    }
  }

  settledBy(idLote: string, registroIds: readonly string[]): void {
    this.st.lote.run(idLote, JSON.stringify(registroIds), idLote);
  }

  setExtra(registroId: string, extra: string): void {
    this.st.extra.run(extra, registroId);
  }

  changeInvoices(invoiceIds: readonly string[], changes: InvoiceChanges, now: string): void {
    this.st.invoiceChanges.run(
      changes.estadoFactura !== undefined ? 1 : 0,
      changes.estadoFactura ?? null,
      changes.estadoEnvio !== undefined ? 1 : 0,
      changes.estadoEnvio ?? null,
      changes.csvAeat !== undefined ? 1 : 0,
      changes.csvAeat ?? null,
      now,
      JSON.stringify(invoiceIds),
    );
  }

  markRectified(invoiceId: string, now: string): void {
    const refs = this.db.all(
      this.db.kysely.selectFrom('invoice_refs').selectAll().where('invoiceId', '=', invoiceId).where('tipo', '=', 'rectificada'),
    );
    for (const ref of refs) {
      this.db.run(
        this.db.kysely
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

  insertEvent(e: EventsTable): void {
    this.st.event.run(e.id, e.evento, e.accountId, e.entorno, e.nifEmisor, e.invoiceId, e.registroId, e.datos, e.creadoEn);
  }
}

const perDatabase = new WeakMap<Database, RecordStates>();

/** The record states of `db`, prepared once per database (connection). */
export function sqliteRecordStatesOf(db: Database): RecordStates {
  let states = perDatabase.get(db);
  if (!states) {
    states = new SqliteRecordStates(db);
    perDatabase.set(db, states);
  }
  return states;
}
