import type { Database } from '../db/database';
import type { RegistroRow, InvoiceRow } from '../invoices/store';
import type { IdGenerator } from '../platform/ids';

export type Verdict =
  | { kind: 'aceptado'; conErrores: boolean; codigo?: string | undefined; descripcion?: string | undefined; csv?: string | undefined }
  | { kind: 'rechazado'; codigo: string; descripcion: string };

/**
 * Applies an authority's final verdict to a record, its invoice and the invoices it rectifies,
 * and writes the event, all inside the caller's transaction. Idempotent: a record that already
 * has a final state is left alone, so a reconciled duplicate never yields a second event.
 */
export function applyVerdict(
  db: Database,
  ids: IdGenerator,
  registro: RegistroRow,
  verdict: Verdict,
  context: { idLote: string; now: string },
): void {
  const fresh = db.first(db.kysely.selectFrom('registros').selectAll().where('id', '=', registro.id));
  if (!fresh || fresh.estadoEnvioFinal !== null) return;
  const invoice = db.first(db.kysely.selectFrom('invoices').selectAll().where('id', '=', registro.invoiceId));
  if (!invoice) return;
  const { now, idLote } = context;
  const tipoRegistro = registro.tipo;

  if (verdict.kind === 'aceptado') {
    db.run(
      db.kysely
        .updateTable('registros')
        .set({
          estado: 'aceptada',
          estadoEnvio: verdict.conErrores ? 'aceptada_con_errores' : fresh.estadoEnvio,
          estadoEnvioFinal: 'registrada',
          codigoRespuesta: verdict.codigo ?? null,
          descripcionRespuesta: verdict.descripcion ?? null,
          csvAeat: verdict.csv ?? null,
          idLote,
          envioCompletadoEn: now,
          ultimaModificacion: now,
        })
        .where('id', '=', registro.id),
    );
    if (tipoRegistro === 'anulacion') {
      db.run(db.kysely.updateTable('invoices').set({ estadoFactura: 'anulada', ultimaModificacion: now }).where('id', '=', invoice.id));
    } else {
      db.run(
        db.kysely
          .updateTable('invoices')
          .set({
            estadoFactura: invoice.estadoFactura === 'anulada' ? 'anulada' : (invoice.estadoFactura ?? 'registrada'),
            estadoEnvio: verdict.conErrores ? 'aceptada_con_errores' : invoice.estadoEnvio,
            csvAeat: verdict.csv ?? invoice.csvAeat,
            ultimaModificacion: now,
          })
          .where('id', '=', invoice.id),
      );
      if (invoice.tipoFactura?.startsWith('R')) markRectified(db, invoice, now);
    }
    writeEvent(db, ids, tipoRegistro === 'anulacion' ? 'factura.anulada' : 'factura.registrada', invoice, fresh, now, {
      ...(tipoRegistro === 'anulacion' ? { tipoRegistro } : {}),
      ...(verdict.csv ? { csvAeat: verdict.csv } : {}),
    });
    return;
  }

  db.run(
    db.kysely
      .updateTable('registros')
      .set({
        estado: 'rechazada',
        estadoEnvio: 'rechazada',
        estadoEnvioFinal: 'rechazada',
        codigoRespuesta: verdict.codigo,
        descripcionRespuesta: verdict.descripcion,
        idLote,
        envioCompletadoEn: now,
        ultimaModificacion: now,
      })
      .where('id', '=', registro.id),
  );
  // A rejected cancellation leaves the invoice as it was; a rejected alta or correction of an
  // invoice not yet registered shows `estadoEnvio: rechazada` without `estadoFactura`.
  if (tipoRegistro !== 'anulacion' && invoice.estadoFactura === null) {
    db.run(db.kysely.updateTable('invoices').set({ estadoEnvio: 'rechazada', ultimaModificacion: now }).where('id', '=', invoice.id));
  }
  writeEvent(db, ids, 'factura.rechazada', invoice, fresh, now, {
    tipoRegistro,
    motivoRechazo: { codigo: verdict.codigo, descripcion: verdict.descripcion },
  });
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

function writeEvent(
  db: Database,
  ids: IdGenerator,
  evento: 'factura.registrada' | 'factura.rechazada' | 'factura.anulada',
  invoice: InvoiceRow,
  registro: RegistroRow,
  now: string,
  extra: Record<string, unknown>,
): void {
  const refreshed = db.first(db.kysely.selectFrom('invoices').selectAll().where('id', '=', invoice.id)) ?? invoice;
  const datos: Record<string, unknown> = {
    sistemaFiscal: refreshed.sistemaFiscal,
    nifEmisor: refreshed.nifEmisor,
    idFactura: refreshed.id,
    numeroFactura: refreshed.numeroFactura,
    ...(refreshed.tipoFactura ? { tipoFactura: refreshed.tipoFactura } : {}),
    ...(refreshed.importeTotal ? { importeTotal: refreshed.importeTotal } : {}),
    ...(refreshed.cuotaTotal ? { cuotaTotal: refreshed.cuotaTotal } : {}),
    estadoFactura: evento === 'factura.rechazada' ? 'rechazada' : (refreshed.estadoFactura ?? 'registrada'),
    ...(evento !== 'factura.rechazada' ? { fechaRegistro: now } : {}),
    ...(refreshed.sistemaFiscal === 'verifactu'
      ? { ...(refreshed.csvAeat ? { csvAeat: refreshed.csvAeat } : {}), ...(registro.huella ? { hashVerifactu: registro.huella } : {}) }
      : { ...(refreshed.provincia ? { provincia: refreshed.provincia } : {}) }),
    ...extra,
  };
  db.run(
    db.kysely.insertInto('events').values({
      id: ids.next('evt'),
      evento,
      accountId: refreshed.accountId,
      entorno: refreshed.entorno,
      nifEmisor: refreshed.nifEmisor,
      invoiceId: refreshed.id,
      registroId: registro.id,
      datos: JSON.stringify(datos),
      creadoEn: now,
    }),
  );
}
