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

export interface VerdictItem {
  registro: RegistroRow;
  verdict: Verdict;
}

// SQLite allows 32766 bound parameters; lists stay well below.
const CHUNK = 500;
function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

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
  const open = new Set<string>();
  for (const part of chunks(items.map((i) => i.registro.id))) {
    for (const r of db.all(
      db.kysely.selectFrom('registros').select('id').where('id', 'in', part).where('estadoEnvioFinal', 'is', null),
    )) {
      open.add(r.id);
    }
  }
  const pending = items.filter((i) => open.has(i.registro.id));
  if (pending.length === 0) return;
  const invoices = new Map<string, InvoiceRow>();
  for (const part of chunks([...new Set(pending.map((i) => i.registro.invoiceId))])) {
    for (const inv of db.all(db.kysely.selectFrom('invoices').selectAll().where('id', 'in', part))) invoices.set(inv.id, inv);
  }

  // Records: grouped by identical outcome, one UPDATE per group.
  const groups = new Map<string, { set: Partial<RegistroRow>; ids: string[] }>();
  for (const { registro, verdict } of pending) {
    const set: Partial<RegistroRow> =
      verdict.kind === 'aceptado'
        ? {
            estado: 'aceptada',
            ...(verdict.conErrores ? { estadoEnvio: 'aceptada_con_errores' as const } : {}),
            estadoEnvioFinal: 'registrada',
            codigoRespuesta: verdict.codigo ?? null,
            descripcionRespuesta: verdict.descripcion ?? null,
            csvAeat: verdict.csv ?? null,
          }
        : {
            estado: 'rechazada',
            estadoEnvio: 'rechazada',
            estadoEnvioFinal: 'rechazada',
            codigoRespuesta: verdict.codigo,
            descripcionRespuesta: verdict.descripcion,
          };
    const key = JSON.stringify(set);
    const group = groups.get(key) ?? { set, ids: [] };
    group.ids.push(registro.id);
    groups.set(key, group);
  }
  for (const { set, ids: groupIds } of groups.values()) {
    for (const part of chunks(groupIds)) {
      db.run(
        db.kysely
          .updateTable('registros')
          .set({ ...set, idLote, envioCompletadoEn: now, ultimaModificacion: now })
          .where('id', 'in', part),
      );
    }
  }
  for (const { registro, verdict } of pending) {
    if (!verdict.extra) continue;
    const merged = { ...(JSON.parse(registro.extra) as Record<string, unknown>), ...verdict.extra };
    db.run(db.kysely.updateTable('registros').set({ extra: JSON.stringify(merged) }).where('id', '=', registro.id));
  }

  // Invoices: the new state worked out in memory (so the events carry it), then written.
  const events: EventsTable[] = [];
  const invoiceUpdates = new Map<string, Partial<InvoiceRow>>();
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
    events.push(eventRow(ids, evento, invoice, registro, now, extra));
  }
  const byChanges = new Map<string, { set: Partial<InvoiceRow>; ids: string[] }>();
  for (const [id, set] of invoiceUpdates) {
    const key = JSON.stringify(set);
    const group = byChanges.get(key) ?? { set, ids: [] };
    group.ids.push(id);
    byChanges.set(key, group);
  }
  for (const { set, ids: groupIds } of byChanges.values()) {
    for (const part of chunks(groupIds)) db.run(db.kysely.updateTable('invoices').set(set).where('id', 'in', part));
  }
  for (const part of chunks(events)) db.run(db.kysely.insertInto('events').values(part));
}

/** One record's verdict (the set-based path with a single item). */
export function applyVerdict(
  db: Database,
  ids: IdGenerator,
  registro: RegistroRow,
  verdict: Verdict,
  context: { idLote: string; now: string },
): void {
  applyVerdicts(db, ids, [{ registro, verdict }], context);
}

/** An accepted rectifying invoice turns the registered invoices it names into `rectificada`. */
function markRectified(db: Database, invoice: InvoiceRow, now: string): void {
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

/** The event and its `datos` as the spec's Events section lists them. */
function eventRow(
  ids: IdGenerator,
  evento: EventsTable['evento'],
  invoice: InvoiceRow,
  registro: RegistroRow,
  now: string,
  extra: Record<string, unknown>,
): EventsTable {
  const datos: Record<string, unknown> = {
    sistemaFiscal: invoice.sistemaFiscal,
    nifEmisor: invoice.nifEmisor,
    idFactura: invoice.id,
    numeroFactura: invoice.numeroFactura,
    ...(invoice.tipoFactura ? { tipoFactura: invoice.tipoFactura } : {}),
    ...(invoice.importeTotal ? { importeTotal: invoice.importeTotal } : {}),
    ...(invoice.cuotaTotal ? { cuotaTotal: invoice.cuotaTotal } : {}),
    estadoFactura: evento === 'factura.rechazada' ? 'rechazada' : (invoice.estadoFactura ?? 'registrada'),
    ...(evento !== 'factura.rechazada' ? { fechaRegistro: now } : {}),
    ...(invoice.sistemaFiscal === 'verifactu'
      ? { ...(invoice.csvAeat ? { csvAeat: invoice.csvAeat } : {}), ...(registro.huella ? { hashVerifactu: registro.huella } : {}) }
      : { ...(invoice.provincia ? { provincia: invoice.provincia } : {}) }),
    ...extra,
  };
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
