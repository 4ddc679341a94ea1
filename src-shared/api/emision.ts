import { z } from 'zod';
import { entornoSchema } from './common';

/**
 * What the issuing answers of both regimes share (VeriFactu and TicketBAI differ only in their
 * identifiers: huella and fechaHoraHusoGenRegistro, or idTbai).
 */
export const emisionBaseFields = {
  idFactura: z.string().min(1),
  numeroFactura: z.string().min(1),
  entorno: entornoSchema,
  urlValidacion: z.string().startsWith('https://'),
  /** PNG as base64, without a `data:` prefix. */
  qrBase64: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/),
  avisos: z.array(z.string()).optional(),
  yaExistente: z.boolean().optional(),
};

/** `data` of a cancellation answer, common to both regimes. */
export const anulacionDataBaseFields = {
  idFactura: z.string().min(1),
  idRegistro: z.string().min(1),
  numeroFactura: z.string().min(1),
  /** Absent when the invoice has no series. */
  serie: z.string().min(1).optional(),
  numero: z.string().min(1),
  /** State of the cancellation record (billing record `estado`). */
  estado: z.enum(['pendiente', 'procesando', 'aceptada', 'rechazada']),
  creadoEn: z.iso.datetime(),
  yaAnulada: z.boolean().optional(),
};
