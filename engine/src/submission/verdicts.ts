import type { EventsTable } from '../db/schema/submission';
import type { Verdict } from '../core/authority';
import type { IdGenerator } from '../platform/ids';
import type { InvoiceChanges, RecordOutcome, RecordStates, VerdictInvoice, VerdictRecord } from './record-states';

export interface VerdictItem {
  registro: VerdictRecord;
  verdict: Verdict;
}

const NONE = '\u0001';

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

/**
 * Applies the authority's final verdicts to records, their invoices and the invoices they
 * rectify, and writes one event per record, inside the caller's transaction. Set-based: one
 * submission's thousand verdicts cost a handful of statements. Idempotent: a record that already
 * has a final state is skipped, so a reconciled duplicate never yields a second event.
 */
export function applyVerdicts(
  states: RecordStates,
  ids: IdGenerator,
  items: readonly VerdictItem[],
  context: { idLote: string; now: string },
): void {
  const { now, idLote } = context;
  if (items.length === 0) return;
  const open = new Set<string>();
  // One object per invoice: two records of one invoice see each other's changes below.
  const invoices = new Map<string, VerdictInvoice>();
  for (const { registroId, ...invoice } of states.openWithInvoices(items.map((i) => i.registro.id))) {
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
  for (const { outcome, ids: groupIds } of groups.values()) states.settle(groupIds, outcome, now);
  states.settledBy(idLote, pending.map((i) => i.registro.id));
  for (const { registro, verdict } of pending) {
    if (!verdict.extra) continue;
    const merged = { ...(JSON.parse(registro.extra) as Record<string, unknown>), ...verdict.extra };
    states.setExtra(registro.id, JSON.stringify(merged));
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
        if (invoice.tipoFactura?.startsWith('R')) states.markRectified(invoice.id, now);
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
    states.insertEvent(eventRow(ids, evento, invoice, registro, now, extra));
  }
  const byChanges = new Map<string, { set: InvoiceChanges; ids: string[] }>();
  for (const [id, set] of invoiceUpdates) {
    const key = [set.estadoFactura ?? NONE, set.estadoEnvio ?? NONE, set.csvAeat ?? NONE].join('\u0000');
    const group = byChanges.get(key);
    if (group) group.ids.push(id);
    else byChanges.set(key, { set, ids: [id] });
  }
  for (const { set, ids: groupIds } of byChanges.values()) states.changeInvoices(groupIds, set, now);
}

/** One record's verdict (the set-based path with a single item). */
export function applyVerdict(
  states: RecordStates,
  ids: IdGenerator,
  registro: VerdictRecord,
  verdict: Verdict,
  context: { idLote: string; now: string },
): void {
  applyVerdicts(states, ids, [{ registro, verdict }], context);
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
