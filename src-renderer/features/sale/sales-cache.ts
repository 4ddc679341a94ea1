// What the till remembers of its own sales (lines, customer), so a reprint, a correction or a
// refund can show the lines: the engine's reads return the invoice and its records, not the lines.
import { z } from 'zod';
import { readJson, type KeyValueStore } from '../../platform/storage';

const lineSchema = z.object({ id: z.string(), descripcion: z.string(), cantidad: z.string(), precio: z.string(), tipoIva: z.string() });

export const cachedSaleSchema = z.object({
  idFactura: z.string(),
  entorno: z.enum(['test', 'live']),
  nifEmisor: z.string(),
  nombreEmisor: z.string(),
  serie: z.string(),
  numero: z.string(),
  numeroFactura: z.string(),
  fechaExpedicion: z.string(),
  hora: z.string().optional(),
  tipoFactura: z.enum(['F1', 'F2', 'R5']),
  lines: z.array(lineSchema),
  destinatario: z.object({ nif: z.string(), nombre: z.string(), direccion: z.string().optional() }).optional(),
  /** A refund (R5): the invoice it corrects, printed on its ticket. */
  rectificada: z.object({ numeroFactura: z.string(), fechaExpedicion: z.string() }).optional(),
  urlValidacion: z.string(),
  qrBase64: z.string(),
  huella: z.string().optional(),
  idMaquina: z.string().optional(),
});
export type CachedSale = z.infer<typeof cachedSaleSchema>;

const KEY = 'till.ventas';
const MAX = 300;

export class SalesCache {
  constructor(private readonly store: KeyValueStore) {}

  private all(): CachedSale[] {
    return readJson(this.store, KEY, (raw) => {
      const parsed = z.array(cachedSaleSchema).safeParse(raw);
      return parsed.success ? parsed.data : undefined;
    }) ?? [];
  }

  get(idFactura: string): CachedSale | undefined {
    return this.all().find((s) => s.idFactura === idFactura);
  }

  put(sale: CachedSale): void {
    const rest = this.all().filter((s) => s.idFactura !== sale.idFactura);
    this.store.set(KEY, JSON.stringify([sale, ...rest].slice(0, MAX)));
  }
}
