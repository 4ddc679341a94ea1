// The invoice's description as staff read it: the till writes its own in Spanish («Venta: 2× Café»,
// «Devolución: …», cart.ts describeSale — the text filed with the authority stays as filed); on
// screen its word follows the staff's language. Any other text (from POS software) shows as it is.
import type { MessageKey } from '../../i18n';

export function descripcionVisible(descripcion: string, t: (key: MessageKey) => string): string {
  const m = /^(Venta|Devolución): /.exec(descripcion);
  if (!m) return descripcion;
  return `${t(m[1] === 'Venta' ? 'descripcion.venta' : 'descripcion.devolucion')}: ${descripcion.slice(m[0].length)}`;
}
