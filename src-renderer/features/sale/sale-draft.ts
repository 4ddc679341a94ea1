// The sale being built, kept locally until it is completed or cleared: a reload, a crashed tab or
// a restart of the desktop app (the same localStorage in its renderer) never loses its lines or
// its customer. One entry per till identity, so two tills sharing a browser profile never mix.
import { z } from 'zod';
import { readJson, type KeyValueStore } from '../../platform/storage';

const lineSchema = z.object({ id: z.string(), descripcion: z.string(), cantidad: z.string(), precio: z.string(), tipoIva: z.string() });
const originalSchema = z.object({
  idFactura: z.string(),
  numeroFactura: z.string(),
  serie: z.string(),
  numero: z.string(),
  fechaExpedicion: z.string(),
  tipoFactura: z.enum(['F1', 'F2']),
  rechazoPrevio: z.enum(['N', 'S', 'X']).optional(),
  rechazo: z.object({ sistema: z.enum(['verifactu', 'ticketbai']), codigo: z.string().optional(), descripcion: z.string().optional() }).optional(),
});

export const saleDraftSchema = z.object({
  lines: z.array(lineSchema),
  draft: z.object({ descripcion: z.string(), cantidad: z.string(), precio: z.string(), tipoIva: z.string() }),
  tipoFactura: z.enum(['F1', 'F2']),
  clienteAbierto: z.boolean(),
  cliente: z.object({ nif: z.string(), nombre: z.string(), direccion: z.string() }),
  mode: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('venta') }),
    z.object({ kind: z.literal('subsanar'), original: originalSchema }),
    z.object({ kind: z.literal('devolucion'), original: originalSchema }),
  ]),
});
export type SaleDraft = z.infer<typeof saleDraftSchema>;

const keyOf = (idMaquina: string) => `till.ventaEnCurso.${idMaquina || 'sin-caja'}`;

/** Nothing worth keeping: no line, no customer, nothing typed, a plain sale. */
export function isEmptyDraft(d: SaleDraft): boolean {
  return d.lines.length === 0 && d.mode.kind === 'venta' && !d.cliente.nif && !d.cliente.nombre && !d.cliente.direccion && !d.draft.descripcion && !d.draft.precio;
}

export function saveSaleDraft(store: KeyValueStore, idMaquina: string, draft: SaleDraft): void {
  if (isEmptyDraft(draft)) store.remove(keyOf(idMaquina));
  else store.set(keyOf(idMaquina), JSON.stringify(draft));
}

export function loadSaleDraft(store: KeyValueStore, idMaquina: string): SaleDraft | undefined {
  return readJson(store, keyOf(idMaquina), (raw) => {
    const parsed = saleDraftSchema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
  });
}
