import type { z } from 'zod';
import type {
  facturaDetalleSchema,
  facturaListItemSchema,
  registroDetalleSchema,
  registroSchema,
} from '../../../src-shared/api/facturas';
import type { InvoiceRow, RegistroRow } from './store';

type FacturaListItem = z.infer<typeof facturaListItemSchema>;
type FacturaDetalle = z.infer<typeof facturaDetalleSchema>;
type Registro = z.infer<typeof registroSchema>;
type RegistroDetalle = z.infer<typeof registroDetalleSchema>;

/** Absent values are omitted, never null nor empty (spec, Common conventions). */
function present<T extends Record<string, unknown>>(fields: T): T {
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === null || value === undefined) delete fields[key];
  }
  return fields;
}

export function qrUrl(billingUrl: string, invoice: InvoiceRow): string {
  return `${billingUrl}/v1/facturas/${encodeURIComponent(invoice.id)}/qr?nifEmisor=${encodeURIComponent(invoice.nifEmisor)}`;
}

/**
 * Submission still running: `estadoEnvio` shows; once registered it gives way to `estadoFactura`.
 * A «NO VERI*FACTU» invoice shows both: registered, and `no_remitida` (kept, not sent).
 */
function envioVisible(invoice: InvoiceRow): boolean {
  return invoice.estadoFactura === null || invoice.estadoEnvio === 'no_remitida';
}

export function facturaListItem(invoice: InvoiceRow, billingUrl: string): FacturaListItem {
  return present({
    idFactura: invoice.id,
    nifEmisor: invoice.nifEmisor,
    numeroFactura: invoice.numeroFactura,
    tipoFactura: invoice.tipoFactura ?? undefined,
    importeTotal: invoice.importeTotal ?? undefined,
    cuotaTotal: invoice.cuotaTotal ?? undefined,
    sistemaFiscal: invoice.sistemaFiscal,
    estadoFactura: invoice.estadoFactura ?? undefined,
    estadoEnvio: envioVisible(invoice) ? invoice.estadoEnvio : undefined,
    fechaRegistro: invoice.creadoEn,
    ultimaModificacion: invoice.ultimaModificacion,
    urlQr: invoice.urlValidacion ? qrUrl(billingUrl, invoice) : undefined,
    hashVerifactu: invoice.sistemaFiscal === 'verifactu' ? (invoice.huella ?? undefined) : undefined,
    csvAeat: invoice.csvAeat ?? undefined,
    idTbai: invoice.idTbai ?? undefined,
  });
}

export function estadoView(invoice: InvoiceRow) {
  const view = present({
    idFactura: invoice.id,
    numeroFactura: invoice.numeroFactura,
    estadoEnvio: envioVisible(invoice) ? invoice.estadoEnvio : undefined,
    csvAeat: invoice.csvAeat ?? undefined,
    sistemaFiscal: invoice.sistemaFiscal,
    ultimaModificacion: invoice.ultimaModificacion,
  });
  // Rejected: `estadoEnvio: rechazada` and no `estadoFactura` (spec, as the detail shows it).
  if (invoice.estadoFactura === null && invoice.estadoEnvio === 'rechazada') return view;
  // The one field the spec answers as `null`: submission has not concluded.
  return { ...view, estadoFactura: invoice.estadoFactura };
}

export function facturaDetalle(invoice: InvoiceRow, billingUrl: string, datosJson: string | null): FacturaDetalle {
  const datos = datosJson ? (JSON.parse(datosJson) as { cabecera?: { descripcion?: string }; descripcion?: string; destinatario?: unknown }) : {};
  const processing = invoice.estadoFactura === null && invoice.estadoEnvio !== 'rechazada';
  return present({
    ...facturaListItem(invoice, billingUrl),
    // An invoice without series has none: omitted, never "" (spec, Absent values).
    serie: invoice.serie === '' ? undefined : invoice.serie,
    numero: invoice.numero,
    fechaExpedicion: invoice.fechaExpedicion,
    estadoFactura: processing ? ('procesando' as const) : (invoice.estadoFactura ?? undefined),
    urlValidacion: invoice.urlValidacion ?? undefined,
    provincia: invoice.provincia ?? undefined,
    idMaquina: invoice.idMaquina ?? undefined,
    descripcion: datos.cabecera?.descripcion ?? datos.descripcion,
    destinatario: datos.destinatario,
  });
}

interface RegistroExtra {
  cuotaTotal?: string;
  esRectificativa?: boolean;
  tipoRectificativa?: string;
  fechaExpedicion?: string;
  sinRegistroPrevio?: boolean;
  rechazoPrevio?: string;
  tipoRespuestaTbai?: string;
  codigoRespuestaTbai?: string;
  mensajeRespuestaTbai?: string;
  idRegistroTbai?: string;
  provincia?: string;
}

/**
 * Spec, "Billing record estado": `pendiente` → `procesando` while a VeriFactu correction is in
 * progress. A pending alta or subsanación reads `procesando` while a later subsanación of the
 * same invoice (`delaFactura`: its records) awaits its verdict; stored state is not touched.
 */
export function estadoLeido(registro: RegistroRow, delaFactura: readonly RegistroRow[]): Registro['estado'] {
  if (registro.estado !== 'pendiente' || registro.sistemaFiscal !== 'verifactu' || registro.tipo === 'anulacion') {
    return registro.estado;
  }
  const correccionEnCurso = delaFactura.some(
    (r) =>
      r.invoiceId === registro.invoiceId &&
      r.tipo === 'subsanacion' &&
      r.chainKey === registro.chainKey &&
      r.chainSeq > registro.chainSeq &&
      (r.estado === 'pendiente' || r.estado === 'procesando'),
  );
  return correccionEnCurso ? 'procesando' : registro.estado;
}

export function registroView(registro: RegistroRow, numeroFactura: string, estado: Registro['estado'] = registro.estado): Registro {
  const extra = JSON.parse(registro.extra) as RegistroExtra;
  const concluded = registro.estadoEnvioFinal !== null;
  return present({
    idRegistro: registro.id,
    idFactura: registro.invoiceId,
    tipo: registro.tipo,
    estado,
    estadoEnvio: concluded ? undefined : registro.estadoEnvio,
    estadoEnvioFinal: registro.estadoEnvioFinal ?? undefined,
    codigoRespuestaAeat: registro.codigoRespuesta ?? undefined,
    descripcionRespuestaAeat: registro.descripcionRespuesta ?? undefined,
    csvAeat: registro.csvAeat ?? undefined,
    creadoEn: registro.creadoEn,
    envioCompletadoEn: registro.envioCompletadoEn ?? undefined,
    idLote: registro.idLote ?? undefined,
    idMaquina: registro.idMaquina ?? undefined,
    huella: registro.huella ?? undefined,
    numeroFactura,
    tipoRespuestaTbai: extra.tipoRespuestaTbai,
    codigoRespuestaTbai: extra.codigoRespuestaTbai,
    mensajeRespuestaTbai: extra.mensajeRespuestaTbai,
    idRegistroTbai: extra.idRegistroTbai,
    provincia: extra.provincia,
  });
}

/**
 * `invoice`: the invoice the record belongs to, and `siblings` its records: a cancellation carries
 * no amounts of its own, so its detail extras (`cuotaTotal`, `esRectificativa`,
 * `tipoRectificativa`) are those of the invoice it cancels (spec, "Detail extras").
 */
export function registroDetalle(
  registro: RegistroRow,
  invoice: { numeroFactura: string; cuotaTotal: string | null; tipoFactura: string | null },
  estado: Registro['estado'] = registro.estado,
  siblings: readonly RegistroRow[] = [],
): RegistroDetalle {
  const extra = JSON.parse(registro.extra) as RegistroExtra;
  const anulacion = registro.tipo === 'anulacion';
  const alta = anulacion ? siblings.find((r) => r.tipo === 'alta') : undefined;
  const altaExtra = alta ? (JSON.parse(alta.extra) as RegistroExtra) : {};
  return present({
    ...registroView(registro, invoice.numeroFactura, estado),
    cuotaTotal: extra.cuotaTotal ?? (anulacion ? (altaExtra.cuotaTotal ?? invoice.cuotaTotal ?? undefined) : undefined),
    sistemaFiscal: registro.sistemaFiscal,
    ultimaModificacion: registro.ultimaModificacion,
    esRectificativa: anulacion ? (altaExtra.esRectificativa ?? (invoice.tipoFactura ?? '').startsWith('R')) : (extra.esRectificativa ?? false),
    tipoRectificativa: anulacion ? altaExtra.tipoRectificativa : extra.tipoRectificativa,
    fechaExpedicion: anulacion ? extra.fechaExpedicion : undefined,
    sinRegistroPrevio: anulacion ? (extra.sinRegistroPrevio ?? false) : undefined,
    rechazoPrevio: anulacion ? (extra.rechazoPrevio ?? 'N') : undefined,
  });
}
